// The game's events told in words ("Ann claimed Paris – Wien (4 orange)", "greedy bot drew two cards"), in the
// reader's language (the log.* entries of the catalogue). City names are the board's own, never translated.
import { aCard, colourName, seatColourName } from "./colours.js";
import { counted, joined, language, t, tn } from "./i18n.js";

export const BOT_LEVELS = ["random", "greedy", "strong"];

// A bot by its level, in the reader's language ("greedy bot", "Chamtivý bot"): the catalogue's user.bot chooses
// the name by the level the server sends ("random", "greedy", "strong"), and keeps a level it does not know.
export const botName = (level) => t("user.bot", { level });

function ownName(seat) {
  if (seat.username) return seat.username;
  if (seat.bot) return botName(seat.bot);
  return t("log.seat", { n: seat.seat + 1 });
}

// A seat's name; given the table's `seats`, a name two seats share (two greedy bots) says which seat and colour
// it is: "greedy bot (seat 2, teal)".
export function seatName(seat, seats = null) {
  if (!seat) return "?";
  const name = ownName(seat);
  const twin = seats && seats.some((other) => other && other.seat !== seat.seat && ownName(other) === name);
  return twin ? t("log.twin", { name, n: seat.seat + 1, colour: seatColourName(seat.seat) }) : name;
}

export function ticketText(ticket, cities) {
  return `${cities[ticket.a].name} – ${cities[ticket.b].name} (${ticket.points})`;
}

// A small count as the language writes it in a sentence ("two" in English), for a plural entry: the entry's form
// is chosen by the number, its {count} filled with the word.
function smallCount(n) {
  const word = t("log.small_numbers").split("|")[n];
  return { valueOf: () => n, toString: () => word || String(n) };
}
const tc = (key, n, params) => t(key, { ...params, count: smallCount(n) });

// A list of names or colours joined the language's way: "red, blue", "ann and bob".
export const listText = (items) => (items.length > 1
  ? t("log.and", { a: items.slice(0, -1).join(", "), b: items[items.length - 1] }) : items.join(""));

export const colourList = (cards) => [].concat(cards || []).map(colourName).join(", ");

// "3 red + 1 locomotive" from {red: 3, locomotive: 1} or [["red", 3], ...], as a value a message may put in the
// case its sentence needs: "za {cards:acc}" reads "za 1 fialovou + 2 lokomotivy" in Czech.
export function cardsWords(cards) {
  const pairs = (Array.isArray(cards) ? cards : Object.entries(cards || {})).filter(([, n]) => n > 0);
  return pairs.length ? joined(pairs.map(([colour, n]) => counted(`colour.count.${colour}`, n)), " + ") : t("colour.nothing");
}

// "4 red": a route's length and colour.
export const routeKind = (r) => t("log.route_kind", { length: r.length, colour: colourName(r.color) });

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
    case "game_started": return t("log.game_started");
    case "cards_dealt": return d.cards ? t("log.cards_dealt", { who, cards: cardsWords(countOf(d.cards)) }) : tc("log.cards_dealt_hidden", 4, { who });
    case "market_revealed":
      if (!d.cards) return null;
      return t(d.slots && d.slots.length < 5 ? "log.market_turned" : "log.market_face_up", { cards: colourList(d.cards) });
    case "market_discarded": return t("log.market_discarded");
    case "tickets_dealt": {
      const n = d.tickets ? d.tickets.length : d.count;
      return typeof n === "number" ? tn("log.tickets_drawn", n, { who }) : t("log.tickets_drawn_some", { who });
    }
    case "tickets_kept": return tc("log.tickets_kept", d.kept_count, { who }) + (d.returned_count ? tc("log.tickets_returned", d.returned_count) : ".");
    case "card_drawn": return t("log.draw_line", { who, what: drawWords([d]) });
    case "route_claimed": {
      const r = ctx.board.routes[d.route];
      return tn("log.claimed", d.points, { who, route: route(d.route), kind: r ? routeKind(r) : "?", cards: cardsWords(d.cards) });
    }
    case "tunnel_revealed":
      return tn("log.tunnel_revealed", d.extra, { who, route: route(d.route), cards: colourList(d.revealed) || t("colour.nothing") });
    case "tunnel_declined": return t("log.tunnel_declined", { who, route: route(d.route) });
    case "station_built": return t("log.station_built", { who, city: city(d.city), cards: cardsWords(d.cards) });
    case "turn_passed": return t("log.passed", { who });
    case "last_round_started": return t("log.last_round", { who });
    case "game_ended": return t({ last_round: "log.game_over_last_round", no_moves: "log.game_over_no_moves" }[d.reason] || "log.game_over");
    case "game_scored": return t("log.scored");
    case "turn_timed_out": return t("log.timed_out", { who, bot: d.bot });
    case "seat_resigned": return t("log.resigned", { who, bot: d.bot });
    case "seat_replaced": return d.by.startsWith("bot:") ? t("log.replaced_bot", { n: d.seat + 1, bot: d.by.slice(4), reason: d.reason })
      : t("log.replaced_player", { n: d.seat + 1, reason: d.reason });
    case "time_granted": return t("log.time_granted", { n: d.seat + 1, time: durationText(d.seconds), reason: d.reason });
    case "hint_used": return t("log.hint_used", { who });
    case "game_aborted": return t("log.aborted", { reason: d.reason });
    case "seeds_committed": return t("log.seeds_committed");
    case "seeds_revealed": return t("log.seeds_revealed");
    default: return null;
  }
}

