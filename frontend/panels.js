// Pieces shared by the game and replay pages: cards, the players' table, completed tickets, the final score.
import { h } from "./dom.js";
import { SEAT_FILL, SEAT_NAME, cardBackground } from "./colours.js";
import { durationText, seatName, ticketText } from "./words.js";

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

export function playersTable(view, summary, presence) {
  const stations = view.map !== "usa"; // the USA map has no stations
  const banks = view.banks && typeof view.banks === "object" ? view.banks : null; // daily games: each seat's bank
  const titles = ["Player", "Score", "Trains", "Cards", "Tickets", stations ? "Stations" : null, banks ? "Bank" : null].filter(Boolean);
  return h("div.table-scroll", {}, h("table.players", {},
    h("thead", {}, h("tr", {}, titles.map((t) => h("th", {}, t)))),
    h("tbody", {}, view.players.map((p) => {
      const seat = summary.seats[p.seat];
      const current = view.current_seat === p.seat && view.phase !== "finished";
      return h(`tr${current ? ".current" : ""}`, { "data-seat": p.seat },
        h(`td${presence.includes(p.seat) ? ".present" : ""}`, { title: presence.includes(p.seat) ? "connected" : "" },
          h("span.swatch", { style: `background:${SEAT_FILL[p.seat]}`, title: SEAT_NAME[p.seat] }),
          `${p.seat + 1}. ${seatName(seat)}`, view.your_seat === p.seat ? " (you)" : "", current ? " ▶" : ""),
        h("td", {}, p.score), h("td", {}, p.trains), h("td", {}, p.cards), h("td", {}, p.tickets),
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

export function scoreTable(score, board) {
  const city = (id) => board.cities[id]?.name || id;
  const route = (id) => {
    const r = board.routes[id];
    return r ? `${city(r.a)} – ${city(r.b)}` : id;
  };
  const rows = [...score.scores].sort((a, b) => a.place - b.place || a.seat - b.seat);
  return h("table.score", {},
    h("thead", {}, h("tr", {}, ["Place", "Player", "Routes", "Tickets", board.hasStations ? "Stations" : null, "Longest path", "Total"]
      .filter(Boolean).map((t) => h("th", {}, t)))),
    h("tbody", {}, rows.map((s) => h("tr", { "data-seat": s.seat },
      h("td", {}, s.place === 1 ? "1 (winner)" : s.place),
      h("td", {}, h("span.swatch", { style: `background:${SEAT_FILL[s.seat]}` }), seatName({ ...s })),
      h("td", {}, s.route_points),
      h("td", {}, h("ul", {}, s.tickets.map((t) => h("li", {}, `${board.tickets[t.ticket] ? ticketText(board.tickets[t.ticket], board.cities) : t.ticket}: `,
        h("strong", {}, t.points > 0 ? `+${t.points}` : t.points), t.completed ? "" : " (not completed)")))),
      board.hasStations ? h("td", {}, `${s.stations_unbuilt} unbuilt: +${s.station_points ?? s.stations_unbuilt * 4}`,
        s.station_routes.length ? h("ul", {}, s.station_routes.map((u) => h("li", {},
          `${city(u.city)} borrows ${u.route ? route(u.route) : "no route"}`))) : null) : null,
      h("td", {}, `${s.longest_path} trains`, s.longest_bonus ? `: +${s.longest_bonus}` : ""),
      h("td", {}, h("strong", {}, s.total))))));
}
