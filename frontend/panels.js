// Pieces shared by the game and replay pages: cards, a seat's swatch, the players' table (each seat's clock while
// it decides; its final total once the game is scored), completed tickets, the final score (a table on a wide
// screen, one block per player on a phone: see style.css).
import { h, s } from "./dom.js";
import { SEAT_FILL, SEAT_INK, SEAT_MARK, SEAT_MARK_NAME, SEAT_NAME, cardBackground } from "./colours.js";
import { durationText, seatName, ticketText, timeLeftText } from "./words.js";

// A seat's colour and mark, as its trains wear them on the board.
export function seatSwatch(seat) {
  return h("span.swatch", { style: `background:${SEAT_FILL[seat]}`, title: `${SEAT_NAME[seat]}, ${SEAT_MARK_NAME[seat]}`, "data-swatch": seat },
    s("svg", { viewBox: "-6 -6 12 12", "aria-hidden": "true" }, s("path", { d: SEAT_MARK[seat], fill: SEAT_INK[seat] })));
}

// A card: its colour's pattern, its name and (in a hand) how many.
export function cardFace(colour, count, { button = false, label, onclick, disabled, ...data } = {}) {
  const fill = h("span.swatch-fill", {});
  const children = [fill, count ? h("span.count", {}, count) : null, h("span.label", {}, colour === "locomotive" ? "loco" : colour)];
  const attrs = { ...data, title: colour, "data-colour": colour };
  const el = button
    ? h("button.card", { ...attrs, type: "button", disabled, onclick, "aria-label": label }, children)
    : h("span.card", { ...attrs, "aria-label": `${count} ${colour}` }, children);
  fill.style.background = cardBackground(colour); // the same mark as the board's spaces of that colour
  return el;
}

// The time left of a seat deciding now (the view's `deadline`, ticked by the page: data-deadline).
export function seatClock(deadline) {
  return h("span.seat-clock", { "data-deadline": deadline, "data-format": "short" }, timeLeftText(deadline));
}

// `score` (GET /score), once the game is scored: its totals stand in the score column, where the view's running
// score (routes only) would contradict the final score beside it.
export function playersTable(view, summary, presence, score = null) {
  const stations = view.map !== "usa"; // the USA map has no stations
  const banks = view.banks && typeof view.banks === "object" ? view.banks : null; // daily games: each seat's bank
  const totals = score ? Object.fromEntries(score.scores.map((x) => [x.seat, x.total])) : null;
  const finished = view.phase === "finished";
  const titles = ["Player", totals ? "Total" : "Score", "Trains", "Cards", "Tickets", stations ? "Stations" : null, banks ? "Bank" : null].filter(Boolean);
  return h("div.table-scroll", {}, h("table.players", {},
    h("thead", {}, h("tr", {}, titles.map((t) => h("th", {}, t)))),
    h("tbody", {}, view.players.map((p) => {
      const seat = summary.seats[p.seat];
      const deciding = !finished && (view.deciding_seats || [view.current_seat]).includes(p.seat);
      return h(`tr${deciding ? ".current" : ""}`, { "data-seat": p.seat },
        h(`td${presence.includes(p.seat) ? ".present" : ""}`, { title: presence.includes(p.seat) ? "connected" : "" },
          seatSwatch(p.seat), seatName(seat, summary.seats), view.your_seat === p.seat ? " (you)" : "",
          deciding ? h("span.deciding", { title: "deciding now" }, " ▶") : null,
          deciding && view.deadline ? seatClock(view.deadline) : null),
        h("td", {}, totals ? h("strong", { "data-total": "" }, totals[p.seat] ?? p.score) : p.score),
        h("td", {}, p.trains), h("td", {}, p.cards), h("td", {}, p.tickets),
        stations ? h("td", {}, p.stations_left ?? "") : null,
        banks ? h("td.bank", { "data-bank": banks[p.seat] ?? "" }, banks[p.seat] === undefined ? "" : durationText(banks[p.seat])) : null);
    }))));
}

// Tickets whose two cities the player's own routes already join (stations not counted until the end).
export function completedTickets(view, board, seat = view.your_seat, tickets = view.tickets) {
  const parent = {};
  const find = (x) => (parent[x] === undefined || parent[x] === x ? (parent[x] = x) : (parent[x] = find(parent[x])));
  for (const [route, owner] of Object.entries(view.routes)) {
    if (owner !== seat) continue;
    const r = board.routes[route];
    parent[find(r.a)] = find(r.b);
  }
  return new Set(tickets.filter((id) => {
    const t = board.tickets[id];
    return t && find(t.a) === find(t.b);
  }));
}

export function scoreTable(score, board, summary = null) {
  const city = (id) => board.cities[id]?.name || id;
  const route = (id) => {
    const r = board.routes[id];
    return r ? `${city(r.a)} – ${city(r.b)}` : id;
  };
  const rows = [...score.scores].sort((a, b) => a.place - b.place || a.seat - b.seat);
  const seats = summary ? summary.seats : rows;
  // Each cell names its column (data-label), which a phone shows before the cell when the rows are blocks.
  const cell = (name, label, ...children) => h(`td.${name}`, { "data-label": label }, children);
  return h("table.score", {},
    h("thead", {}, h("tr", {}, ["Place", "Player", "Routes", "Tickets", board.hasStations ? "Stations" : null, "Longest path", "Total"]
      .filter(Boolean).map((t) => h("th", {}, t)))),
    h("tbody", {}, rows.map((x) => h("tr", { "data-seat": x.seat },
      cell("place", "Place", x.place === 1 ? "1 (winner)" : x.place),
      cell("player", "Player", seatSwatch(x.seat), seatName(seats.find((seat) => seat.seat === x.seat) || x, seats)),
      cell("routes", "Routes", x.route_points),
      cell("tickets", "Tickets", h("ul", {}, x.tickets.map((t) => h("li", {}, `${board.tickets[t.ticket] ? ticketText(board.tickets[t.ticket], board.cities) : t.ticket}: `,
        h("strong", {}, t.points > 0 ? `+${t.points}` : t.points), t.completed ? "" : " (not completed)")))),
      board.hasStations ? cell("stations", "Stations", `${x.stations_unbuilt} unbuilt: +${x.station_points ?? x.stations_unbuilt * 4}`,
        x.station_routes.length ? h("ul", {}, x.station_routes.map((u) => h("li", {},
          `${city(u.city)} borrows ${u.route ? route(u.route) : "no route"}`))) : null) : null,
      cell("longest", "Longest path", `${x.longest_path} trains`, x.longest_bonus ? `: +${x.longest_bonus}` : ""),
      cell("total", "Total", h("strong", {}, x.total))))));
}
