// The replay page: a slider and step buttons through every event of a game, the board, every hand and every
// player's tickets as they stood after that event (GET /replay?at=N), and the final score at the end. A finished
// game's computer analysis (analysis.js) heads the side column, marks the slider and draws a better move.
import { h, mount } from "./dom.js";
import { get, ApiError, board as loadBoard } from "./api.js";
import { createBoard } from "./board.js";
import { CARD_COLOURS } from "./colours.js";
import { eventText, mapName, seatName, ticketText } from "./words.js";
import { t } from "./i18n.js";
import { cardFace, completedTickets, playersTable, scoreTable, seatSwatch } from "./panels.js";
import { AnalysisPanel } from "./analysis.js";

export async function replayPage(page, id) {
  const summary = await get(`/games/${id}`);
  const map = await loadBoard(summary.map);
  const board = createBoard(map);
  board.tickets = Object.fromEntries(map.tickets.map((tk) => [tk.id, tk]));
  const events = await allEvents(id);
  const last = events.length ? events[events.length - 1].seq : 0;
  const ctx = { seats: summary.seats, board };
  let score = null;
  try { score = await get(`/games/${id}/score`); } catch (err) { if (!(err instanceof ApiError)) throw err; }

  const slider = h("input", { type: "range", min: 1, max: Math.max(last, 1), value: last, "aria-label": t("replay.event"), "data-action": "slider" });
  const label = h("span.replay-at", { "aria-live": "polite" });
  const state = h("div.side-state"); // what the position shows, drawn again at each step
  const analysis = summary.status === "finished" ? new AnalysisPanel({ id, summary, board, events, last, go: (n) => show(n) }) : null;
  const side = h("div.side", {}, analysis?.element, state);
  const finalWrap = h("div.final-wrap");
  let at = last;
  let timer = null;

  async function show(n) {
    at = Math.min(Math.max(n, 1), Math.max(last, 1));
    slider.value = at;
    const event = events.find((e) => e.seq === at);
    label.textContent = t("replay.at", { at, last, text: event ? eventText(event, ctx) || event.type.replaceAll("_", " ") : "" });
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
    const end = at === last && score; // the final totals, not the running score, beside the final score
    mount(finalWrap, end
      ? h("section.final.card-box", {}, h("h2", {}, t("game.final_score")), h("div.table-scroll", {}, scoreTable(score, board, summary))) : null);
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

  slider.addEventListener("input", () => show(Number(slider.value)));
  const step = (name, to) => h("button", { type: "button", "aria-label": t(`replay.${name}`), "data-step": name, onclick: () => show(to()) }, t(`replay.${name}_short`));
  mount(page, h("div.game.replay", { "data-game": id },
    h("div.status-bar", {}, h("strong", {}, t("replay.title", { map: mapName(summary.map) })),
      h("a", { href: `/games/${id}` }, t("replay.back"))),
    finalWrap,
    h("div.replay-main", {}, h("div.replay-controls.card-box", {},
      step("first", () => 1), step("previous", () => at - 1),
      h("div.slider-wrap", {}, slider, analysis?.marks), step("next", () => at + 1), step("last", () => last)),
    label, analysis?.detail, board.element),
    side));
  requestAnimationFrame(() => board.fitScreen());
  analysis?.load().catch((err) => console.warn("analysis", err));
  await show(last);
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