// A move (as /legal-moves, a hint and the analysis give it) in words, as the object of "Played:", "Better:",
// "Hint:": "claim Berlin – Wien (4 red) with 3 red + 1 locomotive", "take a red from the market". `market` (the
// face-up cards then) names the card a draw from the market takes; without it, its place is named.
export function moveText(move, ctx, market = null) {
  const city = (id) => ctx.board.cities[id]?.name || id;
  switch (move?.type) {
    case "claim_route": {
      const r = ctx.board.routes[move.route];
      return t("move.claim", { route: r ? `${city(r.a)} – ${city(r.b)}` : move.route, kind: r ? routeKind(r) : "?", cards: cardsWords(move.cards) });
    }
    case "build_station": return t("move.station", { city: city(move.city), cards: cardsWords(move.cards) });
    case "draw_card":
      if (move.source === "deck") return t("move.deck");
      return market?.[move.index] ? t("move.market", { card: aCard(market[move.index]) }) : t("move.market_slot", { n: move.index + 1 });
    case "draw_tickets": return t("move.draw_tickets");
    case "keep_tickets": return t("move.keep", { tickets: listText((move.tickets || []).map((id) =>
      (ctx.board.tickets?.[id] ? ticketText(ctx.board.tickets[id], ctx.board.cities) : id))) });
    case "pay_tunnel": return t("move.pay_tunnel", { cards: cardsWords(move.cards) });
    case "decline_tunnel": return t("move.decline_tunnel");
    default: return move?.type || "?";
  }
}

// The face-up cards as they lay after event `seq`, from the log (market_revealed fills slots, a card taken from
// the market empties its slot, market_discarded all five): [colour|null] by slot.
export function marketAt(events, seq) {
  const market = [null, null, null, null, null];
  for (const event of events) {
    if (event.seq > seq) break;
    const d = event.data || {};
    if (event.type === "market_revealed" && d.cards) d.slots.forEach((slot, i) => { market[slot] = d.cards[i]; });
    else if (event.type === "market_discarded") market.fill(null);
    else if (event.type === "card_drawn" && d.source === "market" && d.index !== null && d.index !== undefined) market[d.index] = null;
  }
  return market;
}

// A seat's card draws of one turn in words: "took a red from the market", "drew two cards from the deck (red, blue)",
// "took an orange from the market and drew a card from the deck".
function drawWords(draws) {
  if (draws.length === 2 && draws.every((d) => d.source === "deck")) {
    const cards = draws.map((d) => d.card).filter(Boolean);
    return cards.length === 2 ? t("log.two_from_deck_seen", { cards: colourList(cards) }) : t("log.two_from_deck");
  }
  if (draws.length === 2 && draws.every((d) => d.source === "market")) return t("log.two_from_market", { a: aCard(draws[0].card), b: aCard(draws[1].card) });
  const said = draws.map((d) => t(d.source === "market" ? "log.from_market" : "log.from_deck", { card: aCard(d.card) }));
  return said.length === 2 ? t("log.and", { a: said[0], b: said[1] }) : said.join("");
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
    const turned = last.turned.length ? t("log.turned_up", { cards: colourList(last.turned) }) : "";
    const text = t("log.draw_line", { who: seatName(ctx.seats[last.seat], ctx.seats), what: drawWords(last.draws) + turned });
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

// ---- Playing by day: time controls, clocks, the queue.

export const mapName = (map) => t(map === "usa" ? "map.usa" : "map.europe");

// A length of time in words, to the two largest units: "3 days", "1 d 4 h", "2 h 5 min", "5 min", "45 s".
export function durationText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const [d, h, m] = [Math.floor(s / 86400), Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60)];
  if (d) return h ? t("log.dur.dh", { d, h }) : tn("log.dur.days", d);
  if (h) return m ? t("log.dur.hm", { h, m }) : t("log.dur.h", { h });
  if (m) return s % 60 ? t("log.dur.ms", { m, s: s % 60 }) : t("log.dur.m", { m });
  return t("log.dur.s", { s });
}

// A game's time control: "daily · 1 day/move + 3 days bank", "live · 5 min/move", "live · no clock".
export function timeControlText(game) {
  if (game.speed === "daily") {
    const per = tn("log.dur.days", game.days_per_move || 1);
    return game.bank_days ? t("log.tc.daily_bank", { per, bank: tn("log.dur.days", game.bank_days) }) : t("log.tc.daily_no_bank", { per });
  }
  return game.turn_seconds ? t("log.tc.live", { per: durationText(game.turn_seconds) }) : t("log.tc.live_no_clock");
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
  if (seconds < 60) return t("log.just_now");
  if (seconds < 86400) {
    const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60);
    return t("log.ago", { time: h ? t("log.dur.h", { h }) : t("log.dur.m", { m }) });
  }
  return new Date(at).toLocaleString(language());
}

// A place in the queue in words: "Europe · 2 or 3 players · ranked · daily · bots after 60 s".
export function queueText(entry) {
  const counts = [...(entry.players || [])].sort((a, b) => a - b);
  const players = counts.length > 1 ? t("lobby.or", { a: counts.slice(0, -1).join(", "), b: counts[counts.length - 1] }) : counts[0];
  return [mapName(entry.map), t("lobby.q_players", { list: players }), t(entry.ranked ? "lobby.ranked" : "lobby.unranked"),
    t(`lobby.speed.${entry.speed || "live"}`),
    entry.bots_after === null || entry.bots_after === undefined ? t("lobby.no_bots") : t("lobby.bots_after", { time: durationText(entry.bots_after) })].join(" · ");
}
