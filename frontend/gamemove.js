// The game page's move panel ("Your move"): a tunnel's payment after the reveal (the three cards turned up drawn as
// cards), the tickets to keep, or the turn's choices (a route or city chosen on the board or in a list, then the
// cards to pay with; drawing tickets), each offered exactly as /legal-moves lists it; the server's refusal, or why
// a route tapped cannot be claimed (gamerefusal.js), above them, and the Hint button (hints.js). While a move is on
// its way every control is disabled. `page`: the GameView (game.js), which asks before a move (gameconfirm.js),
// plays it and redraws. On a phone the panel sits in the strip at the bottom of the screen, over the market and the
// hand (game.css).
import { h } from "./dom.js";
import { cardsWords, colourList, routeKind, ticketText } from "./words.js";
import { t, tn } from "./i18n.js";
import { cardFace } from "./panels.js";

export function routeName(board, id) {
  const r = board.routes[id];
  return r ? `${board.cities[r.a].name} – ${board.cities[r.b].name}` : id;
}

export function moveSection(page) {
  const game = page.game, v = game.view;
  if (game.mySeat === null || v.phase === "finished") return null;
  if (game.resigned) {
    return h("section.actions", { "aria-label": t("game.your_move"), "aria-busy": "false" }, h("h2", { tabindex: -1 }, t("game.you_resigned")),
      h("p", {}, t("game.resigned_note", { bot: game.summary.fallback_bot || "greedy" })));
  }
  const message = game.error ? h("p.error.message", { role: "alert" }, game.error) : refusalNote(page.refusal);
  const tunnel = game.movesOf("pay_tunnel").concat(game.movesOf("decline_tunnel"));
  const keep = game.movesOf("keep_tickets");
  let parts;
  if (!game.moves.length) {
    parts = h("p.muted", {}, v.deciding_seats.includes(game.mySeat) ? t("game.waiting_server") : t("game.not_your_move"));
  } else if (tunnel.length) {
    parts = tunnelChoices(page, tunnel);
  } else if (keep.length) {
    parts = keepTickets(page, keep);
  } else {
    parts = turnChoices(page);
  }
  const section = h("section.actions", { id: "your-move", "aria-label": t("game.your_move"), "aria-busy": String(game.busy) },
    h("h2", { tabindex: -1 }, t("game.your_move")), message, page.hints.section(page.ctx, () => page.render()), parts);
  if (game.busy) for (const control of section.querySelectorAll("button, select, input")) control.disabled = true;
  return section;
}

// Why the route tapped cannot be claimed, and the rule's words (told aloud by the page's live region: game.js).
function refusalNote(refusal) {
  if (!refusal) return null;
  return h("div.refusal", { "data-refused": refusal.route, "data-rule": refusal.rule || "" },
    h("p", {}, h("strong", {}, refusal.text)),
    refusal.rule ? h("p.rule-text", {}, t("api.rule", { rule: refusal.rule, text: t(`rule.${refusal.rule}`) })) : null);
}

// The tunnel's reveal (the three cards as cards, the tunnel marked on the board: game.js), and what it costs now:
// pay (one button a way of paying) or give up.
function tunnelChoices(page, moves) {
  const tun = page.game.view.tunnel || {};
  const revealed = tun.revealed || [];
  return [h("p", {}, t("game.tunnel", { route: routeName(page.board, tun.route), cards: cardsWords(tun.cards),
    revealed: colourList(revealed) || t("game.none") })),
  revealed.length ? h("div.cards.revealed", { "data-revealed": revealed.join(" ") }, revealed.map((c) => cardFace(c, null))) : null,
  h("p", {}, tn(moves.length > 1 ? "game.tunnel_pay" : "game.tunnel_cannot", tun.extra)),
  h("div.choices", {}, moves.map((m) => h("button", { type: "button", "data-move": m.type,
    onclick: () => page.act(m) }, m.type === "decline_tunnel" ? t("game.give_up_tunnel") : t("game.pay", { cards: cardsWords(m.cards) }))))];
}

