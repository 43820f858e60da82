// The game page's parts for playing by day: taking a seat with an invitation link (/games/{id}?invite=TOKEN),
// the creator's invitation panel of an open private game (the link to copy, "invite by username"), the rematch of
// a finished game (offer, accept, who accepted, and off to the new game once it is formed), and who of a daily
// game's players is on vacation until when, told to the others (the game page's notice and My games' rows).
//
// A finished game's page reads nothing by itself (game.js); the rematch is read again only when the inbox hears
// something, and every REMATCH_POLL_MS while this person has accepted and waits for the others.
import { h, mount } from "./dom.js";
import { clientSeed, get, post, session, ApiError, errorText } from "./api.js";
import { onNotification } from "./inbox.js";
import { date, language, t, tn, tParts } from "./i18n.js";

const REMATCH_POLL_MS = 5000;
const same = (a, b) => (a || "").toLowerCase() === (b || "").toLowerCase();
const names = (list) => new Intl.ListFormat(language(), { type: "conjunction" }).format(list); // "ann, bob and cat"

// ---- invitations
// Takes the seat an invitation link offers: {problem: sentence|null}, or {away: true} when the person must sign in
// first (the sign-in page comes back here). The address loses its token either way: a reload asks nothing twice.
export async function acceptInvite(id) {
  const url = new URL(location.href);
  const token = url.searchParams.get("invite");
  if (!token) return { problem: null };
  if (!session.user) {
    location.href = `/signin?next=${encodeURIComponent(url.pathname + url.search)}`;
    return { away: true };
  }
  url.searchParams.delete("invite");
  history.replaceState(null, "", url);
  try {
    const game = await get(`/games/${id}`);
    if (game.seats.some((s) => same(s.username, session.user))) return { problem: null }; // seated already
    await post(`/games/${id}/join`, { invite: token, client_seed: clientSeed() });
    return { problem: null, joined: true };
  } catch (err) {
    return { problem: inviteProblem(err) };
  }
}

const PROBLEMS = ["invite_used", "game_full", "not_open", "invite_invalid", "seat_taken"]; // byday.invite.<code>

function inviteProblem(err) {
  const code = err instanceof ApiError ? err.body.code : null;
  return PROBLEMS.includes(code) ? t(`byday.invite.${code}`) : t("byday.invite.failed", { problem: errorText(err) });
}

// The creator's panel while a private game is open: the link (a copy button) and invitations by username.
// Made once per page and kept across redraws, so a name being typed survives the seats' poll.
export class InvitePanel {
  constructor(gameId) {
    this.gameId = gameId;
    this.link = h("input.invite-link", { type: "text", readonly: true, "aria-label": t("byday.invite_link"),
      onfocus: (e) => e.target.select() });
    this.copied = h("span.muted", { role: "status" });
    this.sent = h("p", { role: "status" });
    this.name = h("input", { name: "username", autocomplete: "off", required: true, maxlength: 24 });
    this.element = h("div.invite", {}, h("h3", {}, t("byday.invite_players")),
      h("p", {}, t("byday.private")),
      h("p.invite-row", {}, this.link, h("button", { type: "button", "data-action": "copy-invite", onclick: () => this.copy() }, t("byday.copy_link")), this.copied),
      h("form.invite-user", { onsubmit: (e) => { e.preventDefault(); this.invite(); } },
        h("label", {}, `${t("byday.invite_by_name")} `, this.name), " ",
        h("button", { type: "submit", "data-action": "invite-user" }, t("byday.invite"))),
      this.sent);
  }

  // The token changes once a link is used (the next free seat gets a new one).
  update(token) {
    const url = `${location.origin}/games/${this.gameId}?invite=${encodeURIComponent(token)}`;
    if (this.link.value !== url) this.link.value = url;
    return this.element;
  }

  async copy() {
    try {
      await navigator.clipboard.writeText(this.link.value);
      this.copied.textContent = ` ${t("byday.copied")}`;
    } catch {
      this.link.select(); // no clipboard here (an insecure page, or refused): selected, for Ctrl+C
      this.copied.textContent = ` ${t("byday.selected")}`;
    }
  }

  async invite() {
    const name = this.name.value.trim();
    this.sent.className = "";
    try {
      const answer = await post(`/games/${this.gameId}/invite`, { username: name });
      this.sent.textContent = t("byday.invitation_sent", { name: answer.username });
      this.name.value = "";
    } catch (err) {
      this.sent.className = "error";
      this.sent.textContent = errorText(err);
    }
  }
}

// ---- vacations
// A daily game's players on vacation (My games' `away`), in words: "bob is on vacation until 4 December: their
// deadline moves by 7 days"; the reader's own: "You are on vacation until 4 December: your clock stands still".
export function awayLines(away) {
  if (!away?.length) return null;
  return h("ul.away", {}, away.map((a) => h("li", { "data-away": a.seat, "data-until": a.until },
    same(a.username, session.user) ? t("byday.away_you", { date: untilText(a.until) })
      : tn("byday.away", a.days, { name: a.username, date: untilText(a.until) }))));
}

