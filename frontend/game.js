// The game page: board, market, hand, tickets, players, whose turn and clock, every action by clicking among
// /legal-moves, errors with the server's rule text, live updates over the WebSocket (reconnect + resync),
// an offline indicator, the event log in words, resigning, and the final score breakdown.
//
// What it costs the server: while the game is open, the seats are read every 1.5 s (a join appends no event,
// so the socket says nothing of it), and only while the page is visible; once the game has started, nothing is
// polled: each event pushed on the socket leads to one read of /state and /legal-moves. A finished game is read
// once and opens no socket.
import { h, mount } from "./dom.js";
import { get, post, session, ApiError, board as loadBoard } from "./api.js";
import { createBoard } from "./board.js";
import { CARD_COLOURS, FILL, SEAT_FILL, SEAT_NAME, cardsText } from "./colours.js";
import { BOT_LEVELS, logLines, seatName, ticketText, timeControlText, timeLeftText } from "./words.js";
import { scoreTable, playersTable, cardFace, completedTickets } from "./panels.js";
import { acceptInvite, InvitePanel, Rematch } from "./byday.js";

export async function gamePage(page, id) {
  const invite = await acceptInvite(id); // an invitation link (?invite=) seats the person first
  if (invite.away) return; // off to sign in first
  const refused = invite.problem ? h("p.error.invite-problem", { role: "alert" }, invite.problem) : null;
  const game = new Game(page, id);
  try {
    await game.start();
  } catch (err) {
    if (!refused) throw err;
    mount(page, h("h1", {}, "Game"), refused); // the invitation's refusal says more than the game's
    return;
  }
  if (refused) page.prepend(refused);
  window.ttrGame = game; // for debugging in a console
}

class Game {
  constructor(page, id) {
    this.page = page;
    this.id = id;
    this.events = [];
    this.moves = [];
    this.presence = [];
    this.selected = null; // {kind: "route"|"city", id}
    this.keep = new Set();
    this.message = "";
    this.error = "";
    this.online = false;
    this.busy = false;
    this.score = null;
    this.refreshes = 0;
    this.socket = null;
    this.closed = false; // true once nothing more can happen (finished and scored) or the game is gone
    this.summaryStale = false;
  }