// The tickets offered, ticked to keep (a ticket's cities marked on the board while pointed at); Keep is enabled
// for the sets the server allows.
function keepTickets(page, moves) {
  const board = page.board;
  const offered = page.game.view.offered_tickets;
  const allowed = new Set(moves.map((m) => [...m.tickets].sort().join("|")));
  const key = [...page.keep].sort().join("|");
  const minimum = Math.min(...moves.map((m) => m.tickets.length));
  return h("div", {}, h("p", {}, t("game.keep_intro", { min: minimum })),
    h("div.choices.ticket-choices", {}, offered.map((id) => {
      const tk = board.tickets[id];
      const box = h("input", { type: "checkbox", checked: page.keep.has(id), "data-ticket": id,
        onchange: () => { box.checked ? page.keep.add(id) : page.keep.delete(id); page.render(); } });
      return h("label.ticket-offer", { onmouseenter: () => board.highlight([tk.a, tk.b]),
        onmouseleave: () => board.highlight([]) }, box, " ", ticketText(tk, board.cities), tk.long ? ` ${t("game.long")}` : "");
    })),
    h("button.primary", { type: "button", "data-action": "keep", disabled: !allowed.has(key),
      onclick: () => page.act({ type: "keep_tickets", tickets: [...page.keep] }) }, t("game.keep", { n: page.keep.size })));
}

// A turn: with a route or city chosen, the ways to pay for it; else the routes and cities to choose from (also on
// the board) and drawing tickets. Cards are drawn from the market (gamepanels.js).
function turnChoices(page) {
  if (page.selected) return payChoices(page, page.selected);
  const game = page.game, board = page.board;
  const out = [h("p.turn-hint", {}, game.view.phase === "second_card" ? t("game.second_hint") : t("game.turn_hint"))];
  const routeIds = [...new Set(game.movesOf("claim_route").map((m) => m.route))]
    .sort((a, b) => routeName(board, a).localeCompare(routeName(board, b)));
  const row = [];
  if (routeIds.length) {
    row.push(h("label", {}, h("span.choice-label", {}, `${t("game.claim_a_route")} `), h("select", { "aria-label": t("game.claim_a_route"), "data-action": "claim-select", onchange: (e) => e.target.value && page.choose("route", e.target.value) },
      h("option", { value: "" }, tn("game.you_can_afford", routeIds.length)),
      routeIds.map((r) => h("option", { value: r }, `${routeName(board, r)} (${routeKind(board.routes[r])})`)))));
  }
  const cityIds = [...new Set(game.movesOf("build_station").map((m) => m.city))].sort();
  if (cityIds.length) {
    row.push(h("label", {}, h("span.choice-label", {}, `${t("game.build_station")} `), h("select", { "aria-label": t("game.build_station"), "data-action": "station-select", onchange: (e) => e.target.value && page.choose("city", e.target.value) },
      h("option", { value: "" }, t("game.choose_city")),
      cityIds.map((c) => h("option", { value: c }, board.cities[c].name)))));
  }
  const drawTickets = game.movesOf("draw_tickets")[0];
  if (drawTickets) row.push(h("button", { type: "button", "data-action": "draw-tickets", onclick: () => page.act(drawTickets) }, t("game.draw_tickets")));
  if (row.length) out.push(h("div.turn-row", {}, row));
  return out;
}

// The route or city chosen ({kind, id}): one button a way of paying for it (each asks before it pays), and Cancel.
function payChoices(page, sel) {
  const board = page.board;
  const options = page.paymentsFor(sel);
  const what = sel.kind === "route" ? t("game.claim", { route: routeName(board, sel.id) }) : t("game.build", { city: board.cities[sel.id].name });
  return [h("p", {}, h("strong", {}, what), sel.kind === "route" ? ` (${routeKind(board.routes[sel.id])})` : "", `: ${t("game.pay_with")}`),
    h("div.choices", {}, options.map((m) => h("button.primary", { type: "button", "data-pay": JSON.stringify(m.cards),
      onclick: () => page.act(m) }, cardsWords(m.cards))),
    h("button", { type: "button", "data-action": "cancel-choice", onclick: () => page.unselect() }, t("game.cancel")))];
}
