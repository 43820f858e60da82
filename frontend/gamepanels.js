// The game page's other panels: the market (cards and the deck to draw from), the player's hand and tickets (a
// ticket's cities marked on the board while it is pointed at or focused), the final score, and resigning (after a
// question in a modal dialog). `page`: the GameView (game.js), which asks before a draw when the player wants every
// move confirmed (gameconfirm.js). On a phone the market and the hand sit in the strip at the bottom of the screen.
import { h, labelInName } from "./dom.js";
import { CARD_COLOURS, colourName } from "./colours.js";
import { ticketText } from "./words.js";
import { t, tn } from "./i18n.js";
import { cardFace, completedTickets, scoreTable } from "./panels.js";

// A card's short name as its face shows it (panels.js cardFace), for the button's name to hold it.
const shortName = (colour) => (colour === "locomotive" ? t("colour.loco") : t(`colour.short.${colour}`));

export function marketSection(page) {
  const game = page.game, v = game.view;
  const draws = game.movesOf("draw_card");
  const market = (i) => draws.find((m) => m.source === "market" && m.index === i);
  const deck = draws.find((m) => m.source === "deck");
  return h("section.market", { id: "market" }, h("h2", { tabindex: -1 }, t("game.market")),
    h("div.cards", {}, v.market.map((colour, i) => {
      const move = market(i);
      return cardFace(colour, null, { button: true, disabled: !move || game.busy, "data-market": i,
        onclick: () => move && page.act(move),
        label: labelInName(shortName(colour), t("game.take_market", { colour: colourName(colour) })) });
    }),
    h("button.card.deck", { type: "button", disabled: !deck || game.busy, "data-deck": "", "aria-label": labelInName(`${v.deck_size} ${t("game.deck")}`, tn("game.draw_deck", v.deck_size)),
      style: "background:#5a4632;color:#fff", onclick: () => deck && page.act(deck) },
    h("span.count", { style: "color:#222" }, v.deck_size), " ", h("span.label", { style: "color:#222" }, t("game.deck")))),
    h("p.muted", {}, `${tn("game.tickets_left", v.tickets_left)}; ${tn("game.discarded", v.discard_size)}.`));
}

export function handSection(page) {
  const hand = page.game.view.hand;
  return h("section.hand", { id: "hand" }, h("h2", { tabindex: -1 }, t("game.your_cards")),
    h("div.cards", {}, CARD_COLOURS.filter((c) => hand[c]).map((c) => cardFace(c, hand[c], { "data-hand": c }))),
    Object.keys(hand).length ? null : h("p.muted", {}, t("game.no_cards")));
}

export function ticketsSection(page) {
  const board = page.board, view = page.game.view;
  const done = completedTickets(view, board);
  return h("section.tickets", {}, h("h2", {}, t("game.your_tickets")),
    h("ul", {}, view.tickets.map((id) => {
      const tk = board.tickets[id];
      const show = () => board.highlight([tk.a, tk.b]);
      const hide = () => board.highlight([]);
      return h(`li${done.has(id) ? ".done" : ""}`, { tabindex: 0, "data-ticket": id,
        onmouseenter: show, onmouseleave: hide, onfocus: show, onblur: hide },
      ticketText(tk, board.cities), done.has(id) ? ` — ${t("game.done")}` : "");
    })));
}

export function finalSection(page) {
  const game = page.game;
  if (game.status !== "finished") return null;
  if (!game.score) return h("section.final", {}, h("h2", {}, t("game.game_over")), h("p.muted", {}, t("game.counting")));
  return h("section.final.card-box", { id: "final-score" }, h("h2", { tabindex: -1 }, t("game.final_score")),
    h("div.table-scroll", {}, scoreTable(game.score, page.board, game.summary)));
}

export function leaveSection(page) {
  const game = page.game;
  if (game.mySeat === null || game.status !== "active" || game.resigned) return null;
  return h("section.leave", {}, h("button.danger", { type: "button", "data-action": "resign",
    onclick: () => confirmResign(game) }, t("game.resign_button")));
}

// A modal question (the native <dialog>: focus moves into it, Escape cancels, focus returns afterwards).
function confirmResign(game) {
  const s = game.summary;
  const bot = s.fallback_bot || "greedy";
  const close = () => { dialog.close(); dialog.remove(); };
  const dialog = h("dialog.confirm", { "aria-labelledby": "resign-title", "aria-describedby": "resign-what", onclose: () => dialog.remove() },
    h("h2", { id: "resign-title" }, t("game.resign_title")),
    h("p", { id: "resign-what" }, t("game.resign_what", { bot }),
      s.ranked ? ` ${t("game.resign_ranked")}` : ""),
    h("div.dialog-buttons", {},
      h("button", { type: "button", autofocus: true, "data-action": "keep-playing", onclick: close }, t("game.keep_playing")),
      h("button.danger", { type: "button", "data-action": "confirm-resign", onclick: () => { close(); game.resign(); } }, t("game.resign"))));
  document.body.append(dialog);
  dialog.showModal();
}
