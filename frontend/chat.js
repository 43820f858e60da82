// Table talk beside the board (docs/API.md, Table talk and languages). The history comes from GET /games/{id}/chat;
// new lines come over the game's socket ({type: "chat"}), a line staff hid as {type: "chat_hidden"}; lines are written
// over the socket too ({type: "chat", text, channel?}). Players write at the table; spectators in their own channel
// unless the game's creator lets them write at the table. A line is text: drawn with text nodes, never as markup;
// an address is a link only when it points to this site. The list is a polite live region: screen readers read new
// lines out without taking the focus. Every word the panel shows is the reader's language's (i18n.js).
import { h, mount } from "./dom.js";
import { del, errorText, get, openSocket, post, session } from "./api.js";
import { date, t } from "./i18n.js";

const PHRASES = ["good_luck", "well_played", "sorry", "thinking"];
const REPORT_REASONS = ["spam", "abuse", "cheating", "other"]; // each t(`chat.report_reason.${reason}`)
const REPORT_DETAILS = 250; // the reason's words of one's own: with the reason's name, under the server's 300
const MAX_LENGTH = 500;
const URL_PATTERN = /(https?:\/\/[^\s<>"]+)/g;
// The socket's refusals that answer a chat line (the codes of games/chat.py and the socket's own).
export const CHAT_ERRORS = new Set(["rate_limited", "spectator", "not_a_spectator", "chat_banned", "not_authenticated"]);

export class ChatPanel {
  // send(message): hands a message to the game's socket, false when it is not open.
  constructor(gameId, { send, seated, spectatorsAtTable }) {
    this.id = gameId;
    this.send = send;
    this.seated = seated;
    this.spectatorsAtTable = spectatorsAtTable;
    this.lines = new Map(); // id -> li
    this.muted = new Set();
    // A list that is a polite live region (not role=log, which would make its items no list's)
    this.list = h("ol.chat-lines", { "aria-live": "polite", "aria-relevant": "additions", "aria-label": t("chat.title") });
    this.reporting = h("div.chat-report-holder");
    this.status = h("p.chat-status", { role: "status" });
    this.mutedNote = h("p.chat-muted");
    this.element = h("section.chat", { id: "chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title", tabindex: "-1" }, t("chat.title")), this.list, this.reporting, this.status, this.form(), this.mutedNote);
  }

  async load() {
    if (session.token) {
      try { this.muted = new Set((await get("/me")).muted || []); } catch { /* signed out meanwhile */ }
    }
    for (let after = 0; ;) { // the history a page at a time (the server gives at most 200 lines an answer)
      const { results } = await get(`/games/${this.id}/chat?after=${after}`);
      for (const line of results) this.add(line);
      if (results.length < 200) break;
      after = results[results.length - 1].id;
    }
    this.drawMuted();
    if (!this.lines.size) this.list.append(h("li.chat-empty", {}, t("chat.empty")));
  }

  form() {
    if (!session.token) return h("p.chat-sign-in", {}, h("a", { href: `/signin?next=${encodeURIComponent(location.pathname)}` }, t("chat.sign_in")));
    this.input = h("input.chat-input", { name: "chat", maxlength: MAX_LENGTH, autocomplete: "off", placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder") });
    // Spectators write in their own channel; at the table too when the creator allows it.
    this.channel = !this.seated && this.spectatorsAtTable
      ? h("select.chat-channel", { "aria-label": t("chat.channel") },
        h("option", { value: "spectators" }, t("chat.spectators")), h("option", { value: "table" }, t("chat.table")))
      : null;
    const phrases = h("div.chat-phrases", { role: "group", "aria-label": t("chat.phrases") },
      PHRASES.map((key) => h("button.chat-phrase", { type: "button", "data-phrase": key, onclick: () => this.say(t(`chat.phrase.${key}`)) },
        t(`chat.phrase.${key}`))));
    return h("div.chat-write", {},
      !this.seated && !this.spectatorsAtTable ? h("p.chat-note", {}, t("chat.spectators_own")) : null,
      phrases,
      h("form.chat-form", { onsubmit: (e) => { e.preventDefault(); this.say(this.input.value); } },
        this.channel, this.input, h("button", { type: "submit" }, t("chat.send"))));
  }

  say(text) {
    const line = String(text).trim();
    if (!line) return;
    if ([...line].length > MAX_LENGTH) { this.status.textContent = t("chat.too_long"); return; }
    const message = { type: "chat", text: line };
    if (this.channel) message.channel = this.channel.value;
    if (!this.send(message)) { this.status.textContent = t("chat.failed", { detail: t("chat.offline") }); return; }
    this.status.textContent = "";
    if (this.input && this.input.value.trim() === line) this.input.value = "";
  }

  // A message of the game's socket: true when it was the chat's.
  onMessage(message) {
    if (message.type === "chat") this.add(message);
    else if (message.type === "chat_hidden") this.hide(message.id);
    else if (message.type === "error" && this.isChatError(message.error)) this.refused(message.error);
    else return false;
    return true;
  }

  isChatError(error) {
    return Boolean(error) && (CHAT_ERRORS.has(error.code) || (error.code === "invalid" && ["text", "channel"].includes(error.field)));
  }

  refused(error) {
    const words = { rate_limited: t("chat.rate_limited"), chat_banned: t("chat.banned"), spectator: t("chat.spectators_own") }[error.code];
    this.status.textContent = words || t("chat.failed", { detail: error.detail || error.code });
  }

  add(line) {
    if (this.lines.has(line.id) || this.muted.has(line.username)) return;
    this.list.querySelector(".chat-empty")?.remove();
    const mine = line.username === session.user;
    const li = h(`li.chat-line.chat-${line.channel}`, { "data-id": line.id, "data-user": line.username },
      line.channel === "spectators" ? h("span.chat-channel-tag", {}, `${t("chat.spectators")} · `) : null,
      h("strong.chat-who", {}, line.username), ": ",
      h("span.chat-text", {}, linked(line.text)), " ",
      h("time.chat-at", { datetime: line.at }, date(line.at, { timeStyle: "short" })),
      session.token && !mine ? h("span.chat-actions", {},
        h("button.link.chat-report", { type: "button", onclick: (e) => this.askReport(line, e.currentTarget) }, t("chat.report")),
        h("button.link.chat-mute", { type: "button", onclick: () => this.mute(line.username, true) }, t("chat.mute"))) : null);
    // in id order (a line may come over the socket before the history that precedes it)
    const after = [...this.lines.keys()].filter((id) => id > line.id).sort((a, b) => a - b)[0];
    if (after === undefined) this.list.append(li);
    else this.lines.get(after).before(li);
    this.lines.set(line.id, li);
  }

  hide(id) {
    const li = this.lines.get(id);
    if (!li) return;
    mount(li, h("em.chat-hidden", {}, t("chat.hidden")));
  }

  // Report: the reason asked first (spam, abuse, cheating or other, and words of one's own if one likes), below the
  // list; once the server has taken it, said in words and the line's Report button becomes "Reported". Cancel or
  // Escape closes the question and gives the focus back to the Report button.
  askReport(line, button) {
    const close = () => { this.reporting.replaceChildren(); button.focus(); };
    const error = h("p.error", { role: "alert" });
    const details = h("input.chat-report-details", { name: "details", maxlength: REPORT_DETAILS, autocomplete: "off" });
    const form = h("form.chat-report-form", {
      "data-id": line.id,
      onkeydown: (e) => { if (e.key === "Escape") { e.preventDefault(); close(); } },
      onsubmit: async (e) => {
        e.preventDefault();
        const reason = form.elements.reason.value;
        const words = details.value.trim();
        error.textContent = "";
        try {
          await post(`/chat/${line.id}/report`, { reason: words ? `${reason}: ${words}` : reason });
        } catch (err) { error.textContent = t("chat.report_failed", { detail: errorText(err) }); return; }
        this.reporting.replaceChildren();
        const done = h("span.chat-reported", { tabindex: "-1" }, t("chat.reported"));
        button.replaceWith(done);
        this.status.textContent = t("chat.report_thanks");
        done.focus();
      },
    },
    h("fieldset", {}, h("legend", {}, t("chat.report_why", { name: line.username })),
      h("blockquote.chat-report-quote", {}, line.text),
      h("div.chat-report-reasons", {}, REPORT_REASONS.map((reason) => h("label", {},
        h("input", { type: "radio", name: "reason", value: reason, required: true }), ` ${t(`chat.report_reason.${reason}`)}`))),
      h("p", {}, h("label", {}, `${t("chat.report_details")} `, details)),
      error,
      h("p.chat-report-buttons", {}, h("button.primary", { type: "submit" }, t("chat.report_send")), " ",
        h("button", { type: "button", onclick: close }, t("chat.report_cancel")))));
    mount(this.reporting, form);
    form.querySelector("input[type=radio]").focus();
  }

  async mute(username, on) {
    try {
      await (on ? post : del)(`/users/${encodeURIComponent(username)}/mute`);
    } catch (err) { this.status.textContent = t("chat.failed", { detail: errorText(err) }); return; }
    if (on) {
      this.muted.add(username);
      for (const [id, li] of this.lines) if (li.dataset.user === username) { li.remove(); this.lines.delete(id); }
    } else {
      this.muted.delete(username);
      this.list.replaceChildren();
      this.lines.clear();
      await this.load(); // their lines come back from the history
    }
    this.drawMuted();
  }

  drawMuted() {
    if (!this.muted.size) { this.mutedNote.replaceChildren(); return; }
    const names = [...this.muted].sort();
    mount(this.mutedNote, t("chat.muted", { names: names.join(", ") }), " ",
      names.map((name) => h("button.link.chat-unmute", { type: "button", "data-user": name, onclick: () => this.mute(name, false) },
        `${t("chat.unmute")} ${name}`)));
  }
}

// A `send` for a page without the game's socket (a finished game's): the first line opens a socket of the chat's
// own, which then also brings the others' lines (`onMessage`); lines written before it is open wait for it.
export function chatSocket(gameId, onMessage) {
  let socket = null;
  const waiting = [];
  return (message) => {
    if (!session.token) return false;
    if (!socket || socket.readyState === WebSocket.CLOSING || socket.readyState === WebSocket.CLOSED) {
      socket = openSocket(`/ws/games/${gameId}/`);
      socket.onopen = () => { for (const line of waiting.splice(0)) socket.send(JSON.stringify(line)); };
      socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    }
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    else waiting.push(message);
    return true;
  };
}

// The text as text nodes, with this site's addresses as links (another site's stay text: never clickable).
function linked(text) {
  return String(text).split(URL_PATTERN).map((part, i) => {
    if (i % 2 === 0) return part;
    try {
      const url = new URL(part);
      return url.origin === location.origin ? h("a", { href: url.href }, part) : part;
    } catch { return part; }
  });
}