  async start() {
    this.summary = await get(`/games/${this.id}`);
    this.map = await loadBoard(this.summary.map);
    this.board = createBoard(this.map);
    this.board.tickets = Object.fromEntries(this.map.tickets.map((t) => [t.id, t]));
    this.layout();
    requestAnimationFrame(() => this.board.fitScreen());
    await this.refresh();
    if (this.summary.status !== "open") await this.loadEvents();
    if (this.status === "finished") this.closed = true; // a finished game's page is read once: no socket, no poll
    else this.connect();
    this.pollSeats();
    setInterval(() => this.tick(), 1000);
    window.addEventListener("offline", () => this.socket?.close());
    window.addEventListener("online", () => this.reconnectNow());
    window.addEventListener("ttr:session", () => this.restartSocket()); // signed out: watch as anyone
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) return;
      this.reconnectNow();
      if (this.summary.status === "open") this.refresh().catch(() => {});
    });
  }

  // Seats taken append no event while a game is open, so the socket says nothing of them: read the seats every
  // 1.5 s while the page is visible, and stop for good once the game has started.
  pollSeats() {
    clearTimeout(this.seatTimer);
    if (this.summary.status !== "open") return;
    this.seatTimer = setTimeout(async () => {
      if (!document.hidden) await this.refresh().catch(() => {});
      this.pollSeats();
    }, 1500);
  }

  get ctx() { return { seats: this.summary.seats, board: this.board }; }
  get mySeat() { return this.view ? this.view.your_seat : null; }

  layout() {
    this.statusBar = h("div.status-bar");
    this.turnNews = h("p.visually-hidden", { "aria-live": "polite" }); // whose move, told once per change
    this.side = h("div.side");
    this.logList = h("ol.log", { "aria-label": "What happened" });
    this.finalWrap = h("div.final-wrap");
    this.root = h("div.game", { "data-game": this.id }, this.statusBar, this.turnNews, this.finalWrap, this.board.element, this.side);
    mount(this.page, this.root);
  }

  // ---- data
  async refresh() {
    // The summary (seats) changes while the game is open, and afterwards only when a seat is handed to a bot.
    if (this.summary.status === "open" || this.summaryStale) {
      this.summaryStale = false;
      const before = JSON.stringify(this.summary);
      this.summary = await get(`/games/${this.id}`);
      if (this.summary.status === "open") return JSON.stringify(this.summary) === before && this.drawn ? null : this.render();
      if (before.includes('"status":"open"')) await this.loadEvents(); // it has just started
    }
    const ticket = ++this.refreshes;
    const [state, moves] = await Promise.all([
      get(`/games/${this.id}/state`),
      session.token ? get(`/games/${this.id}/legal-moves`).catch(() => ({ seq: -1, moves: [] })) : { seq: -1, moves: [] },
    ]);
    // Only the latest read is drawn: an older one answering late would offer moves the game has gone past.
    if (ticket !== this.refreshes || state.seq < this.seq) return;
    this.seq = state.seq;
    this.root.dataset.seq = state.seq; // the seq of the state drawn: tests and tools can wait for it
    this.view = state.view;
    this.status = state.status;
    this.moves = moves.seq === state.seq ? moves.moves : [];
    if (moves.seq !== state.seq && moves.seq !== -1) this.scheduleRefresh(); // a move landed between the two reads
    if (this.status === "finished" && !this.score) this.loadScore();
    this.render();
  }

  scheduleRefresh(delay = 120) {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.refresh().catch((e) => this.fail(e)), delay);
  }

  get lastSeq() { return this.events.length ? this.events[this.events.length - 1].seq : 0; }

  async loadEvents() {
    const answer = await get(`/games/${this.id}/events?after=${this.lastSeq}`);
    this.addEvents(answer.events);
  }

  // The log holds every event from seq 1 with no gap: events that do not follow the last one held (a push that
  // overtook the first read of the log, or one missed while offline) are not kept; what is missing is asked for.
  addEvents(events) {
    const fresh = events.filter((e) => e.seq > this.lastSeq);
    if (!fresh.length) return;
    if (fresh[0].seq !== this.lastSeq + 1) {
      this.resync();
      return;
    }
    this.events.push(...fresh);
    if (fresh.some((e) => e.type === "seat_resigned" || e.type === "turn_timed_out")) this.summaryStale = true;
    this.renderLog();
  }

  async loadScore() {
    try {
      this.score = await get(`/games/${this.id}/score`);
      // The whole log again: game_scored, which a page opened unscored has not heard of, and the bots' reasons,
      // which name their tickets and so are read by the other seats only once the game is over.
      const all = await get(`/games/${this.id}/events?after=0`).catch(() => null);
      if (all) {
        this.events = all.events;
        this.renderLog();
      }
      this.closed = true; // nothing more can happen in this game
      this.socket?.close();
      this.render();
    } catch (err) {
      if (err instanceof ApiError && err.body.code === "not_scored") setTimeout(() => this.loadScore(), 700);
    }
  }

  // ---- live updates
  connect() {
    if (this.closed) return;
    clearTimeout(this.reconnectTimer);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const token = session.token ? `?token=${encodeURIComponent(session.token)}` : "";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/games/${this.id}/${token}`);
    this.socket = socket;
    socket.onopen = () => { this.retry = 0; };
    socket.onmessage = (message) => this.onMessage(JSON.parse(message.data));
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setOnline(false);
      if (this.closed) return;
      if (event.code === CLOSE_NOT_FOUND) {
        this.closed = true;
        return this.fail(new Error("This game is gone from the server."));
      }
      if (event.code === CLOSE_UNAUTHORISED) session.expire(); // the next socket watches as anyone
      this.retry = Math.min((this.retry || 0) + 1, 5);
      const delay = event.code === CLOSE_UNAUTHORISED ? 0 : 250 * 2 ** this.retry + Math.random() * 250;
      this.reconnectTimer = setTimeout(() => this.connect(), delay);
    };
  }

  // Back online, or the tab shown again: try now rather than at the end of the back-off.
  reconnectNow() {
    if (this.closed || this.socket) return;
    this.retry = 0;
    this.connect();
  }

  restartSocket() {
    const old = this.socket;
    this.socket = null;
    old?.close();
    if (!this.closed) this.connect();
    this.refresh().catch((e) => this.fail(e));
  }

  onMessage(message) {
    switch (message.type) {
      case "hello":
        this.setOnline(true);
        this.presence = message.presence || [];
        if (this.summary.status !== "open" || message.seq > 0) this.loadEvents().catch(() => {});
        this.scheduleRefresh(0);
        break;
      case "events":
        this.addEvents(message.events);
        this.scheduleRefresh();
        break;
      case "presence":
        this.presence = message.seats;
        this.render();
        break;
      default:
        break;
    }
  }

  resync() {
    const after = this.events.length ? this.events[this.events.length - 1].seq : 0;
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: "resync", after }));
    else this.loadEvents().catch(() => {});
  }

  setOnline(online) {
    if (this.online === online) return;
    this.online = online;
    this.renderStatus();
  }

  // ---- moves
  async play(move, again = false) {
    if (this.busy) return;
    this.busy = true;
    this.error = "";
    this.render(); // every action button disabled until the answer is in
    const selected = this.selected;
    let stale = false;
    try {
      await post(`/games/${this.id}/moves`, { expected_seq: this.seq, move });
      window.dispatchEvent(new Event("ttr:moved")); // the inbox's "your turn in N games" may change
      if (this.selected === selected) this.selected = null;
      this.keep = new Set();
    } catch (err) {
      stale = err instanceof ApiError && err.body.code === "stale_seq";
      if (stale) this.error = "The game moved on meanwhile: look again.";
      else this.error = err instanceof ApiError ? err.text : String(err);
    } finally {
      this.busy = false;
    }
    await this.refresh().catch((e) => this.fail(e));
    // Another seat's move landed first (while tickets are chosen at the start, every seat decides at once).
    // When the same move is still offered and still means the same thing, send it again at the new seq rather
    // than asking the player to click again; a card from the market is never re-sent (the market may differ).
    if (stale && !again && !(move.type === "draw_card" && move.source === "market") && this.offers(move)) {
      this.error = "";
      await this.play(move, true);
    }
  }

  offers(move) {
    const key = canonical(move);
    return this.moves.some((m) => canonical(m) === key);
  }
  async seatAction(path, body) {
    this.error = "";
    this.drawn = false;
    try { await post(`/games/${this.id}/${path}`, body); }
    catch (err) { this.error = err instanceof ApiError ? err.text : String(err); }
    await this.refresh();
  }

  async resign() {
    this.error = "";
    try {
      await post(`/games/${this.id}/resign`);
      this.summaryStale = true;
    } catch (err) {
      this.error = err instanceof ApiError ? err.text : String(err);
    }
    await this.refresh().catch((e) => this.fail(e));
  }

  // A modal question (the native <dialog>: focus moves into it, Escape cancels, focus returns afterwards).
  confirmResign() {
    const s = this.summary;
    const bot = s.fallback_bot || "greedy";
    const close = () => { dialog.close(); dialog.remove(); };
    const dialog = h("dialog.confirm", { "aria-labelledby": "resign-title", "aria-describedby": "resign-what", onclose: () => dialog.remove() },
      h("h2", { id: "resign-title" }, "Resign this game?"),
      h("p", { id: "resign-what" }, `The ${bot} bot plays your seat from now on, and you cannot take it back.`,
        s.ranked ? " This game is ranked: you are rated last." : ""),
      h("div.dialog-buttons", {},
        h("button", { type: "button", autofocus: true, "data-action": "keep-playing", onclick: close }, "Keep playing"),
        h("button.danger", { type: "button", "data-action": "confirm-resign", onclick: () => { close(); this.resign(); } }, "Resign")));
    document.body.append(dialog);
    dialog.showModal();
  }

  fail(err) {
    this.error = err instanceof ApiError ? err.text : err.message || String(err);
    this.render();
  }

  movesOf(type) { return this.moves.filter((m) => m.type === type); }

  // ---- rendering
  // Each redraw replaces the side panel; a keyboard user's focus follows the control it was on (the same market
  // card, the same button). While that control is gone or disabled (a move on its way) the focus waits on the
  // move panel's heading, and goes back to the control once it is offered again.
  render() {
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
    if (!this.view) {
      // Open: the seats. Started a moment ago (the seats' poll saw it first): the socket's hello brings the view.
      return this.summary.status === "open" ? this.renderOpen() : undefined;
    }
    const v = this.view;
    this.board.update(v.routes, v.stations);
    const claims = this.movesOf("claim_route");
    const stations = this.movesOf("build_station");
    this.board.setActive(new Set(claims.map((m) => m.route)), (route) => this.choose("route", route),
      new Set(stations.map((m) => m.city)), (city) => this.choose("city", city));
    this.board.select(this.selected?.kind === "route" ? this.selected.id : null);
    mount(this.finalWrap, this.finalSection());
    if (this.status === "finished") this.rematch = this.rematch || new Rematch(this);
    mount(this.side,
      this.rematch ? this.rematch.render() || this.rematch.element : null,
      // What a move needs first (on a phone, right under the board): the choices, the market, the hand.
      this.actionsSection(),
      this.marketSection(),
      this.mySeat !== null ? this.handSection() : null,
      this.mySeat !== null ? this.ticketsSection() : null,
      h("section.players", {}, h("h2", {}, "Players"), playersTable(v, this.summary, this.presence)),
      h("section", {}, h("h2", {}, "Log"), this.logList),
      this.leaveSection());
    this.renderLog();
  }

  get resigned() { return Boolean(this.mySeat !== null && this.summary.seats[this.mySeat]?.resigned); }

  leaveSection() {
    if (this.mySeat === null || this.status !== "active" || this.resigned) return null;
    return h("section.leave", {}, h("button.danger", { type: "button", "data-action": "resign",
      onclick: () => this.confirmResign() }, "Resign…"));
  }

  renderStatus() {
    if (!this.statusBar) return;
    const v = this.view;
    const seat = v ? this.summary.seats[v.current_seat] : null;
    const mine = v && v.deciding_seats?.includes(this.mySeat);
    const phase = v ? v.phase : this.summary.status;
    mount(this.statusBar,
      h("strong", {}, `${this.summary.map === "usa" ? "USA" : "Europe"}`),
      h("span.time-control", {}, timeControlText(this.summary), this.summary.private ? " · private" : ""),
      this.closed ? null : h(`span.conn${this.online ? "" : ".offline"}`, { "data-online": String(this.online), role: "status" },
        this.online ? "live" : "offline: reconnecting…"),
      v && v.phase !== "finished" ? h(`span${mine ? ".turn-now" : ""}`, { "data-turn": v.current_seat },
        mine ? "Your move" : `${seatName(seat)} to play`, ` (${phaseText(phase)})`) : null,
      v && v.last_round && v.phase !== "finished" ? h("span.error", {}, "Last round") : null,
      v && v.phase === "finished" ? h("strong.game-over", {}, "Game over") : null,
      v && v.deadline ? h("span.clock", { "data-deadline": v.deadline }, clockText(v.deadline)) : null,
      this.mySeat === null && v ? h("span.muted", {}, "Watching") : null,
      this.status === "finished" ? h("a", { href: `/games/${this.id}/replay` }, "Replay") : null);
    const news = !v ? "" : v.phase === "finished" ? "Game over." : mine ? "Your move." : `${seatName(seat)} to play.`;
    if (this.turnNews.textContent !== news) this.turnNews.textContent = news;
  }

  tick() {
    const clock = this.statusBar.querySelector(".clock");
    if (clock) clock.textContent = clockText(clock.dataset.deadline);
  }

  renderLog() {
    if (!this.logList) return;
    const lines = logLines(this.events, this.ctx).slice(-200).reverse();
    mount(this.logList, lines.map((l) => h("li", { "data-seq": l.seq }, l.text)));
  }

  renderOpen() {
    const s = this.summary;
    const mine = (session.user || "").toLowerCase() === (s.created_by || "").toLowerCase();
    const seated = s.seats.some((x) => x.username && x.username.toLowerCase() === (session.user || "").toLowerCase());
    this.drawn = true;
    this.botLevel = this.botLevel || "greedy";
    const level = h("select", { "aria-label": "Bot level", onchange: () => { this.botLevel = level.value; } },
      BOT_LEVELS.map((l) => h("option", { value: l, selected: l === this.botLevel }, l)));
    this.board.update({}, {});
    mount(this.side,
      h("section.open", {}, h("h2", { tabindex: -1 }, "Waiting to start"),
        this.error ? h("p.error", { role: "alert" }, this.error) : null,
        h("p", {}, `${s.players} seats, ${s.ranked ? "ranked" : "unranked"}, ${timeControlText(s)}${s.private ? ", private" : ""}, created by ${s.created_by}.`),
        h("ul", {}, s.seats.map((seat) => h("li", { "data-seat": seat.seat },
          h("span.swatch", { style: `background:${SEAT_FILL[seat.seat]}` }), `Seat ${seat.seat + 1}: `,
          seat.username || seat.bot ? seatName(seat) : h("span.muted", {}, "empty"), " ",
          !seat.username && !seat.bot && mine ? h("button", { type: "button", "data-add-bot": seat.seat,
            onclick: () => this.seatAction("bots", { seat: seat.seat, level: level.value }) }, "Add bot") : null,
          !seat.username && !seat.bot && !seated && session.user && !s.private ? h("button", { type: "button", "data-sit": seat.seat,
            onclick: () => this.seatAction("join", { seat: seat.seat }) }, "Sit here") : null))),
        mine && s.invite && s.seats.some((x) => !x.username && !x.bot)
          ? (this.invites = this.invites || new InvitePanel(this.id)).update(s.invite) : null,
        mine ? h("p", {}, h("label", {}, "Bot level ", level)) : null,
        mine ? h("p", {}, h("button.primary", { type: "button", "data-action": "start",
          onclick: () => this.seatAction("start", { fill_with_bots: level.value }) }, "Start (empty seats get bots)")) : null,
        !session.user && !s.private ? h("p", {}, h("a", { href: `/signin?next=/games/${this.id}` }, "Sign in"), " to join.") : null,
        s.private && !seated ? h("p.muted", {}, "A private game: its seats are taken with an invitation link from its creator.") : null));
  }

  choose(kind, id) {
    this.selected = { kind, id };
    this.error = "";
    this.render();
    this.side.querySelector(".actions")?.scrollIntoView({ block: "nearest" });
    this.side.querySelector(".actions .choices button")?.focus();
  }

  actionsSection() {
    const v = this.view;
    if (this.mySeat === null || v.phase === "finished") return null;
    if (this.resigned) {
      return h("section.actions", { "aria-label": "Your move", "aria-busy": "false" }, h("h2", { tabindex: -1 }, "You resigned"),
        h("p", {}, `The ${this.summary.fallback_bot || "greedy"} bot plays your seat; you may keep watching.`));
    }
    const parts = [];
    const message = this.error ? h("p.error.message", { role: "alert" }, this.error) : null;
    const tunnel = this.movesOf("pay_tunnel").concat(this.movesOf("decline_tunnel"));
    const keep = this.movesOf("keep_tickets");
    if (!this.moves.length) {
      parts.push(h("p.muted", {}, v.deciding_seats.includes(this.mySeat) ? "Waiting for the server…" : "Not your move."));
    } else if (tunnel.length) {
      const t = v.tunnel || {};
      parts.push(h("p", {}, `Tunnel ${routeName(this.board, t.route)}: you played ${cardsText(t.cards)}; the three cards turned up are `,
        h("strong", {}, (t.revealed || []).join(", ") || "none"), tunnel.length > 1 ? `. Pay ${t.extra} more card${t.extra === 1 ? "" : "s"}, or give up.`
        : `. You cannot pay the ${t.extra} more card${t.extra === 1 ? "" : "s"} it asks: give it up.`),
      h("div.choices", {}, tunnel.map((m) => h("button", { type: "button", "data-move": m.type,
        onclick: () => this.play(m) }, m.type === "decline_tunnel" ? "Give up the tunnel" : `Pay ${cardsText(m.cards)}`))));
    } else if (keep.length) {
      parts.push(this.keepTickets(keep));
    } else {
      parts.push(this.turnChoices());
    }
    const section = h("section.actions", { "aria-label": "Your move", "aria-busy": String(this.busy) },
      h("h2", { tabindex: -1 }, "Your move"), message, parts);
    if (this.busy) for (const control of section.querySelectorAll("button, select, input")) control.disabled = true;
    return section;
  }

  keepTickets(moves) {
    const offered = this.view.offered_tickets;
    const allowed = new Set(moves.map((m) => [...m.tickets].sort().join("|")));
    const key = [...this.keep].sort().join("|");
    const minimum = Math.min(...moves.map((m) => m.tickets.length));
    return h("div", {}, h("p", {}, `Choose the destination tickets to keep (at least ${minimum}):`),
      h("div.choices", {}, offered.map((id) => {
        const t = this.board.tickets[id];
        const box = h("input", { type: "checkbox", checked: this.keep.has(id), "data-ticket": id,
          onchange: () => { box.checked ? this.keep.add(id) : this.keep.delete(id); this.render(); } });
        return h("label.ticket-offer", { onmouseenter: () => this.board.highlight([t.a, t.b]),
          onmouseleave: () => this.board.highlight([]) }, box, " ", ticketText(t, this.board.cities), t.long ? " (long)" : "");
      })),
      h("button.primary", { type: "button", "data-action": "keep", disabled: !allowed.has(key),
        onclick: () => this.play({ type: "keep_tickets", tickets: [...this.keep] }) }, `Keep ${this.keep.size}`));
  }

  turnChoices() {
    const out = [];
    const sel = this.selected;
    const claims = this.movesOf("claim_route");
    const stations = this.movesOf("build_station");
    if (sel) {
      const options = sel.kind === "route" ? claims.filter((m) => m.route === sel.id) : stations.filter((m) => m.city === sel.id);
      const name = sel.kind === "route" ? routeName(this.board, sel.id) : `a station in ${this.board.cities[sel.id].name}`;
      out.push(h("p", {}, h("strong", {}, sel.kind === "route" ? `Claim ${name}` : `Build ${name}`), ": pay with"),
        h("div.choices", {}, options.map((m) => h("button.primary", { type: "button", "data-pay": JSON.stringify(m.cards),
          onclick: () => this.play(m) }, cardsText(m.cards))),
        h("button", { type: "button", onclick: () => { this.selected = null; this.render(); } }, "Cancel")));
      return out;
    }
    const drawTickets = this.movesOf("draw_tickets")[0];
    const second = this.view.phase === "second_card";
    out.push(h("p", {}, second ? "Take a second card: from the market (not a locomotive) or the deck."
      : "Take cards from the market or the deck, click a route with a blue outline to claim it, or draw destination tickets."));
    const routeIds = [...new Set(claims.map((m) => m.route))].sort((a, b) => routeName(this.board, a).localeCompare(routeName(this.board, b)));
    if (routeIds.length) {
      out.push(h("label", {}, "Claim a route: ", h("select", { "data-action": "claim-select", onchange: (e) => e.target.value && this.choose("route", e.target.value) },
        h("option", { value: "" }, `${routeIds.length} you can afford…`),
        routeIds.map((r) => h("option", { value: r }, `${routeName(this.board, r)} (${this.board.routes[r].length} ${this.board.routes[r].color})`)))));
    }
    const cityIds = [...new Set(stations.map((m) => m.city))].sort();
    if (cityIds.length) {
      out.push(h("p", {}, h("label", {}, "Build a station: ", h("select", { "data-action": "station-select", onchange: (e) => e.target.value && this.choose("city", e.target.value) },
        h("option", { value: "" }, "choose a city…"),
        cityIds.map((c) => h("option", { value: c }, this.board.cities[c].name))))));
    }
    if (drawTickets) out.push(h("p", {}, h("button", { type: "button", "data-action": "draw-tickets", onclick: () => this.play(drawTickets) }, "Draw destination tickets")));
    return out;
  }

  marketSection() {
    const v = this.view;
    const draws = this.movesOf("draw_card");
    const market = (i) => draws.find((m) => m.source === "market" && m.index === i);
    const deck = draws.find((m) => m.source === "deck");
    return h("section.market", {}, h("h2", {}, "Market"),
      h("div.cards", {}, v.market.map((colour, i) => {
        const move = market(i);
        return cardFace(colour, null, { button: true, disabled: !move || this.busy, "data-market": i,
          onclick: () => move && this.play(move), label: `Take ${colour} from the market` });
      }),
      h("button.card.deck", { type: "button", disabled: !deck || this.busy, "data-deck": "", "aria-label": `Draw from the deck (${v.deck_size} cards)`,
        style: "background:#5a4632;color:#fff", onclick: () => deck && this.play(deck) },
      h("span.count", { style: "color:#222" }, v.deck_size), h("span.label", { style: "color:#222" }, "deck"))),
      h("p.muted", {}, `${v.tickets_left} destination tickets left; ${v.discard_size} cards discarded.`));
  }

  handSection() {
    const hand = this.view.hand;
    return h("section.hand", {}, h("h2", {}, "Your cards"),
      h("div.cards", {}, CARD_COLOURS.filter((c) => hand[c]).map((c) => cardFace(c, hand[c], { "data-hand": c }))),
      Object.keys(hand).length ? null : h("p.muted", {}, "No cards."));
  }

  ticketsSection() {
    const done = completedTickets(this.view, this.board);
    return h("section.tickets", {}, h("h2", {}, "Your tickets"),
      h("ul", {}, this.view.tickets.map((id) => {
        const t = this.board.tickets[id];
        const show = () => this.board.highlight([t.a, t.b]);
        const hide = () => this.board.highlight([]);
        return h(`li${done.has(id) ? ".done" : ""}`, { tabindex: 0, "data-ticket": id,
          onmouseenter: show, onmouseleave: hide, onfocus: show, onblur: hide },
        ticketText(t, this.board.cities), done.has(id) ? " — done" : "");
      })));
  }

  finalSection() {
    if (this.status !== "finished") return null;
    if (!this.score) return h("section.final", {}, h("h2", {}, "Game over"), h("p.muted", {}, "Counting the score…"));
    return h("section.final.card-box", {}, h("h2", {}, "Final score"), h("div.table-scroll", {}, scoreTable(this.score, this.board)));
  }
}

const CLOSE_UNAUTHORISED = 4401, CLOSE_NOT_FOUND = 4404; // the socket's close codes (games/realtime)

// The control the focus is on, as a selector that finds it again after a redraw ("" for an element that has
// none, null when the focus is outside the panel).
const FOCUS_KEYS = ["data-action", "data-market", "data-deck", "data-move", "data-pay", "data-ticket", "data-add-bot", "data-sit"];

function focusKey(root) {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el)) return null;
  const attr = FOCUS_KEYS.find((a) => el.hasAttribute(a));
  return attr ? `${el.tagName.toLowerCase()}[${attr}="${CSS.escape(el.getAttribute(attr))}"]` : "";
}

// A move as text with its keys (and its ticket list) sorted, so two spellings of one move compare equal.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function routeName(board, id) {
  const r = board.routes[id];
  return r ? `${board.cities[r.a].name} – ${board.cities[r.b].name}` : id;
}

function phaseText(phase) {
  return {
    setup_tickets: "choosing tickets", turn: "turn", second_card: "second card", tunnel_payment: "tunnel",
    keep_tickets: "choosing tickets", finished: "finished", open: "waiting to start",
  }[phase] || phase;
}

function clockText(deadline) {
  return `${timeLeftText(deadline)} left to decide`;
}

export { routeName, FILL, SEAT_NAME };
