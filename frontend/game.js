// The game page: board, market, hand, tickets, players, whose turn and clock, every action by clicking among
// /legal-moves, errors with the server's rule text, an offline indicator, the event log in words, resigning, and
// the final score breakdown. Whose turn it is reads at a glance: a banner at the top of the page (it stays in view
// while the page scrolls), the tab's title ("● Your turn — Ticket to Ride") and a short chime, which the player
// may turn off (remembered in localStorage). Skip links lead past the board to the move, the market and the hand;
// on a phone the hand and tickets come right under the board. This module draws; the game itself (the data read
// from the server, the socket with reconnect and resync, the moves posted) is a GameState (gamestate.js), which
// tells this page what changed through the `ui` methods render, renderLog, renderStatus, seatsRead and moveStarted.
import { h, mount } from "./dom.js";
import { session, board as loadBoard } from "./api.js";
import { createBoard } from "./board.js";
import { CARD_COLOURS, cardsText, colourName } from "./colours.js";
import { BOT_LEVELS, colourList, listText, logLines, mapName, routeKind, seatName, ticketText, timeControlText, timeLeftText } from "./words.js";
import { t, tn, tParts } from "./i18n.js";
import { scoreTable, playersTable, cardFace, completedTickets, seatSwatch } from "./panels.js";
import { acceptInvite, InvitePanel, Rematch } from "./byday.js";
import { GameState } from "./gamestate.js";
import { ChatPanel, chatSocket } from "./chat.js";
import { Hints } from "./hints.js";

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
    setInterval(() => this.tick(), 1000);
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
    this.statusBar = h("div.status-bar");
    this.turnNews = h("p.visually-hidden", { "aria-live": "polite" }); // whose move, told once per change
    this.side = h("div.side");
    this.logList = h("ol.log", { "aria-label": t("game.log_label") });
    this.finalWrap = h("div.final-wrap");
    this.root = h("div.game", { "data-game": this.id }, this.skips, this.statusBar, this.turnNews, this.finalWrap, this.board.element, this.side);
    mount(this.page, this.root);
    // A phone puts the hand and tickets right under the board (and in that order for the Tab key too).
    this.narrow = window.matchMedia("(max-width: 900px)");
    this.narrow.addEventListener?.("change", () => this.game.view && this.render());
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
    return () => {
      if (this.selected === selected) this.selected = null;
      this.keep = new Set();
    };
  }

  // ---- actions
  play(move) { return this.game.play(move); }

  seatAction(path, body) {
    this.drawn = false;
    return this.game.seatAction(path, body);
  }

  // A modal question (the native <dialog>: focus moves into it, Escape cancels, focus returns afterwards).
  confirmResign() {
    const s = this.game.summary;
    const bot = s.fallback_bot || "greedy";
    const close = () => { dialog.close(); dialog.remove(); };
    const dialog = h("dialog.confirm", { "aria-labelledby": "resign-title", "aria-describedby": "resign-what", onclose: () => dialog.remove() },
      h("h2", { id: "resign-title" }, t("game.resign_title")),
      h("p", { id: "resign-what" }, t("game.resign_what", { bot }),
        s.ranked ? ` ${t("game.resign_ranked")}` : ""),
      h("div.dialog-buttons", {},
        h("button", { type: "button", autofocus: true, "data-action": "keep-playing", onclick: close }, t("game.keep_playing")),
        h("button.danger", { type: "button", "data-action": "confirm-resign", onclick: () => { close(); this.game.resign(); } }, t("game.resign"))));
    document.body.append(dialog);
    dialog.showModal();
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
    this.board.update(v.routes, v.stations);
    const claims = this.game.movesOf("claim_route");
    const stations = this.game.movesOf("build_station");
    this.board.setActive(new Set(claims.map((m) => m.route)), (route) => this.choose("route", route),
      new Set(stations.map((m) => m.city)), (city) => this.choose("city", city));
    this.board.select(this.selected?.kind === "route" ? this.selected.id : null);
    mount(this.finalWrap, this.finalSection());
    if (this.game.status === "finished") this.rematch = this.rematch || new Rematch(this.game);
    // What a move needs first: the choices, the market, the hand (on a phone: the hand and tickets first, right
    // under the board). Once the game is over the market and the hands are of no more use: the final score says all.
    const seated = this.game.mySeat !== null && playing;
    const hand = seated ? [this.handSection(), this.ticketsSection()] : [];
    const move = [this.actionsSection(), playing ? this.marketSection() : null];
    mount(this.side,
      this.rematch ? this.rematch.render() || this.rematch.element : null,
      this.narrow.matches ? [hand, move] : [move, hand],
      h("section.players", {}, h("h2", {}, t("game.players")),
        playersTable(v, this.game.summary, this.game.presence, playing ? null : this.game.score)),
      h("section", {}, h("h2", {}, t("game.log")), this.logList),
      this.leaveSection());
    this.renderLog();
    this.renderSkips();
    this.hints.decorate(this.board, this.side);
  }

  leaveSection() {
    if (this.game.mySeat === null || this.game.status !== "active" || this.game.resigned) return null;
    return h("section.leave", {}, h("button.danger", { type: "button", "data-action": "resign",
      onclick: () => this.confirmResign() }, t("game.resign_button")));
  }

  // The banner (whose move, what to do, the clock) over a line of smaller facts; the tab's title and the chime.
  renderStatus() {
    if (!this.statusBar) return;
    const v = this.game.view;
    const seats = this.game.summary.seats;
    const deciding = v ? (v.deciding_seats || [v.current_seat]).filter((x) => x !== null && x !== undefined) : [];
    const mine = Boolean(v && v.phase !== "finished" && deciding.includes(this.game.mySeat));
    const others = listText(deciding.filter((x) => x !== this.game.mySeat).map((x) => seatName(seats[x], seats)));
    const phase = v ? v.phase : this.game.summary.status;
    const clock = v && v.deadline && v.phase !== "finished" ? h("span.clock", { "data-deadline": v.deadline }, clockText(v.deadline)) : null;
    let banner = null;
    if (v && v.phase === "finished") {
      banner = h("div.turn-banner.over", {}, h("span", {}, h("strong.game-over", {}, t("game.game_over")), this.winnersText()));
    } else if (mine) {
      banner = h("div.turn-banner.mine", { "data-turn": this.game.mySeat }, // told aloud once by turnNews, not each redraw
        h("span", {}, h("strong.turn-now", {}, t("game.your_move_now")), `: ${MINE[phase] ? t(`game.mine.${MINE[phase]}`) : phaseText(phase)}`), clock);
    } else if (v) {
      banner = h("div.turn-banner", { "data-turn": deciding[0] ?? "" },
        h("span", {}, others ? t("game.to_play", { names: others }) : t("game.waiting"), ` (${phaseText(phase)})`), clock);
    }
    mount(this.statusBar, banner,
      h("div.status-meta", {},
        h("strong", {}, mapName(this.game.summary.map)),
        h("span.time-control", {}, timeControlText(this.game.summary), this.game.summary.private ? ` · ${t("game.private")}` : ""),
        this.game.closed ? null : h(`span.conn${this.game.online ? "" : ".offline"}`, { "data-online": String(this.game.online), role: "status" },
          this.game.online ? t("game.live") : t("game.offline")),
        v && v.last_round && v.phase !== "finished" ? h("span.error", {}, t("game.last_round")) : null,
        this.game.mySeat === null && v ? h("span.muted", {}, t("game.watching")) : null,
        this.game.status === "finished" ? h("a", { href: `/games/${this.id}/replay` }, t("lobby.replay")) : null,
        this.game.mySeat !== null && v && v.phase !== "finished" ? this.soundToggle() : null));
    const news = !v ? "" : v.phase === "finished" ? t("game.news_over") : mine ? t("game.news_mine") : t("game.news_others", { names: others || t("game.nobody") });
    if (this.turnNews.textContent !== news) this.turnNews.textContent = news;
    this.turnTold(v ? mine : undefined);
  }

  winnersText() {
    const score = this.game.score;
    if (!score) return null;
    const seats = this.game.summary.seats;
    const first = score.scores.filter((x) => x.place === 1).map((x) => seatName(seats[x.seat] || x, seats));
    return `: ${t(first.length > 1 ? "game.wins_many" : "game.wins_one", { names: listText(first) })}`;
  }

  // The tab's title says when it is your turn; the chime sounds when the turn comes (not for the page's first look).
  turnTold(mine) {
    if (!document.title.startsWith("● ")) this.baseTitle = document.title;
    const title = mine ? t("game.title_turn") : this.baseTitle;
    if (document.title !== title) document.title = title;
    if (mine && this.wasMine === false && soundOn()) this.root.dataset.chimes = String(Number(this.root.dataset.chimes || 0) + chime());
    if (mine !== undefined) this.wasMine = mine;
  }

  soundToggle() {
    const on = soundOn();
    return h("button.sound-toggle", { type: "button", "aria-pressed": String(on), "data-action": "sound",
      title: on ? t("game.chime_on") : t("game.chime_off"),
      onclick: () => {
        localStorage.setItem(SOUND_KEY, on ? "off" : "on");
        if (!on) chime(); // a sample, on the press that turned it on
        this.renderStatus();
        this.statusBar.querySelector(".sound-toggle")?.focus();
      } }, on ? t("game.sound_on") : t("game.sound_off"));
  }

  tick() {
    for (const clock of this.root.querySelectorAll("[data-deadline]")) {
      clock.textContent = clock.dataset.format === "short" ? timeLeftText(clock.dataset.deadline) : clockText(clock.dataset.deadline);
    }
  }

  renderLog() {
    if (!this.logList) return;
    const lines = logLines(this.game.events, this.ctx).slice(-200).reverse();
    mount(this.logList, lines.map((l) => h("li", { "data-seq": l.seq }, l.text)));
  }

  renderOpen() {
    const s = this.game.summary;
    const mine = (session.user || "").toLowerCase() === (s.created_by || "").toLowerCase();
    const seated = s.seats.some((x) => x.username && x.username.toLowerCase() === (session.user || "").toLowerCase());
    this.drawn = true;
    this.botLevel = this.botLevel || "greedy";
    const level = h("select", { "aria-label": t("game.bot_level"), onchange: () => { this.botLevel = level.value; } },
      BOT_LEVELS.map((l) => h("option", { value: l, selected: l === this.botLevel }, l)));
    this.board.update({}, {});
    mount(this.side,
      h("section.open", {}, h("h2", { tabindex: -1 }, t("game.waiting_start")),
        this.game.error ? h("p.error", { role: "alert" }, this.game.error) : null,
        h("p", {}, t("game.open_facts", { name: s.created_by, facts: [tn("game.seats", s.players), t(s.ranked ? "lobby.ranked" : "lobby.unranked"),
          timeControlText(s), s.private ? t("game.private") : null].filter(Boolean).join(", ") })),
        h("ul", {}, s.seats.map((seat) => h("li", { "data-seat": seat.seat },
          seatSwatch(seat.seat), `${t("game.seat", { n: seat.seat + 1 })} `,
          seat.username || seat.bot ? seatName(seat) : h("span.muted", {}, t("game.empty")), " ",
          !seat.username && !seat.bot && mine ? h("button", { type: "button", "data-add-bot": seat.seat,
            onclick: () => this.seatAction("bots", { seat: seat.seat, level: level.value }) }, t("game.add_bot")) : null,
          !seat.username && !seat.bot && !seated && session.user && !s.private ? h("button", { type: "button", "data-sit": seat.seat,
            onclick: () => this.seatAction("join", { seat: seat.seat }) }, t("game.sit")) : null))),
        mine && s.invite && s.seats.some((x) => !x.username && !x.bot)
          ? (this.invites = this.invites || new InvitePanel(this.id)).update(s.invite) : null,
        mine ? h("p", {}, h("label", {}, `${t("game.bot_level")} `, level)) : null,
        mine ? h("p", {}, h("button.primary", { type: "button", "data-action": "start",
          onclick: () => this.seatAction("start", { fill_with_bots: level.value }) }, t("game.start"))) : null,
        !session.user && !s.private ? h("p", {}, tParts("game.sign_in_to_join", { signin: h("a", { href: `/signin?next=/games/${this.id}` }, t("nav.sign_in")) })) : null,
        s.private && !seated ? h("p.muted", {}, t("game.private_note")) : null));
  }

  choose(kind, id) {
    this.selected = { kind, id };
    this.game.error = "";
    this.render();
    this.side.querySelector(".actions")?.scrollIntoView({ block: "nearest" });
    this.side.querySelector(".actions .choices button")?.focus();
  }

  actionsSection() {
    const v = this.game.view;
    if (this.game.mySeat === null || v.phase === "finished") return null;
    if (this.game.resigned) {
      return h("section.actions", { "aria-label": t("game.your_move"), "aria-busy": "false" }, h("h2", { tabindex: -1 }, t("game.you_resigned")),
        h("p", {}, t("game.resigned_note", { bot: this.game.summary.fallback_bot || "greedy" })));
    }
    const parts = [];
    const message = this.game.error ? h("p.error.message", { role: "alert" }, this.game.error) : null;
    const tunnel = this.game.movesOf("pay_tunnel").concat(this.game.movesOf("decline_tunnel"));
    const keep = this.game.movesOf("keep_tickets");
    if (!this.game.moves.length) {
      parts.push(h("p.muted", {}, v.deciding_seats.includes(this.game.mySeat) ? t("game.waiting_server") : t("game.not_your_move")));
    } else if (tunnel.length) {
      const tun = v.tunnel || {};
      parts.push(h("p", {}, tParts("game.tunnel", { route: routeName(this.board, tun.route), cards: cardsText(tun.cards),
        revealed: h("strong", {}, colourList(tun.revealed) || t("game.none")) }),
      " ", tn(tunnel.length > 1 ? "game.tunnel_pay" : "game.tunnel_cannot", tun.extra)),
      h("div.choices", {}, tunnel.map((m) => h("button", { type: "button", "data-move": m.type,
        onclick: () => this.play(m) }, m.type === "decline_tunnel" ? t("game.give_up_tunnel") : t("game.pay", { cards: cardsText(m.cards) })))));
    } else if (keep.length) {
      parts.push(this.keepTickets(keep));
    } else {
      parts.push(this.turnChoices());
    }
    const section = h("section.actions", { id: "your-move", "aria-label": t("game.your_move"), "aria-busy": String(this.game.busy) },
      h("h2", { tabindex: -1 }, t("game.your_move")), message, this.hints.section(this.ctx, () => this.render()), parts);
    if (this.game.busy) for (const control of section.querySelectorAll("button, select, input")) control.disabled = true;
    return section;
  }

  keepTickets(moves) {
    const offered = this.game.view.offered_tickets;
    const allowed = new Set(moves.map((m) => [...m.tickets].sort().join("|")));
    const key = [...this.keep].sort().join("|");
    const minimum = Math.min(...moves.map((m) => m.tickets.length));
    return h("div", {}, h("p", {}, t("game.keep_intro", { min: minimum })),
      h("div.choices", {}, offered.map((id) => {
        const tk = this.board.tickets[id];
        const box = h("input", { type: "checkbox", checked: this.keep.has(id), "data-ticket": id,
          onchange: () => { box.checked ? this.keep.add(id) : this.keep.delete(id); this.render(); } });
        return h("label.ticket-offer", { onmouseenter: () => this.board.highlight([tk.a, tk.b]),
          onmouseleave: () => this.board.highlight([]) }, box, " ", ticketText(tk, this.board.cities), tk.long ? ` ${t("game.long")}` : "");
      })),
      h("button.primary", { type: "button", "data-action": "keep", disabled: !allowed.has(key),
        onclick: () => this.play({ type: "keep_tickets", tickets: [...this.keep] }) }, t("game.keep", { n: this.keep.size })));
  }

  turnChoices() {
    const out = [];
    const sel = this.selected;
    const claims = this.game.movesOf("claim_route");
    const stations = this.game.movesOf("build_station");
    if (sel) {
      const options = sel.kind === "route" ? claims.filter((m) => m.route === sel.id) : stations.filter((m) => m.city === sel.id);
      const what = sel.kind === "route" ? t("game.claim", { route: routeName(this.board, sel.id) }) : t("game.build", { city: this.board.cities[sel.id].name });
      out.push(h("p", {}, h("strong", {}, what), `: ${t("game.pay_with")}`),
        h("div.choices", {}, options.map((m) => h("button.primary", { type: "button", "data-pay": JSON.stringify(m.cards),
          onclick: () => this.play(m) }, cardsText(m.cards))),
        h("button", { type: "button", onclick: () => { this.selected = null; this.render(); } }, t("game.cancel"))));
      return out;
    }
    const drawTickets = this.game.movesOf("draw_tickets")[0];
    const second = this.game.view.phase === "second_card";
    out.push(h("p", {}, second ? t("game.second_hint") : t("game.turn_hint")));
    const routeIds = [...new Set(claims.map((m) => m.route))].sort((a, b) => routeName(this.board, a).localeCompare(routeName(this.board, b)));
    if (routeIds.length) {
      out.push(h("label", {}, `${t("game.claim_a_route")} `, h("select", { "data-action": "claim-select", onchange: (e) => e.target.value && this.choose("route", e.target.value) },
        h("option", { value: "" }, tn("game.you_can_afford", routeIds.length)),
        routeIds.map((r) => h("option", { value: r }, `${routeName(this.board, r)} (${routeKind(this.board.routes[r])})`)))));
    }
    const cityIds = [...new Set(stations.map((m) => m.city))].sort();
    if (cityIds.length) {
      out.push(h("p", {}, h("label", {}, `${t("game.build_station")} `, h("select", { "data-action": "station-select", onchange: (e) => e.target.value && this.choose("city", e.target.value) },
        h("option", { value: "" }, t("game.choose_city")),
        cityIds.map((c) => h("option", { value: c }, this.board.cities[c].name))))));
    }
    if (drawTickets) out.push(h("p", {}, h("button", { type: "button", "data-action": "draw-tickets", onclick: () => this.play(drawTickets) }, t("game.draw_tickets"))));
    return out;
  }

  marketSection() {
    const v = this.game.view;
    const draws = this.game.movesOf("draw_card");
    const market = (i) => draws.find((m) => m.source === "market" && m.index === i);
    const deck = draws.find((m) => m.source === "deck");
    return h("section.market", { id: "market" }, h("h2", { tabindex: -1 }, t("game.market")),
      h("div.cards", {}, v.market.map((colour, i) => {
        const move = market(i);
        return cardFace(colour, null, { button: true, disabled: !move || this.game.busy, "data-market": i,
          onclick: () => move && this.play(move), label: t("game.take_market", { colour: colourName(colour) }) });
      }),
      h("button.card.deck", { type: "button", disabled: !deck || this.game.busy, "data-deck": "", "aria-label": tn("game.draw_deck", v.deck_size),
        style: "background:#5a4632;color:#fff", onclick: () => deck && this.play(deck) },
      h("span.count", { style: "color:#222" }, v.deck_size), h("span.label", { style: "color:#222" }, t("game.deck")))),
      h("p.muted", {}, `${tn("game.tickets_left", v.tickets_left)}; ${tn("game.discarded", v.discard_size)}.`));
  }

  handSection() {
    const hand = this.game.view.hand;
    return h("section.hand", { id: "hand" }, h("h2", { tabindex: -1 }, t("game.your_cards")),
      h("div.cards", {}, CARD_COLOURS.filter((c) => hand[c]).map((c) => cardFace(c, hand[c], { "data-hand": c }))),
      Object.keys(hand).length ? null : h("p.muted", {}, t("game.no_cards")));
  }

  ticketsSection() {
    const done = completedTickets(this.game.view, this.board);
    return h("section.tickets", {}, h("h2", {}, t("game.your_tickets")),
      h("ul", {}, this.game.view.tickets.map((id) => {
        const tk = this.board.tickets[id];
        const show = () => this.board.highlight([tk.a, tk.b]);
        const hide = () => this.board.highlight([]);
        return h(`li${done.has(id) ? ".done" : ""}`, { tabindex: 0, "data-ticket": id,
          onmouseenter: show, onmouseleave: hide, onfocus: show, onblur: hide },
        ticketText(tk, this.board.cities), done.has(id) ? ` — ${t("game.done")}` : "");
      })));
  }

  finalSection() {
    if (this.game.status !== "finished") return null;
    if (!this.game.score) return h("section.final", {}, h("h2", {}, t("game.game_over")), h("p.muted", {}, t("game.counting")));
    return h("section.final.card-box", { id: "final-score" }, h("h2", { tabindex: -1 }, t("game.final_score")),
      h("div.table-scroll", {}, scoreTable(this.game.score, this.board, this.game.summary)));
  }
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

