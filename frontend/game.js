// The game page: board, market, hand, tickets, players, whose turn and clock, every action by clicking or tapping
// among /legal-moves, errors with the server's rule text, an offline indicator, the event log in words, resigning,
// and the final score breakdown. A claim or a station asks first, and every move does when the player wants it
// (gameconfirm.js); a route tapped that cannot be claimed says why, with the rule (gamerefusal.js), aloud too. Skip
// links lead past the board to the move, the market and the hand. On a phone the move panel, the market and the hand
// are a strip fixed at the bottom of the screen (the dock), under the board: a turn needs no scrolling.
// This module wires the page: the game itself (the data read from the server, the socket with reconnect and resync,
// the moves posted) is a GameState (gamestate.js), which tells this page what changed through the `ui` methods
// render, renderLog, renderStatus, seatsRead and moveStarted. The parts drawn are the status bar (gamestatus.js), the
// move panel (gamemove.js), the other panels (gamepanels.js), an open game's seats (gameseats.js), the chat (chat.js)
// and hints (hints.js).
import { h, mount } from "./dom.js";
import { session, board as loadBoard } from "./api.js";
import { createBoard } from "./board.js";
import { logLines, moveText } from "./words.js";
import { t } from "./i18n.js";
import { playersTable } from "./panels.js";
import { acceptInvite, AwayNotice, Rematch } from "./byday.js";
import { GameState } from "./gamestate.js";
import { ChatPanel, chatSocket } from "./chat.js";
import { Hints } from "./hints.js";
import { StatusBar, tickClocks } from "./gamestatus.js";
import { moveSection } from "./gamemove.js";
import { asksFirst, confirmMove, dropQuestion } from "./gameconfirm.js";
import { routeRefusal } from "./gamerefusal.js";
import { finalSection, handSection, leaveSection, marketSection, ticketsSection } from "./gamepanels.js";
import { openSection } from "./gameseats.js";

export async function gamePage(page, id) {
  const invite = await acceptInvite(id); // an invitation link (?invite=) seats the person first
  if (invite.away) return; // off to sign in first
  const refused = invite.problem ? h("p.error.invite-problem", { role: "alert" }, invite.problem) : null;
  const view = new GameView(page, id);
  try {
    await view.start();
  } catch (err) {
    if (!refused) throw err;
    mount(page, h("h1", {}, t("page.game")), refused); // the invitation's refusal says more than the game's
    return;
  }
  if (refused) page.prepend(refused);
  window.ttrGame = view; // for debugging in a console (its state: ttrGame.game)
}

class GameView {
  constructor(page, id) {
    this.page = page;
    this.id = id;
    this.game = new GameState(id, this);
    this.hints = new Hints(this.game); // the strong bot's suggestion, against bots only (hints.js)
    this.selected = null; // {kind: "route"|"city", id}
    this.keep = new Set();
    this.refusal = null; // {route, text, rule}: why the route last tapped cannot be claimed
    this.asking = null; // the move a question on screen asks about (gameconfirm.js)
  }

  async start() {
    const summary = await this.game.load();
    this.map = await loadBoard(summary.map);
    this.board = createBoard(this.map);
    this.board.tickets = Object.fromEntries(this.map.tickets.map((tk) => [tk.id, tk]));
    this.layout();
    this.startChat(summary);
    requestAnimationFrame(() => this.board.fitScreen());
    await this.game.start();
    setInterval(() => tickClocks(this.root), 1000);
    this.game.listen();
  }

  get ctx() { return { seats: this.game.summary.seats, board: this.board }; }

  // The table talk beside the board (chat.js): written over the game's socket while the game is on; a finished
  // game's page opens no socket, so there the chat opens one of its own when the person first writes ("gg").
  startChat(summary) {
    const me = (session.user || "").toLowerCase();
    const seated = summary.seats.some((x) => x.username && x.username.toLowerCase() === me);
    this.chat = new ChatPanel(this.id, {
      send: summary.status === "finished" ? chatSocket(this.id, (message) => this.chat.onMessage(message))
        : (message) => this.game.sendMessage(message),
      seated, spectatorsAtTable: Boolean(summary.spectators_at_table),
    });
    this.root.append(this.chat.element);
    this.chat.load().catch((err) => console.warn("chat history", err));
  }

  // A socket message the game state does not handle itself (the chat's lines and refusals).
  onSocketMessage(message) { this.chat?.onMessage(message); }

