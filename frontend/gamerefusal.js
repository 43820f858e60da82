// Why a route the player tapped or clicked cannot be claimed now, in the player's words, with the rule that says so
// (docs/RULES.md's IDs, explained by the catalogue's rule.<ID>): the route taken, the double-route rules, not the
// player's turn, a draw or a choice to finish first, too few trains, or the cards it takes against the cards held
// ("Claiming Berlin – Wien takes 4 red or locomotives: you hold 2 red + 1 locomotive").
//
// The page offers exactly the moves /legal-moves lists; this only explains the absence of one, from what the page
// already holds (the view of /state and the map), and is asked only about a route that is not offered.
import { listText, seatName } from "./words.js";
import { counted, joined, t } from "./i18n.js";

const SMALL_GAME = 3; // C-DBL-2: with 2 or 3 players only one route of a double pair is used

// The other route between the same two cities, if any.
function twinOf(board, route) {
  return Object.values(board.routes).find((r) => r.id !== route.id
    && ((r.a === route.a && r.b === route.b) || (r.a === route.b && r.b === route.a))) || null;
}

// {text, rule} for `routeId`, or null when nothing is to be said (a spectator's tap, a game over, a move on its way).
export function routeRefusal(game, board, routeId) {
  const v = game.view, route = board.routes[routeId];
  if (!v || !route || v.phase === "finished" || game.busy) return null;
  const me = v.your_seat;
  const seats = game.summary.seats;
  const name = (seat) => seatName(seats[seat], seats);
  const cities = { a: board.cities[route.a].name, b: board.cities[route.b].name };
  const words = { route: `${cities.a} – ${cities.b}`, ...cities };
  if (me === null || me === undefined) return { text: t("refuse.watching"), rule: null };
  if (game.resigned) return null;
  const owner = v.routes[routeId];
  if (owner !== undefined) {
    return { text: owner === me ? t("refuse.claimed_mine", words) : t("refuse.claimed", { ...words, name: name(owner) }), rule: "C-CLM-1" };
  }
  const twin = twinOf(board, route);
  const twinOwner = twin ? v.routes[twin.id] : undefined;
  if (twinOwner === me) return { text: t("refuse.double_mine", words), rule: "C-DBL-1" };
  if (twinOwner !== undefined && v.players.length <= SMALL_GAME) {
    return { text: t("refuse.double_closed", { ...words, name: name(twinOwner) }), rule: "C-DBL-2" };
  }
  const notNow = t("refuse.not_offered", words);
  const turn = turnRefusal(game, v, me, name);
  if (turn) return { ...turn, text: `${notNow} ${turn.text}` }; // a reason that does not name the route
  return trainsRefusal(v, me, route, words) || cardsRefusal(v, route, words) || { text: notNow, rule: null };
}

// Not the player's decision, or a decision other than a turn's first action.
function turnRefusal(game, v, me, name) {
  const deciding = v.deciding_seats || [v.current_seat];
  if (!deciding.includes(me)) {
    return { text: t("refuse.not_your_turn", { names: listText(deciding.map(name)) || t("game.nobody") }), rule: "C-TRN-1" };
  }
  switch (v.phase) {
    case "setup_tickets": return { text: t("refuse.tickets_first"), rule: v.map === "usa" ? "U-SET-1" : "E-SET-2" };
    case "keep_tickets": return { text: t("refuse.tickets_first"), rule: "C-TKT-1" };
    case "second_card": return { text: t("refuse.second_card"), rule: "C-DRW-1" };
    case "tunnel_payment": return { text: t("refuse.tunnel_first"), rule: "E-TUN-3" };
    default: return game.moves.length ? null : { text: t("game.waiting_server"), rule: null };
  }
}

function trainsRefusal(v, me, route, words) {
  const left = v.players[me]?.trains ?? 0;
  return left < route.length ? { text: t("refuse.trains", { ...words, need: route.length, left }), rule: "C-CLM-1" } : null;
}

// The cards the route takes against the hand: its colour (or any one colour for a gray route), a ferry's locomotives.
function cardsRefusal(v, route, words) {
  const hand = v.hand || {};
  const locos = hand.locomotive || 0;
  const ferry = route.ferry_locomotives || 0;
  if (ferry && locos < ferry) {
    return { text: t("refuse.ferry", { ...words, need: ferry, held: heldWords([["locomotive", locos]]) }), rule: "E-FER-1" };
  }
  if (route.color !== "gray") {
    const have = hand[route.color] || 0;
    if (have + locos >= route.length) return null;
    const needed = counted(`colour.count.${route.color}`, route.length);
    return { text: t("refuse.cards_colour", { ...words, needed, held: heldWords([[route.color, have], ["locomotive", locos]]) }), rule: "C-CLM-1" };
  }
  const [best, most] = Object.entries(hand).filter(([c]) => c !== "locomotive").reduce((a, b) => (b[1] > a[1] ? b : a), [null, 0]);
  if (most + locos >= route.length) return null;
  const held = heldWords([[best, most], ["locomotive", locos]]);
  return { text: t("refuse.cards_gray", { ...words, need: route.length, held }), rule: ferry ? "E-FER-1" : "C-CLM-1" };
}

// "2 red + 1 locomotive", as a value a message puts in its case; none held: "0 red" (the first kind asked about).
function heldWords(pairs) {
  const some = pairs.filter(([colour, n]) => colour && n > 0);
  const shown = some.length ? some : pairs.filter(([colour]) => colour).slice(0, 1);
  return shown.length ? joined(shown.map(([colour, n]) => counted(`colour.count.${colour}`, n)), " + ") : counted("colour.count.locomotive", 0);
}
