// The game page's move panel ("Your move"): a tunnel's payment after the reveal, the tickets to keep, or the turn's
// choices (a route or city chosen on the board or in a list, then the cards to pay with; drawing tickets), each
// offered exactly as /legal-moves lists it; the server's refusal above them, and the Hint button (hints.js). While a
// move is on its way every control is disabled. `page`: the GameView (game.js), which plays and redraws.
import { h } from "./dom.js";
import { cardsText } from "./colours.js";
import { colourList, routeKind, ticketText } from "./words.js";
import { t, tn, tParts } from "./i18n.js";

function routeName(board, id) {
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
  const message = game.error ? h("p.error.message", { role: "alert" }, game.error) : null;
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

// The tunnel's reveal, and what it costs now: pay (one button a way of paying) or give up.
function tunnelChoices(page, moves) {
  const tun = page.game.view.tunnel || {};
  return [h("p", {}, tParts("game.tunnel", { route: routeName(page.board, tun.route), cards: cardsText(tun.cards),
    revealed: h("strong", {}, colourList(tun.revealed) || t("game.none")) }),
  " ", tn(moves.length > 1 ? "game.tunnel_pay" : "game.tunnel_cannot", tun.extra)),
  h("div.choices", {}, moves.map((m) => h("button", { type: "button", "data-move": m.type,
    onclick: () => page.play(m) }, m.type === "decline_tunnel" ? t("game.give_up_tunnel") : t("game.pay", { cards: cardsText(m.cards) }))))];
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
    h("div.choices", {}, offered.map((id) => {
      const tk = board.tickets[id];
      const box = h("input", { type: "checkbox", checked: page.keep.has(id), "data-ticket": id,
        onchange: () => { box.checked ? page.keep.add(id) : page.keep.delete(id); page.render(); } });
      return h("label.ticket-offer", { onmouseenter: () => board.highlight([tk.a, tk.b]),
        onmouseleave: () => board.highlight([]) }, box, " ", ticketText(tk, board.cities), tk.long ? ` ${t("game.long")}` : "");
    })),
    h("button.primary", { type: "button", "data-action": "keep", disabled: !allowed.has(key),
      onclick: () => page.play({ type: "keep_tickets", tickets: [...page.keep] }) }, t("game.keep", { n: page.keep.size })));
}

// A turn: with a route or city chosen, the ways to pay for it; else the routes and cities to choose from (also on
// the board) and drawing tickets. Cards are drawn from the market (gamepanels.js).
function turnChoices(page) {
  if (page.selected) return payChoices(page, page.selected);
  const game = page.game, board = page.board;
  const out = [h("p", {}, game.view.phase === "second_card" ? t("game.second_hint") : t("game.turn_hint"))];
  const routeIds = [...new Set(game.movesOf("claim_route").map((m) => m.route))]
    .sort((a, b) => routeName(board, a).localeCompare(routeName(board, b)));
  if (routeIds.length) {
    out.push(h("label", {}, `${t("game.claim_a_route")} `, h("select", { "data-action": "claim-select", onchange: (e) => e.target.value && page.choose("route", e.target.value) },
      h("option", { value: "" }, tn("game.you_can_afford", routeIds.length)),
      routeIds.map((r) => h("option", { value: r }, `${routeName(board, r)} (${routeKind(board.routes[r])})`)))));
  }
  const cityIds = [...new Set(game.movesOf("build_station").map((m) => m.city))].sort();
  if (cityIds.length) {
    out.push(h("p", {}, h("label", {}, `${t("game.build_station")} `, h("select", { "data-action": "station-select", onchange: (e) => e.target.value && page.choose("city", e.target.value) },
      h("option", { value: "" }, t("game.choose_city")),
      cityIds.map((c) => h("option", { value: c }, board.cities[c].name))))));
  }
  const drawTickets = game.movesOf("draw_tickets")[0];
  if (drawTickets) out.push(h("p", {}, h("button", { type: "button", "data-action": "draw-tickets", onclick: () => page.play(drawTickets) }, t("game.draw_tickets"))));
  return out;
}

// The route or city chosen ({kind, id}): one button a way of paying for it, and Cancel.
function payChoices(page, sel) {
  const game = page.game, board = page.board;
  const options = sel.kind === "route" ? game.movesOf("claim_route").filter((m) => m.route === sel.id)
    : game.movesOf("build_station").filter((m) => m.city === sel.id);
  const what = sel.kind === "route" ? t("game.claim", { route: routeName(board, sel.id) }) : t("game.build", { city: board.cities[sel.id].name });
  return [h("p", {}, h("strong", {}, what), `: ${t("game.pay_with")}`),
    h("div.choices", {}, options.map((m) => h("button.primary", { type: "button", "data-pay": JSON.stringify(m.cards),
      onclick: () => page.play(m) }, cardsText(m.cards))),
    h("button", { type: "button", onclick: () => { page.selected = null; page.render(); } }, t("game.cancel")))];
}
