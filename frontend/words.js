// The game's events told in words ("Ann claimed Paris – Wien (4 orange)", "greedy bot drew two cards").
import { SEAT_NAME, cardsText } from "./colours.js";

export const BOT_LEVELS = ["random", "greedy", "strong"];

function ownName(seat) {
  if (seat.username) return seat.username;
  if (seat.bot) return `${seat.bot} bot`;
  return `seat ${seat.seat + 1}`;
}

// A seat's name; given the table's `seats`, a name two seats share (two greedy bots) says which seat and colour
// it is: "greedy bot (seat 2, teal)".
export function seatName(seat, seats = null) {
  if (!seat) return "?";
  const name = ownName(seat);
  const twin = seats && seats.some((other) => other && other.seat !== seat.seat && ownName(other) === name);
  return twin ? `${name} (seat ${seat.seat + 1}, ${SEAT_NAME[seat.seat]})` : name;
}

// "a red", "an orange".
export const withArticle = (word) => `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;

export function ticketText(ticket, cities) {
  return `${cities[ticket.a].name} – ${cities[ticket.b].name} (${ticket.points})`;
}

const COUNT = ["no", "one", "two", "three", "four", "five"];

// One line per event, or null for the events nobody needs to read (turn_ended, shuffles' commitments).
export function eventText(event, ctx) {
  const d = event.data || {};
  const seat = d.seat ?? event.seat;
  const who = seat === null || seat === undefined ? "" : seatName(ctx.seats[seat], ctx.seats);
  const city = (id) => ctx.board.cities[id]?.name || id;
  const route = (id) => {
    const r = ctx.board.routes[id];
    return r ? `${city(r.a)} – ${city(r.b)}` : id;
  };
  switch (event.type) {
    case "game_started": return "The game started.";
    case "cards_dealt": return `${who} was dealt ${d.cards ? cardsText(countOf(d.cards)) : "four cards"}.`;
    case "market_revealed":
      if (!d.cards) return null;
      return d.slots && d.slots.length < 5 ? `Turned up in the market: ${[].concat(d.cards).join(", ")}.`
        : `Face up in the market: ${[].concat(d.cards).join(", ")}.`;
    case "market_discarded": return "Three locomotives face up: the market was discarded and dealt again.";
    case "tickets_dealt": return `${who} drew ${d.tickets ? d.tickets.length : d.count ?? "some"} destination tickets.`;
    case "tickets_kept": return `${who} kept ${COUNT[d.kept_count] ?? d.kept_count} ticket${d.kept_count === 1 ? "" : "s"}` +
      (d.returned_count ? ` and returned ${COUNT[d.returned_count] ?? d.returned_count}.` : ".");
    case "card_drawn": return `${who} ${drawWords([d])}.`;
    case "route_claimed": {
      const r = ctx.board.routes[d.route];
      return `${who} claimed ${route(d.route)} (${r ? r.length : "?"} ${r ? r.color : ""}) with ${cardsText(d.cards)}, ${d.points} points.`;
    }
    case "tunnel_revealed":
      return `${who} tried the tunnel ${route(d.route)}: revealed ${d.revealed.join(", ") || "nothing"}, ${d.extra} more card${d.extra === 1 ? "" : "s"} to pay.`;
    case "tunnel_declined": return `${who} gave up the tunnel ${route(d.route)}.`;
    case "station_built": return `${who} built a station in ${city(d.city)} with ${cardsText(d.cards)}.`;
    case "turn_passed": return `${who} could not move and passed.`;
    case "last_round_started": return `${who} has two trains or fewer left: the last round begins.`;
    case "game_ended": return `The game is over${{ last_round: ": the last round has been played", no_moves: ": nobody could move" }[d.reason] || ""}.`;
    case "game_scored": return "The game was scored.";
    case "turn_timed_out": return `${who} ran out of time; the ${d.bot} bot played for them.`;
    case "seat_resigned": return `${who} resigned; the ${d.bot} bot plays the seat.`;
    case "seat_replaced": return `An operator gave seat ${d.seat + 1} to ${d.by.startsWith("bot:") ? `the ${d.by.slice(4)} bot` : "another player"}: ${d.reason}`;
    case "time_granted": return `An operator gave seat ${d.seat + 1} ${durationText(d.seconds)} more on the clock: ${d.reason}`;
    case "game_aborted": return `The game was aborted by an operator, unscored and unrated: ${d.reason}`;
    case "seeds_committed": return "The deck is drawn from the server's sealed seed and the players' own: checkable once the game is over.";
    case "seeds_revealed": return "The server's seed was revealed: anyone can check every shuffle (GET /verify).";
    default: return null;
  }
}

// A seat's card draws of one turn in words: "took a red from the market", "drew two cards from the deck (red, blue)",
// "took an orange from the market and drew a card from the deck".
function drawWords(draws) {
  const card = (d) => (d.card ? withArticle(d.card) : "a card");
  if (draws.length === 2 && draws.every((d) => d.source === "deck")) {
    const cards = draws.map((d) => d.card).filter(Boolean);
    return cards.length === 2 ? `drew two cards from the deck (${cards.join(", ")})` : "drew two cards from the deck";
  }
  if (draws.length === 2 && draws.every((d) => d.source === "market")) return `took ${card(draws[0])} and ${card(draws[1])} from the market`;
  return draws.map((d) => (d.source === "market" ? `took ${card(d)} from the market` : `drew ${card(d)} from the deck`)).join(" and ");
}

function countOf(cards) {
  const counts = {};
  for (const c of cards) counts[c] = (counts[c] || 0) + 1;
  return counts;
}

// A bot says why it moved in the first event of its move (`reason`, a short text); the line for the move
// carries it after the words for the move: "greedy bot claimed Berlin – Wien (4 red) … — ticket Berlin – Roma needs it."
const REASON_LENGTH = 160;

function withReasons(text, reasons) {
  const told = [...new Set(reasons)].map((r) => (r.length > REASON_LENGTH ? `${r.slice(0, REASON_LENGTH - 1)}…` : r));
  return told.length ? `${text.replace(/\.$/, "")} — ${told.join("; ")}.`.replace(/([.!?])\.$/, "$1") : text;
}

// Only the event's own `reason` key: `data.reason` is something else (why a game ended: "last_round").
function reasonOf(event) {
  const reason = event.reason;
  return typeof reason === "string" && reason.trim() ? reason.trim() : null;
}

// Lines for a list of events: a seat's two card draws of one turn read as one line ("drew two cards from the
// deck", "took a red and a blue from the market"), and the cards a draw from the market turned up in its place
// are told on that line ("…; turned up: green") rather than each on a line of its own. A line's seq is that of
// the last event it tells, so a line that grows takes a new seq.
export function logLines(events, ctx) {
  const lines = [];
  let last = null; // the line of a turn's card draws, while it may still grow
  let pending = []; // reasons given on events that make no line of their own: told on the move's next line
  const redraw = (seq) => {
    const turned = last.turned.length ? `; turned up: ${last.turned.join(", ")}` : "";
    const text = `${seatName(ctx.seats[last.seat], ctx.seats)} ${drawWords(last.draws)}${turned}.`;
    lines[lines.length - 1] = { seq, text: withReasons(text, last.reasons), reasons: last.reasons };
  };
  for (const event of events) {
    const reason = reasonOf(event);
    if (event.type === "turn_ended") {
      last = null;
      if (reason) pending.push(reason);
      continue;
    }
    const d = event.data || {};
    const seat = d.seat ?? event.seat;
    const draw = event.type === "card_drawn";
    if (last && ((draw && last.seat === seat && last.draws.length < 2) || (event.type === "market_revealed" && d.cards))) {
      last.reasons.push(...pending, ...(reason ? [reason] : []));
      pending = [];
      if (draw) last.draws.push(d);
      else last.turned.push(...[].concat(d.cards));
      redraw(event.seq);
      continue;
    }
    const text = eventText(event, ctx);
    if (reason) pending.push(reason);
    if (text) {
      lines.push({ seq: event.seq, text: withReasons(text, pending), reasons: pending });
      last = draw ? { seat, draws: [d], turned: [], reasons: pending } : null;
      pending = [];
    } else {
      last = null;
    }
  }
  return lines;
}

// ---- Playing by day: time controls, clocks, notifications, the queue.

export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
export const mapName = (map) => (map === "usa" ? "USA" : "Europe");

// A length of time in words, to the two largest units: "3 days", "1 d 4 h", "2 h 5 min", "5 min", "45 s".
export function durationText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const [d, hr, m] = [Math.floor(s / 86400), Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60)];
  if (d) return hr ? `${d} d ${hr} h` : plural(d, "day");
  if (hr) return m ? `${hr} h ${m} min` : `${hr} h`;
  if (m) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  return `${s} s`;
}

// A game's time control: "daily · 1 day/move + 3 days bank", "live · 5 min/move", "live · no clock".
export function timeControlText(game) {
  if (game.speed === "daily") {
    const bank = game.bank_days ? ` + ${plural(game.bank_days, "day")} bank` : ", no bank";
    return `daily · ${plural(game.days_per_move || 1, "day")}/move${bank}`;
  }
  return game.turn_seconds ? `live · ${durationText(game.turn_seconds)}/move` : "live · no clock";
}

// The time left until a deadline: "4:59" under an hour (it ticks by the second), else "2 d 3 h".
export function timeLeftText(deadline, now = Date.now()) {
  const left = Math.max(0, Math.round((new Date(deadline) - now) / 1000));
  if (left >= 3600) return durationText(left);
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

// When something happened, near now in words and otherwise as a date: "just now", "5 min ago", "3 h ago".
export function agoText(at, now = Date.now()) {
  const seconds = Math.round((now - new Date(at)) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 86400) return `${durationText(Math.floor(seconds / 60) * 60).replace(/ \d+ min$/, "")} ago`;
  return new Date(at).toLocaleString();
}

// The kinds of notification, as the settings page names them ("e-mail me when …").
export const NOTIFICATION_KINDS = [
  ["your_turn", "it is my move"],
  ["clock_running_out", "my clock is running out"],
  ["game_formed", "the queue has found me a table"],
  ["invitation", "someone invites me to a game"],
  ["rematch_offered", "someone offers a rematch"],
  ["game_ended", "a game of mine has ended"],
];

// A place in the queue in words: "Europe · 2 or 3 players · ranked · daily · bots after 60 s".
export function queueText(entry) {
  const counts = [...(entry.players || [])].sort((a, b) => a - b);
  const players = counts.length > 1 ? `${counts.slice(0, -1).join(", ")} or ${counts[counts.length - 1]}` : counts[0];
  return [mapName(entry.map), `${players} players`, entry.ranked ? "ranked" : "unranked", entry.speed || "live",
    entry.bots_after === null || entry.bots_after === undefined ? "no bots" : `bots after ${durationText(entry.bots_after)}`].join(" · ");
}