function routeName(board, id) {
  const r = board.routes[id];
  return r ? `${board.cities[r.a].name} – ${board.cities[r.b].name}` : id;
}

const PHASES = ["setup_tickets", "turn", "second_card", "tunnel_payment", "keep_tickets", "finished", "open"];
function phaseText(phase) {
  return PHASES.includes(phase) ? t(`game.phase.${phase}`) : phase;
}

function clockText(deadline) {
  return t("game.clock", { time: timeLeftText(deadline) });
}

// What the banner asks of the player, by the phase of the game.
const MINE = { setup_tickets: "tickets", keep_tickets: "tickets", turn: "turn", second_card: "second_card", tunnel_payment: "tunnel_payment" };

// The chime when the turn comes: two short notes made with WebAudio (no sound file), unless turned off.
const SOUND_KEY = "ttr.turnSound";
const soundOn = () => localStorage.getItem(SOUND_KEY) !== "off";
let audio = null;

// Answers 1 when it sounded, 0 when it could not: a browser plays nothing before the person has pressed
// something on the page (and would say so in the console), so it is not even tried until then.
function chime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context || navigator.userActivation?.hasBeenActive === false) return 0;
  try {
    audio = audio || new Context();
    audio.resume?.();
    const start = audio.currentTime + 0.02;
    [[659.3, 0], [987.8, 0.13]].forEach(([frequency, at]) => {
      const tone = audio.createOscillator(), gain = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(0.18, start + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + 0.32);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + at);
      tone.stop(start + at + 0.35);
    });
    return 1;
  } catch {
    return 0;
  }
}
