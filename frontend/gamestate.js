// A game as the page knows it, kept up to date from the server: the summary (seats), the view of /state and its
// seq, the moves /legal-moves offers, the event log, who is connected, the final score; the game's WebSocket with
// reconnection (at once when the browser is back online or the tab shown again), resync of missed events and the
// online flag; and the moves posted (a stale seq retried when the same move is still offered). It draws nothing:
// it tells the page what changed through the `ui` it is given (game.js), and the page calls its actions.
//
// What it costs the server: while the game is open, the seats are read every 1.5 s (a join appends no event,
// so the socket says nothing of it), and only while the page is visible; once the game has started, nothing is
// polled: each event pushed on the socket leads to one read of /state and /legal-moves. A finished game is read
// once and opens no socket.
//
// The `ui` it tells (every method is called with nothing drawn in between):
//   render()          anything may have changed: draw the page again
//   renderLog()       the event log changed
//   renderStatus()    the connection went on or off line
//   seatsRead(same)   an open game's seats were read again (same: as they were)
//   moveStarted()     a move is being posted; returns what to do once the server accepted it
import { clientSeed, get, openSocket, post, session, ApiError, CLOSE_NOT_FOUND, reconnectLater } from "./api.js";
import { t } from "./i18n.js";

// The socket's close codes (games/realtime, docs/API.md): 4008 closes a person's oldest socket when they open one
// too many (a tab long hidden): it comes back when it is shown again, rather than knock off another tab's socket.

export class GameState {
  constructor(id, ui) {
    this.id = id;
    this.ui = ui;
    this.summary = null;
    this.view = null;
    this.status = undefined;
    this.seq = undefined;
    this.events = [];
    this.moves = [];
    this.presence = [];
    this.error = ""; // the last refusal (the server's rule text) or failure, shown until the next action
    this.online = false;
    this.busy = false; // a move on its way
    this.score = null;
    this.refreshes = 0;
    this.socket = null;
    this.closed = false; // true once nothing more can happen (finished and scored) or the game is gone
    this.summaryStale = false;
  }

  get mySeat() { return this.view ? this.view.your_seat : null; }
  get resigned() { return Boolean(this.mySeat !== null && this.summary.seats[this.mySeat]?.resigned); }
  movesOf(type) { return this.moves.filter((m) => m.type === type); }

  // The game's summary: enough to lay out the page (its map) before anything else is read.
  async load() {
    this.summary = await get(`/games/${this.id}`);
    return this.summary;
  }

  // Once the page is laid out: the state, the log, the socket and the seats' poll.
  async start() {
    await this.refresh();
    if (this.summary.status !== "open") await this.loadEvents();
    if (this.status === "finished") this.closed = true; // a finished game's page is read once: no socket, no poll
    else this.connect();
    this.pollSeats();
  }

  // The browser's own news: off line, on line, signed out, the tab shown again.
  listen() {
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

  // ---- data
  async refresh() {
    // The summary (seats) changes while the game is open, and afterwards only when a seat is handed to a bot.
    if (this.summary.status === "open" || this.summaryStale) {
      this.summaryStale = false;
      const before = JSON.stringify(this.summary);
      this.summary = await get(`/games/${this.id}`);
      if (this.summary.status === "open") return this.ui.seatsRead(JSON.stringify(this.summary) === before);
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
    this.view = state.view;
    this.status = state.status;
    this.moves = moves.seq === state.seq ? moves.moves : [];
    if (moves.seq !== state.seq && moves.seq !== -1) this.scheduleRefresh(); // a move landed between the two reads
    if (this.status === "finished" && !this.score) this.loadScore();
    this.ui.render();
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
    if (fresh.some((e) => ["seat_resigned", "turn_timed_out", "seat_replaced", "time_granted", "hint_used"].includes(e.type))) this.summaryStale = true;
    this.ui.renderLog();
  }

  hasEvent(type) { return this.events.some((e) => e.type === type); }

  // /score answers 409 until a worker has scored the game: the page first waits for game_scored in the log, pushed
  // by the socket or, on a page without one, read every 0.7 s, so a normal session asks nothing that fails. A game
  // an operator aborted is never scored: nothing more to wait for.
  async loadScore() {
    if (this.scoreLoading) return;
    if (this.hasEvent("game_aborted")) {
      this.finish();
      return;
    }
    if (!this.hasEvent("game_scored")) {
      clearTimeout(this.scoreTimer);
      this.scoreTimer = setTimeout(() => this.loadEvents().catch(() => {}).then(() => this.loadScore()), 700);
      return;
    }
    this.scoreLoading = true;
    try {
      const score = await get(`/games/${this.id}/score`);
      // The whole log again: the bots' reasons, which name their tickets and so are read by the other seats only
      // once the game is over. The score is kept only then, so the final table is never drawn beside a log
      // without them.
      const all = await get(`/games/${this.id}/events?after=0`).catch(() => null);
      if (all) {
        this.events = all.events;
        this.ui.renderLog();
      }
      this.score = score;
      this.finish();
    } catch (err) {
      if (!(err instanceof ApiError)) setTimeout(() => this.loadScore(), 700); // the network failed: ask again
    } finally {
      this.scoreLoading = false;
    }
  }

  finish() {
    this.closed = true; // nothing more can happen in this game
    this.socket?.close();
    this.ui.render();
  }

  // ---- live updates
  connect() {
    if (this.closed) return;
    clearTimeout(this.reconnectTimer);
    const socket = openSocket(`/ws/games/${this.id}/`);
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
        return this.fail(new Error(t("game.gone")));
      }
      reconnectLater(this, event.code);
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
        this.ui.render();
        break;
      default:
        this.ui.onSocketMessage?.(message);
        break;
    }
  }

  // Hand a message to the game's socket (a chat line): false when the socket is not open.
  sendMessage(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  resync() {
    const after = this.events.length ? this.events[this.events.length - 1].seq : 0;
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: "resync", after }));
    else this.loadEvents().catch(() => {});
  }

  setOnline(online) {
    if (this.online === online) return;
    this.online = online;
    this.ui.renderStatus();
  }

  // ---- moves
  async play(move, again = false) {
    if (this.busy) return;
    this.busy = true;
    this.error = "";
    this.ui.render(); // every action button disabled until the answer is in
    const accepted = this.ui.moveStarted();
    let stale = false;
    try {
      await post(`/games/${this.id}/moves`, { expected_seq: this.seq, move });
      // The moves offered were this decision's: none is offered (nor a hint asked) until the refresh below reads
      // the next one (a hint asked in between was refused not_your_turn).
      this.moves = [];
      window.dispatchEvent(new Event("ttr:moved")); // the inbox's "your turn in N games" may change
      accepted();
    } catch (err) {
      stale = err instanceof ApiError && err.body.code === "stale_seq";
      if (stale) this.error = t("game.moved_on");
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

  // An open game's seats: join, add a bot, start.
  async seatAction(path, body) {
    this.error = "";
    const seeded = path === "join" || path === "start" ? { ...body, client_seed: clientSeed() } : body;
    try { await post(`/games/${this.id}/${path}`, seeded); }
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

  fail(err) {
    this.error = err instanceof ApiError ? err.text : err.message || String(err);
    this.ui.render();
  }
}

// A move as text with its keys (and its ticket list) sorted, so two spellings of one move compare equal.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
