// Pieces shared by the game and replay pages: cards, a seat's swatch, the players' table (each seat's clock while
// it decides; its final total once the game is scored), completed tickets, the final score (a table on a wide
// screen, one block per player on a phone: see game.css).
import { h, s } from "./dom.js";
import { SEAT_FILL, SEAT_INK, SEAT_MARK, cardBackground, colourCount, colourName, seatColourName, seatMarkName } from "./colours.js";
import { t, tn } from "./i18n.js";
import { durationText, seatName, ticketText, timeLeftText } from "./words.js";

// A seat's colour and mark, as its trains wear them on the board.
export function seatSwatch(seat) {
  return h("span.swatch", { style: `background:${SEAT_FILL[seat]}`, title: t("panel.swatch", { colour: seatColourName(seat), mark: seatMarkName(seat) }), "data-swatch": seat },
    s("svg", { viewBox: "-6 -6 12 12", "aria-hidden": "true" }, s("path", { d: SEAT_MARK[seat], fill: SEAT_INK[seat] })));
}

// The room a card's label has (the card's width, 4.5em in cards.css, less its padding and border), in the card's
// em; the label's letters at most LARGEST and, on one line, at least SMALLEST of it.
const LABEL_ROOM = 4.0;
const LARGEST = 0.92;
const SMALLEST = 0.74;
let ruler = null;

// The label's size (in the card's em) that fits its card: measured in the label's own font on a canvas (no layout
// needed). A name too long for one line at SMALLEST ("pomarańczowy") breaks at the soft hyphens its catalogue
// entry carries (poma­rań­czowy), each piece then fitting.
function labelSize(name) {
  if (!ruler) {
    ruler = document.createElement("canvas").getContext("2d");
    ruler.font = `600 100px ${getComputedStyle(document.body).fontFamily}`;
  }
  const width = (text) => ruler.measureText(text).width / 100 + 0.16; // em, with the label's padding
  const whole = LABEL_ROOM / width(name.replaceAll("\u00ad", ""));
  if (whole >= SMALLEST) return Math.min(LARGEST, whole);
  const pieces = name.split(/[\u00ad ]/);
  const widest = Math.max(...pieces.map((piece, i) => width(i < pieces.length - 1 ? `${piece}-` : piece)));
  return Math.min(SMALLEST, LABEL_ROOM / widest);
}

// A card: its colour's pattern, its name and (in a hand) how many.
export function cardFace(colour, count, { button = false, label, onclick, disabled, ...data } = {}) {
  const fill = h("span.swatch-fill", {});
  // The card's short name, in letters as large as fit the card.
  const name = colour === "locomotive" ? t("colour.loco") : t(`colour.short.${colour}`);
  const nameTag = h("span.label", {}, name);
  nameTag.style.fontSize = `${labelSize(name).toFixed(3)}em`;
  const children = [fill, count ? h("span.count", {}, count) : null, nameTag];
  const attrs = { ...data, title: colourName(colour), "data-colour": colour };
  const el = button
    ? h("button.card", { ...attrs, type: "button", disabled, onclick, "aria-label": label }, children)
    : h("span.card", { ...attrs, "aria-label": count ? colourCount(colour, count) : colourName(colour) }, children);
  fill.style.background = cardBackground(colour); // the same mark as the board's spaces of that colour
  return el;
}

// The time left of a seat deciding now (the view's `deadline`, ticked by the page: data-deadline).
export function seatClock(deadline) {
  return h("span.seat-clock", { "data-deadline": deadline, "data-format": "short" }, timeLeftText(deadline));
}

// A column's heading in the players' table: its short word (Hungarian "Kocsik" for "Vonatkocsik"), so that the
// table fits a side column or a phone, the full word in its title and for screen readers; the short word breaks
// at the soft hyphens its catalogue entry carries (Sta-tions) when the column is narrower still.
function heading(key) {
  const full = t(`panel.${key}`);
  const short = key === "player" ? full : t(`panel.short.${key}`);
  return short.replaceAll("\u00ad", "") === full ? h("th", { scope: "col" }, short)
    : h("th", { scope: "col", "aria-label": full }, h("abbr", { title: full }, short));
}

// `score` (GET /score), once the game is scored: its totals stand in the score column, where the view's running
// score (routes only) would contradict the final score beside it.
export function playersTable(view, summary, presence, score = null) {
  const stations = view.map !== "usa"; // the USA map has no stations
  const banks = view.banks && typeof view.banks === "object" ? view.banks : null; // daily games: each seat's bank
  const totals = score ? Object.fromEntries(score.scores.map((x) => [x.seat, x.total])) : null;
  const finished = view.phase === "finished";
  const columns = ["player", totals ? "total" : "score", "trains", "cards", "tickets", stations ? "stations" : null, banks ? "bank" : null]
    .filter(Boolean);
  return h("div.table-scroll", {}, h("table.players", {},
    h("thead", {}, h("tr", {}, columns.map(heading))),
    h("tbody", {}, view.players.map((p) => {
      const seat = summary.seats[p.seat];
      const deciding = !finished && (view.deciding_seats || [view.current_seat]).includes(p.seat);
      return h(`tr${deciding ? ".current" : ""}`, { "data-seat": p.seat },
        h(`td${presence.includes(p.seat) ? ".present" : ""}`, { title: presence.includes(p.seat) ? t("panel.connected") : "" },
          seatSwatch(p.seat), h("span.seat-name", {}, seatName(seat, summary.seats)), view.your_seat === p.seat ? ` ${t("panel.you")}` : "",
          seat?.hints ? h("span.hints-used", { "data-hints": seat.hints }, ` · ${tn("panel.hints", seat.hints)}`) : null,
          deciding ? h("span.deciding", { title: t("panel.deciding") }, " ▶") : null,
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
    const tk = board.tickets[id];
    return tk && find(tk.a) === find(tk.b);
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
  const cell = (name, label, ...children) => h(`td.${name}`, { "data-label": t(`panel.${label}`) }, children);
  return h("table.score", {},
    h("thead", {}, h("tr", {}, ["place", "player", "routes", "tickets", board.hasStations ? "stations" : null, "longest", "total"]
      .filter(Boolean).map((key) => h("th", {}, t(`panel.${key}`))))),
    h("tbody", {}, rows.map((x) => h("tr", { "data-seat": x.seat },
      cell("place", "place", x.place === 1 ? t("panel.winner", { place: 1 }) : x.place),
      cell("player", "player", seatSwatch(x.seat), seatName(seats.find((seat) => seat.seat === x.seat) || x, seats)),
      cell("routes", "routes", x.route_points),
      cell("tickets", "tickets", h("ul", {}, x.tickets.map((tk) => h("li", {}, `${board.tickets[tk.ticket] ? ticketText(board.tickets[tk.ticket], board.cities) : tk.ticket}: `,
        h("strong", {}, tk.points > 0 ? `+${tk.points}` : tk.points), tk.completed ? "" : ` ${t("panel.not_completed")}`)))),
      board.hasStations ? cell("stations", "stations", tn("panel.unbuilt", x.stations_unbuilt, { points: x.station_points ?? x.stations_unbuilt * 4 }),
        x.station_routes.length ? h("ul", {}, x.station_routes.map((u) => h("li", {}, u.route
          ? t("panel.borrows", { city: city(u.city), route: route(u.route) }) : t("panel.no_route", { city: city(u.city) })))) : null) : null,
      cell("longest", "longest", tn("trains", x.longest_path), x.longest_bonus ? `: +${x.longest_bonus}` : ""),
      cell("total", "total", h("strong", {}, x.total))))));
}