  layout() {
    this.skips = h("nav.skip-links", { "aria-label": t("game.skip_links") });
    this.side = h("div.side");
    this.logList = h("ol.log", { "aria-label": t("game.log_label"), tabindex: "0" }); // it scrolls: the keyboard too
    this.finalWrap = h("div.final-wrap");
    this.root = h("div.game", { "data-game": this.id });
    this.status = new StatusBar(this.game, this.root);
    this.said = h("p.visually-hidden", { "aria-live": "assertive", "data-said": "" }); // a refusal, told aloud
    // The move panel, the market and the hand: first in the side column, a strip fixed at the bottom on a phone,
    // whose height the page keeps free under its last line (--dock-h), so that nothing stays hidden behind it.
    this.dock = h("div.dock");
    this.root.append(this.skips, this.status.element, this.status.news, this.said, this.finalWrap, this.board.element,
      this.status.below, this.side);
    mount(this.page, this.root);
    this.narrow = window.matchMedia("(max-width: 900px)");
    if (window.ResizeObserver) {
      const measure = () => this.measureDock();
      new ResizeObserver(measure).observe(this.dock);
      new ResizeObserver(measure).observe(this.board.element);
      window.addEventListener("resize", measure);
    }
  }

  // The dock's height, kept free under the page's last line (--dock-h); and the room under the board at the top of
  // the page (--dock-max), which the dock never exceeds (it scrolls within), so that it never covers the board.
  measureDock() {
    const style = this.root.style;
    style.setProperty("--dock-h", `${Math.ceil(this.dock.getBoundingClientRect().height)}px`);
    const boardBottom = this.board.element.getBoundingClientRect().bottom + window.scrollY;
    style.setProperty("--dock-max", `${Math.max(Math.floor(window.innerHeight - boardBottom - 4), Math.round(window.innerHeight * 0.3))}px`);
  }

  // Links past the board (shown when focused): to the move, the market, the hand, or the final score.
  renderSkips() {
    const to = (id, words) => {
      const target = this.root.querySelector(`#${id}`);
      return target ? h("a", { href: `#${id}`, onclick: (e) => {
        e.preventDefault();
        target.scrollIntoView({ block: "start" });
        (target.querySelector("h2") || target).focus();
      } }, words) : null;
    };
    mount(this.skips, to("your-move", t("game.skip_move")), to("market", t("game.skip_market")),
      to("hand", t("game.skip_hand")), to("final-score", t("game.skip_final")));
  }

  // ---- what the game state asks of the page (see gamestate.js)
  // An open game's seats read again: drawn when they changed or a seat action asked for it.
  seatsRead(same) {
    return same && this.drawn ? null : this.render();
  }

  // A move is on its way: once the server accepts it, the route or city chosen for it (unless another was
  // chosen meanwhile) and the tickets ticked are cleared.
  moveStarted() {
    const selected = this.selected;
    this.refusal = null;
    return () => {
      if (this.selected === selected) this.selected = null;
      this.keep = new Set();
    };
  }

  renderStatus() { this.status?.render(); }

  renderLog() {
    if (!this.logList) return;
    const lines = logLines(this.game.events, this.ctx).slice(-200).reverse();
    mount(this.logList, lines.map((l) => h("li", { "data-seq": l.seq }, l.text)));
  }

  // ---- actions (the panels call these)
  play(move) { return this.game.play(move); }

  // A move chosen: sent at once, or after its question is answered yes (a claim or a station always asks).
  act(move) {
    if (!asksFirst(move)) return this.play(move);
    this.asking = move;
    const question = t("game.confirm_move", { move: capitalised(moveText(move, this.ctx, this.game.view?.market)) });
    const paying = move.type === "claim_route" || move.type === "build_station";
    const single = paying && this.selected && this.paymentsFor(this.selected).length === 1;
    confirmMove(question, () => { this.asking = null; this.play(move); }, () => {
      this.asking = null;
      if (single) this.unselect(); // the route had one way to pay: Cancel leaves it
    });
    return null;
  }

  // The moves that claim the route or build on the city chosen ({kind, id}), one a way of paying.
  paymentsFor(sel) {
    return sel.kind === "route" ? this.game.movesOf("claim_route").filter((m) => m.route === sel.id)
      : this.game.movesOf("build_station").filter((m) => m.city === sel.id);
  }

  unselect() {
    this.selected = null;
    this.render();
  }

  // A route tapped or clicked that is not offered: why, in the move panel and aloud.
  refuse(routeId) {
    const why = routeRefusal(this.game, this.board, routeId);
    if (!why) return;
    this.selected = null;
    this.game.error = "";
    this.refusal = { route: routeId, ...why };
    this.render();
    const words = why.rule ? `${why.text} ${t("api.rule", { rule: why.rule, text: t(`rule.${why.rule}`) })}` : why.text;
    this.said.textContent = ""; // the same words again are told again
    requestAnimationFrame(() => { this.said.textContent = words; });
  }

  seatAction(path, body) {
    this.drawn = false;
    return this.game.seatAction(path, body);
  }

  // A route or city chosen on the board or in a list: the move panel offers the ways to pay for it; when there is
  // one way of paying, its question comes at once.
  choose(kind, id) {
    this.selected = { kind, id };
    this.game.error = "";
    this.refusal = null;
    this.render();
    if (!this.narrow.matches) this.side.querySelector(".actions")?.scrollIntoView({ block: "nearest" }); // the dock is in view
    this.side.querySelector(".actions .choices button")?.focus();
    const ways = this.paymentsFor(this.selected);
    if (ways.length === 1) this.act(ways[0]);
  }

