// The replay page: the board first, then a slider and step buttons through the game turn by turn (each seat's whole
// turn: replayturns.js), each event still reachable one at a time (the event buttons, Shift with an arrow key), and
// for a player of the game their previous and next move; the board, every hand and every player's tickets as they
// stood after that event (GET /replay?at=N); the final score folded under the board. A finished game's computer
// analysis (analysis.js) heads the side column, marks the slider and draws a better move.
import { h, labelInName, mount } from "./dom.js";
import { get, session, ApiError, board as loadBoard } from "./api.js";
import { createBoard } from "./board.js";
import { CARD_COLOURS } from "./colours.js";
import { logLines, mapName, seatName, ticketText } from "./words.js";
import { number, t } from "./i18n.js";
import { cardFace, completedTickets, playersTable, scoreTable, seatSwatch } from "./panels.js";
import { AnalysisPanel } from "./analysis.js";
import { turnAt, turnsOf } from "./replayturns.js";

export async function replayPage(page, id) {
  const summary = await get(`/games/${id}`);
  const map = await loadBoard(summary.map);
  const board = createBoard(map);
  board.tickets = Object.fromEntries(map.tickets.map((tk) => [tk.id, tk]));
  const events = await allEvents(id);
  const last = events.length ? events[events.length - 1].seq : 1;
  const turns = events.length ? turnsOf(events) : [{ first: 1, last: 1, seat: null }];
  const ctx = { seats: summary.seats, board };
  // Only a scored game has a score (an aborted one never will): asked for then only, as /score answers 409 before.
  let score = null;
  if (events.some((e) => e.type === "game_scored")) {
    try { score = await get(`/games/${id}/score`); } catch (err) { if (!(err instanceof ApiError)) throw err; }
  }
  const me = (session.user || "").toLowerCase();
  const mySeat = summary.seats.findIndex((x) => me && (x.username || "").toLowerCase() === me);
  const mine = mySeat < 0 ? [] : turns.map((turn, i) => (turn.seat === mySeat ? i : -1)).filter((i) => i >= 0);

  const slider = h("input", { type: "range", min: 1, max: turns.length, value: turns.length, "aria-label": t("replay.turn"),
    "aria-keyshortcuts": "Shift+ArrowLeft Shift+ArrowRight", "data-action": "slider" });
  const label = h("p.replay-at", { "aria-live": "polite", tabindex: "0" }); // it may scroll: the keyboard reaches it
  const state = h("div.side-state"); // what the position shows, drawn again at each step
  const position = (seq) => (turns.length > 1 ? turnAt(turns, seq) / (turns.length - 1) : 0);
  const analysis = summary.status === "finished"
    ? new AnalysisPanel({ id, summary, board, events, last, go: (n) => show(n), position }) : null;
  const side = h("div.side", {}, analysis?.element, state);
  let at = last;
  let timer = null;

  async function show(n) {
    at = Math.min(Math.max(n, 1), last);
    const index = turnAt(turns, at);
    const turn = turns[index];
    slider.value = index + 1;
    const who = turn.seat === null ? "" : seatName(summary.seats[turn.seat], summary.seats);
    const of = { turn: number(index + 1), turns: number(turns.length), who };
    slider.setAttribute("aria-valuetext", who ? t("replay.turn_who", of) : t("replay.turn_of", of));
    root.dataset.at = at;
    root.dataset.turn = index + 1;
    const said = events.filter((e) => e.seq >= turn.first && e.seq <= at);
    const event = events.find((e) => e.seq === at);
    mount(label, h("strong", {}, t("replay.where", { turn: number(index + 1), turns: number(turns.length), at: number(at), last: number(last) })),
      " ", logLines(said, ctx).map((line) => h("span.replay-line", { "data-seq": line.seq }, line.text, " ")));
    label.dataset.seq = at;
    label.dataset.type = event?.type || "";
    label.dataset.seat = event?.seat ?? "";
    for (const button of controls.querySelectorAll("[data-step]")) button.disabled = !targets[button.dataset.step]();
    const stateAt = at;
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const state = await get(`/games/${id}/replay?at=${stateAt}`);
      if (stateAt !== at) return;
      render(state.view);
    }, 60);
  }

  function render(view) {
    board.update(view.routes || {}, view.stations || {});
    const hands = view.hands || [];
    const tickets = view.player_tickets || [];
    const end = at === last && score; // the final totals, not the running score, at the end
    mount(state,
      view.players ? h("section.players", {}, h("h2", {}, t("game.players")), playersTable(view, summary, [], end ? score : null)) : null,
      view.market ? h("section.market", {}, h("h2", {}, t("game.market")), h("div.cards", {}, view.market.map((c) => cardFace(c, null)))) : null,
      hands.map((hand, seat) => {
        const done = completedTickets(view, board, seat, tickets[seat] || []);
        return h("section.seat-hand", { "data-seat": seat }, h("h2", {}, seatSwatch(seat), seatName(summary.seats[seat], summary.seats)),
          h("div.cards", {}, CARD_COLOURS.filter((c) => hand[c]).map((c) => cardFace(c, hand[c]))),
          h("ul.tickets", {}, (tickets[seat] || []).map((tid) => h(`li${done.has(tid) ? ".done" : ""}`, {},
            ticketText(board.tickets[tid], board.cities)))));
      }));
    analysis?.update(at, state);
  }

  // Where each step goes from here (null: nowhere, its button disabled): a turn is shown at its last event.
  const here = () => turnAt(turns, at);
  const turnEnd = (i) => (i >= 0 && i < turns.length ? turns[i].last : null);
  const targets = {
    first: () => (at !== turns[0].last ? turns[0].last : null),
    previous: () => turnEnd(here() - 1),
    next: () => turnEnd(at === turns[here()].last ? here() + 1 : here()),
    last: () => (at !== last ? last : null),
    event_previous: () => (at > 1 ? at - 1 : null),
    event_next: () => (at < last ? at + 1 : null),
    mine_previous: () => turnEnd([...mine].reverse().find((i) => turns[i].last < at) ?? -1),
    mine_next: () => turnEnd(mine.find((i) => turns[i].last > at) ?? -1),
  };
  const go = (name) => { const to = targets[name](); if (to !== null) show(to); };
  const step = (name) => h("button", { type: "button", "aria-label": labelInName(t(`replay.${name}_short`), t(`replay.${name}`)),
    title: t(`replay.${name}`), "data-step": name, onclick: () => go(name) }, t(`replay.${name}_short`));

  slider.addEventListener("input", () => show(turns[Number(slider.value) - 1].last));
  // Shift with an arrow key: an event at a time (the slider's own arrows go a turn at a time).
  slider.addEventListener("keydown", (e) => {
    if (!e.shiftKey || !["ArrowLeft", "ArrowRight", "ArrowDown", "ArrowUp"].includes(e.key)) return;
    e.preventDefault();
    go(e.key === "ArrowLeft" || e.key === "ArrowDown" ? "event_previous" : "event_next");
  });
  const controls = h("div.replay-controls.card-box", {},
    h("div.slider-wrap", {}, slider, analysis?.marks),
    h("div.replay-steps", { role: "group", "aria-label": t("replay.turns") }, step("first"), step("previous"), step("next"), step("last")),
    h("div.replay-steps", { role: "group", "aria-label": t("replay.events") }, step("event_previous"), step("event_next")),
    h("p.muted.replay-keys", {}, t("replay.keys")),
    mine.length ? h("div.replay-steps.mine", { role: "group", "aria-label": t("replay.my_moves") }, step("mine_previous"), step("mine_next")) : null);
  const final = score ? h("details.final.card-box", { "data-final": "" },
    h("summary", {}, h("strong", {}, t("game.final_score")), " ", h("span.final-summary", {}, finalSummary(score, summary))),
    h("div.final-table", {}, scoreTable(score, board, summary))) : null;
  const root = h("div.game.replay", { "data-game": id },
    h("div.status-bar", {}, h("strong", {}, t("replay.title", { map: mapName(summary.map) })),
      h("a", { href: `/games/${id}` }, t("replay.back"))),
    h("div.replay-main", {}, controls, label, analysis?.detail, board.element, final),
    side);
  mount(page, root);
  // The page's own keys, while no field has the focus: the arrows a turn, with Shift an event.
  const keys = (e) => {
    if (!root.isConnected) return document.removeEventListener("keydown", keys);
    const target = e.target;
    if (e.ctrlKey || e.altKey || e.metaKey || !["ArrowLeft", "ArrowRight"].includes(e.key)) return;
    if (target !== document.body && target.closest?.("input, select, textarea, [role=slider], [contenteditable]")) return;
    e.preventDefault();
    go(e.shiftKey ? (e.key === "ArrowLeft" ? "event_previous" : "event_next") : (e.key === "ArrowLeft" ? "previous" : "next"));
  };
  document.addEventListener("keydown", keys);
  requestAnimationFrame(() => board.fitScreen());
  analysis?.load().catch((err) => console.warn("analysis", err));
  await show(last);
}

// "1. ann 119 · 2. bob 106 · 3. cat −84": the places in a line, read before the table is opened.
function finalSummary(score, summary) {
  return [...score.scores].sort((a, b) => a.place - b.place || b.total - a.total)
    .map((s) => `${number(s.place)}. ${seatName(summary.seats[s.seat] || s, summary.seats)} ${number(s.total)}`).join(" · ");
}

async function allEvents(id) {
  const events = [];
  for (;;) {
    const after = events.length ? events[events.length - 1].seq : 0;
    const page = await get(`/games/${id}/events?after=${after}`);
    if (!page.events.length) return events;
    events.push(...page.events);
    if (page.events[page.events.length - 1].seq >= page.seq) return events;
  }
}