function untilText(at) {
  const when = new Date(at);
  const options = { day: "numeric", month: "long" };
  if (when.getFullYear() !== new Date().getFullYear()) options.year = "numeric";
  return date(when, options);
}

// The game page's notice of vacations, for the players of a daily game in play: read from My games (GET
// /api/me/games, whose rows name who is away), once and again whenever the inbox hears of this game. A spectator
// is told nothing (the read is the players' own). `element` is the page's to place.
export class AwayNotice {
  constructor(game) {
    this.game = game;
    this.element = h("div.away-notice", { "aria-live": "polite", hidden: true });
    if (game.summary.speed !== "daily" || game.summary.status !== "active" || !session.user) return;
    onNotification((n) => { if (n.game === game.id) this.read(); });
    this.read();
  }

  async read() {
    let answer;
    try { answer = await get("/me/games"); } catch { return; } // the page reads on without it
    const row = answer.results.find((g) => g.id === this.game.id);
    mount(this.element, row ? awayLines(row.away) : null);
    this.element.hidden = !this.element.childElementCount;
  }
}

// ---- rematch
export class Rematch {
  constructor(game) {
    this.game = game;
    this.element = h("section.rematch", { "aria-live": "polite" });
    this.error = "";
    this.busy = false;
    this.wasReady = Boolean(this.offer?.game); // formed before this page was opened: a link, no jump
    onNotification((n) => { if (n.game === game.id || this.waiting) this.reread(); });
    if (this.waiting) this.poll(); // accepted earlier, and the others have not yet
  }

  get offer() { return this.game.summary.rematch || null; }
  get people() { return this.game.summary.seats.filter((s) => s.username).map((s) => s.username); }
  get accepted() { return this.offer ? [this.offer.by, ...this.offer.accepted_by].filter((v, i, all) => all.findIndex((x) => same(x, v)) === i) : []; }
  get mine() { return this.accepted.some((u) => same(u, session.user)); }
  get waiting() { return Boolean(this.offer && !this.offer.game && this.mine); }

  render() {
    const offer = this.offer;
    const player = this.game.mySeat !== null && this.people.some((u) => same(u, session.user));
    const error = this.error ? h("p.error", { role: "alert" }, this.error) : null;
    if (offer?.game) {
      return mount(this.element, h("h2", {}, t("byday.rematch")), h("p", {}, tParts("byday.rematch_started",
        { link: h("a.rematch-link", { href: `/games/${offer.game}` }, t("byday.rematch_go")) })));
    }
    if (!player) {
      return offer ? mount(this.element, h("h2", {}, t("byday.rematch")), h("p.muted", {}, t("byday.offers", { name: offer.by })))
        : mount(this.element);
    }
    const button = (text) => h("button.primary", { type: "button", "data-action": "rematch", disabled: this.busy, onclick: () => this.press() }, text);
    if (!offer) {
      return mount(this.element, h("h2", {}, t("byday.rematch")), h("p", {}, t("byday.play_again")),
        button(t("byday.offer")), error);
    }
    const missing = this.people.filter((u) => !this.accepted.some((a) => same(a, u)));
    return mount(this.element, h("h2", {}, t("byday.rematch")),
      h("p", {}, same(offer.by, session.user) ? t("byday.you_offered") : t("byday.offers", { name: offer.by })),
      h("p.accepted", { "data-accepted": this.accepted.join(",") }, t("byday.accepted_by", { names: names(this.accepted) })),
      missing.length ? h("p.muted", {}, t("byday.waiting_for", { names: names(missing.map((u) => (same(u, session.user) ? t("byday.you") : u))) }))
        : null,
      this.mine ? null : button(t("byday.accept")), error);
  }

  async press() {
    this.busy = true;
    this.error = "";
    this.render();
    try {
      const answer = await post(`/games/${this.game.id}/rematch`);
      this.game.summary.rematch = answer.offer;
      if (answer.offer.game) return this.go(answer.offer.game);
      this.poll();
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.busy = false;
    }
    this.render();
  }

  async reread() {
    try {
      this.game.summary = await get(`/games/${this.game.id}`);
    } catch { return; }
    if (this.offer?.game && !this.wasReady && this.mine) return this.go(this.offer.game);
    this.render();
  }

  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (!this.waiting) return;
      if (!document.hidden) await this.reread();
      this.poll();
    }, REMATCH_POLL_MS);
  }

  go(id) {
    mount(this.element, h("h2", {}, t("byday.rematch")), h("p", { role: "status" }, t("byday.opening")));
    location.href = `/games/${id}`;
  }
}
