// The replay page: a slider and step buttons through every event of a game, the board, every hand and every
// player's tickets as they stood after that event (GET /replay?at=N), and the final score at the end.
import { h, mount } from "./dom.js";
import { get, ApiError, board as loadBoard } from "./api.js";
import { createBoard } from "./board.js";
import { CARD_COLOURS } from "./colours.js";
import { eventText, seatName, ticketText } from "./words.js";
import { cardFace, completedTickets, playersTable, scoreTable, seatSwatch } from "./panels.js";

export async function replayPage(page, id) {
  const summary = await get(`/games/${id}`);
  const map = await loadBoard(summary.map);
  const board = createBoard(map);
  board.tickets = Object.fromEntries(map.tickets.map((t) => [t.id, t]));
  const events = await allEvents(id);
  const last = events.length ? events[events.length - 1].seq : 0;
  const ctx = { seats: summary.seats, board };
  let score = null;
  try { score = await get(`/games/${id}/score`); } catch (err) { if (!(err instanceof ApiError)) throw err; }

  const slider = h("input", { type: "range", min: 1, max: Math.max(last, 1), value: last, "aria-label": "Event", "data-action": "slider" });
  const label = h("span.replay-at", { "aria-live": "polite" });
  const side = h("div.side");
  const finalWrap = h("div.final-wrap");
  let at = last;
  let timer = null;

  async function show(n) {
    at = Math.min(Math.max(n, 1), Math.max(last, 1));
    slider.value = at;
    const event = events.find((e) => e.seq === at);
    label.textContent = `Event ${at} of ${last}: ${event ? eventText(event, ctx) || event.type.replaceAll("_", " ") : ""}`;
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
      ? h("section.final.card-box", {}, h("h2", {}, "Final score"), h("div.table-scroll", {}, scoreTable(score, board, summary))) : null);
    mount(side,
      view.players ? h("section.players", {}, h("h2", {}, "Players"), playersTable(view, summary, [], end ? score : null)) : null,
      view.market ? h("section.market", {}, h("h2", {}, "Market"), h("div.cards", {}, view.market.map((c) => cardFace(c, null)))) : null,
      hands.map((hand, seat) => {
        const done = completedTickets(view, board, seat, tickets[seat] || []);
        return h("section.seat-hand", { "data-seat": seat }, h("h2", {}, seatSwatch(seat), seatName(summary.seats[seat], summary.seats)),
          h("div.cards", {}, CARD_COLOURS.filter((c) => hand[c]).map((c) => cardFace(c, hand[c]))),
          h("ul.tickets", {}, (tickets[seat] || []).map((tid) => h(`li${done.has(tid) ? ".done" : ""}`, {},
            ticketText(board.tickets[tid], board.cities)))));
      }));
  }

  slider.addEventListener("input", () => show(Number(slider.value)));
  const step = (label, text, to) => h("button", { type: "button", "aria-label": label, "data-step": text, onclick: () => show(to()) }, text);
  mount(page, h("div.game.replay", { "data-game": id },
    h("div.status-bar", {}, h("strong", {}, `Replay: ${summary.map === "usa" ? "USA" : "Europe"}`),
      h("a", { href: `/games/${id}` }, "Back to the game")),
    finalWrap,
    h("div.replay-main", {}, h("div.replay-controls.card-box", {},
      step("First event", "« First", () => 1), step("Previous event", "‹ Back", () => at - 1),
      slider, step("Next event", "Next ›", () => at + 1), step("Last event", "Last »", () => last)), label, board.element),
    side));
  requestAnimationFrame(() => board.fitScreen());
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
