// Hints (issue #24) on the game page: in an unranked game where every other seat is a bot (or a resigned player's
// stand-in), the player may ask the strong bot what to do when it is their decision (POST /games/{id}/hint). The
// suggestion is drawn as the analysis draws a better move (analysis.js: a ghost route, ringed cities, the card
// or deck marked, the tickets marked in the choice) with the bot's reason, until the player's decision is made
// or no longer offers that move. Each hint is recorded in the game's log (`hint_used`) and counted beside the
// player's name. A refusal (no_hints) hides the button and says why.
import { h } from "./dom.js";
import { post, ApiError } from "./api.js";
import { t } from "./i18n.js";
import { moveText } from "./words.js";
import { drawMove, markMarket, moveDetails, whereShown } from "./analysis.js";

export class Hints {
  constructor(game) {
    this.game = game; // a GameState
    this.hint = null; // {move, reason, seq, hints}
    this.asking = false;
    this.error = "";
    this.refused = false;
  }

  // Offered by the summary: unranked, on, the player seated and playing, every other seat a bot or a stand-in.
  get offered() {
    const game = this.game, summary = game.summary;
    if (this.refused || !summary || summary.ranked || game.status !== "active" || game.mySeat === null || game.resigned) return false;
    return summary.seats.every((seat) => seat.seat === game.mySeat || seat.bot || seat.resigned);
  }

  // The hint while it still stands: gone once the player has moved since, or the move is no longer offered.
  get current() {
    const hint = this.hint, game = this.game;
    if (!hint) return null;
    const moved = game.events.some((e) => e.seq > hint.seq && e.type !== "hint_used" && (e.data?.seat ?? e.seat) === game.mySeat);
    if (moved || game.status !== "active" || (game.moves.length && !game.offers(hint.move))) this.hint = null;
    return this.hint;
  }

  async ask(redraw) {
    this.asking = true;
    this.error = "";
    redraw();
    try {
      const answer = await post(`/games/${this.game.id}/hint`);
      this.hint = answer;
      const seat = this.game.summary.seats[this.game.mySeat];
      if (seat && typeof answer.hints === "number") seat.hints = answer.hints;
    } catch (err) {
      const code = err instanceof ApiError ? err.body.code : null;
      if (code === "no_hints") this.refused = true;
      this.error = code === "no_hints" ? t("hint.no_hints") : err instanceof ApiError ? err.text : String(err);
    } finally {
      this.asking = false;
    }
    redraw();
  }

  // The button and the hint, for the move panel (null when hints are not offered and nothing is to be said).
  section(ctx, redraw) {
    const error = this.error ? h("p.error.hint-error", { role: "alert" }, this.error) : null;
    if (!this.offered) return error;
    const hint = this.current;
    const deciding = this.game.moves.length > 0;
    const where = hint ? whereShown(hint.move, this.game.mySeat) : null;
    return h("div.hint", {},
      h("button.hint-button", { type: "button", "data-action": "hint", title: t("hint.note"),
        disabled: !deciding || this.asking || this.game.busy || Boolean(hint), onclick: () => this.ask(redraw) },
      this.asking ? t("hint.asking") : t("hint.button")),
      error,
      hint ? h("div.better-move-box.hint-box", { "data-hint": hint.move.type, role: "status" },
        h("p", {}, h("strong", {}, t("hint.move", { move: moveText(hint.move, ctx, this.game.view?.market) }))),
        hint.reason ? h("p", { lang: "en" }, hint.reason) : null,
        moveDetails(hint.move, ctx.board),
        where ? h("p.muted", {}, where) : null) : null);
  }

  // After each redraw of the page: the hint on the board, in the market and among the tickets offered.
  decorate(board, side) {
    const hint = this.current;
    drawMove(board, hint ? hint.move : null, this.game.mySeat);
    markMarket(side.querySelector("section.market"), hint?.move);
    if (hint?.move.type !== "keep_tickets") return;
    for (const id of hint.move.tickets) {
      const label = side.querySelector(`input[data-ticket="${CSS.escape(id)}"]`)?.closest("label");
      if (!label || label.classList.contains("suggested")) continue;
      label.classList.add("suggested");
      label.append(h("span.suggested-tag", {}, ` ★ ${t("hint.suggested")}`));
    }
  }
}