  // ---- rendering
  // Each redraw replaces the side panel; a keyboard user's focus follows the control it was on (the same market
  // card, the same button). While that control is gone or disabled (a move on its way) the focus waits on the
  // move panel's heading, and goes back to the control once it is offered again.
  render() {
    if (this.game.seq !== undefined) this.root.dataset.seq = this.game.seq; // the seq of the state drawn: tests and tools can wait for it
    const key = focusKey(this.side);
    if (key) this.focusWanted = key;
    else if (key === null) this.focusWanted = null; // the focus is elsewhere on the page: leave it there
    this.draw();
    if (key === null) return;
    const same = this.focusWanted ? this.side.querySelector(this.focusWanted) : null;
    if (same && !same.disabled) same.focus();
    else if (!this.side.contains(document.activeElement)) this.side.querySelector(".actions h2, .open h2")?.focus();
  }

  draw() {
    this.renderStatus();
    if (!this.game.view) {
      // Open: the seats. Started a moment ago (the seats' poll saw it first): the socket's hello brings the view.
      return this.game.summary.status === "open" ? this.renderOpen() : undefined;
    }
    const v = this.game.view;
    const playing = v.phase !== "finished";
    this.keepRefusal();
    if (this.asking && !this.game.busy && !this.game.offers(this.asking)) dropQuestion(); // the game moved on
    this.drawBoard(v);
    mount(this.finalWrap, finalSection(this));
    if (this.game.status === "finished") this.rematch = this.rematch || new Rematch(this.game);
    // Who of a daily game's players is on vacation, until when (byday.js: hidden when nobody is, or to a spectator)
    if (this.game.status === "active") this.away = this.away || new AwayNotice(this.game);
    // What a move needs first: the choices, the market, the hand (the dock), then the tickets. Once the game is over
    // the market and the hands are of no more use: the final score says all.
    const seated = this.game.mySeat !== null && playing;
    mount(this.dock, moveSection(this), playing ? marketSection(this) : null, seated ? handSection(this) : null);
    this.root.classList.toggle("docked", this.dock.childElementCount > 0);
    mount(this.side,
      this.rematch ? this.rematch.render() || this.rematch.element : null,
      this.dock, seated ? ticketsSection(this) : null,
      h("section.players", {}, h("h2", {}, t("game.players")), this.away?.element,
        playersTable(v, this.game.summary, this.game.presence, playing ? null : this.game.score)),
      h("section", {}, h("h2", {}, t("game.log")), this.logList),
      leaveSection(this));
    this.renderLog();
    this.renderSkips();
    this.hints.decorate(this.board, this.side);
  }

  // The refusal shown stays true to the state drawn: told again from it, gone once the route is offered.
  keepRefusal() {
    if (!this.refusal) return;
    const route = this.refusal.route;
    const why = this.game.movesOf("claim_route").some((m) => m.route === route) ? null : routeRefusal(this.game, this.board, route);
    this.refusal = why ? { route, ...why } : null;
    if (!why) this.said.textContent = "";
  }

  // The board: owners, the routes and cities offered to claim or build on (a tap elsewhere on a route says why
  // not), the route chosen, or the tunnel being decided on.
  drawBoard(v) {
    this.board.update(v.routes, v.stations);
    const claims = this.game.movesOf("claim_route");
    const stations = this.game.movesOf("build_station");
    this.board.setActive(new Set(claims.map((m) => m.route)), (route) => this.choose("route", route),
      new Set(stations.map((m) => m.city)), (city) => this.choose("city", city), (route) => this.refuse(route));
    const tunnel = v.phase === "tunnel_payment" && v.tunnel ? v.tunnel.route : null;
    this.board.select(tunnel || (this.selected?.kind === "route" ? this.selected.id : null));
  }

  renderOpen() {
    this.drawn = true;
    this.board.update({}, {});
    mount(this.side, openSection(this));
  }
}

// "Claim …" from "claim …": a move's words (words.js) begin a question.
function capitalised(text) {
  const words = String(text);
  return words.charAt(0).toLocaleUpperCase() + words.slice(1);
}

// The control the focus is on, as a selector that finds it again after a redraw ("" for an element that has
// none, null when the focus is outside the panel).
const FOCUS_KEYS = ["data-action", "data-market", "data-deck", "data-move", "data-pay", "data-ticket", "data-add-bot", "data-sit"];

function focusKey(root) {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el)) return null;
  const attr = FOCUS_KEYS.find((a) => el.hasAttribute(a));
  return attr ? `${el.tagName.toLowerCase()}[${attr}="${CSS.escape(el.getAttribute(attr))}"]` : "";
}
