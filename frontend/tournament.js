// A tournament's page (/tournaments/{id}): what kind it is, its status with a countdown (to the start, to a daily
// Swiss's next round, to an arena's end), join and withdraw (which asks first: a running game of mine is resigned),
// the link to my next game, the standings, the tables of the current round (each a link to its game, its seats
// and, once it is over, their places; a Swiss's earlier rounds on request) and its fairness: the hash of the server's
// seed, committed before the start, the seed once revealed, and the audit log's check (GET …/verify).
//
// Live over the tournament's WebSocket (/ws/tournaments/{id}/, the token as a subprotocol when signed in: anyone may
// watch): on connect and on each change the server sends the status, the standings and the tables, each drawn as it
// comes. What is the reader's own (joined, withdrawn, my next game) is not in those messages: the tournament is read
// again (GET /api/tournaments/{id}) when its status or tables change, and when the inbox hears of it. The socket
// reconnects with a back-off as the game page's does (at once when the browser is back online or the tab shown);
// a finished tournament's page opens none.
import { h, mount } from "./dom.js";
import { clientSeed, del, get, openSocket, post, session, ApiError, errorText, CLOSE_NOT_FOUND, reconnectLater } from "./api.js";
import { onNotification } from "./inbox.js";
import { countdown, factsText, playersText, refusalText, seatText, tickCountdowns } from "./tournaments.js";
import { date, number, t, tParts, tn } from "./i18n.js";

// The socket's close codes (games/realtime, docs/API.md), as the game page reads them.
const REREAD_MS = 300; // messages that come together lead to one read of the tournament

const isMe = (name) => Boolean(name) && name.toLowerCase() === (session.user || "").toLowerCase();
const decimal = (x) => number(x, { maximumFractionDigits: 2 }); // points are fractions (T-PTS-1: 2 of 3 seats beaten, 0.67)

export async function tournamentPage(page, id) {
  const view = new TournamentView(page, id);
  await view.load();
  view.draw();
  view.listen();
  view.connect();
  return view;
}

class TournamentView {
  constructor(page, id) {
    this.page = page;
    this.id = id;
    this.tour = null;
    this.tables = null; // {round, tables} of the round shown
    this.shownRound = null; // a Swiss's earlier round chosen by the reader; null: the current one
    this.socket = null;
    this.retry = 0;
    this.online = false;
    this.closed = false;
    this.mine = ""; // what the reader's own part was drawn from: drawn again only when it changed (the focus stays)
    this.parts = {
      status: h("section.card-box.tour-status", { "aria-labelledby": "tour-status-title" }),
      me: h("section.card-box.tour-me", { "aria-label": t("tournament.your_part") }),
      standings: h("section.card-box.tour-standings", { "aria-labelledby": "tour-standings-title" }),
      tables: h("section.card-box.tour-tables", { "aria-labelledby": "tour-tables-title" }),
      fairness: h("section.card-box.tour-fairness", { "aria-labelledby": "tour-fairness-title" }),
    };
    this.news = h("p.visually-hidden", { "aria-live": "polite" }); // the status told once per change
    this.connection = h("p.tour-connection.muted");
  }

  async load() {
    this.tour = await get(`/tournaments/${this.id}`);
    if (this.tour.status !== "upcoming") await this.loadTables();
  }

  async loadTables() {
    const round = this.shownRound ? `?round=${this.shownRound}` : "";
    try {
      const answer = await get(`/tournaments/${this.id}/tables${round}`);
      this.tables = { round: this.shownRound ?? this.tour.round, tables: answer.results };
    } catch (err) {
      this.tables = { round: this.shownRound ?? this.tour.round, tables: [], error: errorText(err) };
    }
  }

  draw() {
    document.title = `${this.tour.name} · Ticket to Ride`;
    mount(this.page, h("p.tour-back", {}, h("a", { href: "/tournaments" }, t("tournament.all"))),
      h("h1", {}, this.tour.name), h("p.tour-facts.muted", {}, factsText(this.tour),
        h("span", {}, ` · ${t("tournament.by", { name: this.tour.created_by })}`)),
      // On a wide screen two columns: where it stands and my part over the standings; the tables over its fairness
      h("div.tour-grid", {}, h("div.tour-main", {}, this.parts.status, this.parts.me, this.parts.standings),
        h("div.tour-side", {}, this.parts.tables, this.parts.fairness)), this.news);
    this.drawStatus();
    this.drawMine(true);
    this.drawStandings();
    this.drawTables();
    this.drawFairness();
    tickCountdowns(this.page, () => this.reread(2000)); // a start or a round due: the server says what happened
  }

  // ---- the status
  drawStatus() {
    const tour = this.tour;
    let line, clock = null;
    if (tour.status === "upcoming") {
      line = t("tournament.starts_at_date", { date: date(tour.starts_at) });
      clock = countdown(tour.starts_at, "tournament.starts_in", "tournament.starting");
    } else if (tour.status === "running" && tour.format === "swiss") {
      line = tour.rounds ? t("tournament.round_of", { round: number(tour.round || 1), rounds: number(tour.rounds) })
        : t("tournament.round", { round: number(tour.round || 1) });
      if (tour.next_round_at) clock = countdown(tour.next_round_at, "tournament.next_round_in", "tournament.next_round_due");
    } else if (tour.status === "running") {
      line = tn("tournament.tables_so_far", tour.round || 0);
      if (tour.ends_at) clock = countdown(tour.ends_at, "tournament.ends_in", "tournament.ending");
    } else {
      line = tour.ends_at ? t("tournament.ended_at", { date: date(tour.ends_at) }) : t("tournament.status.finished");
    }
    const winners = tour.status === "finished" && tour.winners?.length
      ? [h("p.tour-podium-title", { id: "tour-winners" }, t("tournament.winners_title")),
        h("ol.tour-podium", { "aria-labelledby": "tour-winners" }, tour.winners.map((name) => h("li", {}, seatText(name))))] : null;
    mount(this.parts.status, h("h2", { id: "tour-status-title" }, t(`tournament.status.${tour.status}`)),
      h("p.tour-line", { "data-status": tour.status }, line, clock ? [" · ", h("strong", {}, clock)] : null),
      h("p.tour-players", {}, playersText(tour)), winners, this.connection);
    this.drawConnection();
    const said = `${t(`tournament.status.${tour.status}`)}: ${line}`;
    if (this.news.dataset.said !== said) {
      if (this.news.dataset.said) this.news.textContent = said; // not on the first drawing: the page says it already
      this.news.dataset.said = said;
    }
  }

  drawConnection() {
    this.connection.hidden = this.closed && !this.online;
    this.connection.dataset.online = String(this.online);
    this.connection.textContent = this.online ? t("tournament.live") : t("game.offline");
  }

  // ---- the reader's own part: join, withdraw, the next game
  drawMine(force = false) {
    const tour = this.tour;
    const mine = (tour.standings || []).find((s) => isMe(s.username));
    const key = JSON.stringify([session.user, tour.status, tour.joined, tour.withdrawn, tour.my_game, tour.players, tour.max_players,
      mine?.rank, mine?.points, tour.standings?.length]);
    if (!force && key === this.mine) return;
    this.mine = key;
    const error = h("p.error", { role: "alert" });
    const parts = [];
    if (!session.user) {
      if (tour.status !== "finished") {
        const here = encodeURIComponent(location.pathname);
        parts.push(h("p", {}, tParts("tournament.sign_in_to_join", { signin: h("a", { href: `/signin?next=${here}` }, t("nav.sign_in")) })));
      }
    } else if (tour.joined && !tour.withdrawn) {
      parts.push(this.myPlace());
      if (tour.my_game) {
        parts.push(h("p.tour-next", {}, h("a.tour-game-link", { href: `/games/${tour.my_game}`, "data-game": tour.my_game },
          t("tournament.your_next_game"))));
      } else if (tour.status === "running") {
        parts.push(h("p.muted.tour-waiting", {}, t("tournament.waiting_table")));
      }
      if (tour.status !== "finished") {
        parts.push(h("p", {}, h("button.danger", { type: "button", "data-action": "withdraw",
          onclick: () => this.confirmWithdraw(error) }, t("tournament.withdraw"))));
      }
    } else if (tour.withdrawn) {
      parts.push(h("p.tour-withdrawn-note", {}, t("tournament.you_withdrew")));
    } else if (tour.status === "upcoming" || (tour.status === "running" && tour.format === "arena")) {
      const full = tour.max_players && tour.players >= tour.max_players;
      parts.push(h("p", {}, h("button.primary", { type: "button", "data-action": "join", disabled: Boolean(full),
        onclick: (e) => this.join(e.currentTarget, error) }, t("tournament.join")),
      full ? h("span.muted", {}, ` ${t("tournament.code.full")}`) : null));
    } else if (tour.status === "running") {
      parts.push(h("p.muted", {}, t("tournament.code.started")));
    }
    if (!parts.length) {
      this.parts.me.hidden = true;
      return mount(this.parts.me);
    }
    this.parts.me.hidden = false;
    mount(this.parts.me, parts, error);
  }

  // "You are in this tournament" or, once it has standings, "You are 3rd of 12 with 4 points".
  myPlace() {
    const mine = (this.tour.standings || []).find((s) => isMe(s.username));
    if (!mine || this.tour.status === "upcoming") return h("p.tour-joined-note", {}, t("tournament.you_are_in"));
    const key = this.tour.status === "finished" ? "tournament.your_final_place" : "tournament.your_place";
    return h("p.tour-joined-note", {}, t(key, { place: number(mine.rank),
      players: number(this.tour.standings.length), points: decimal(mine.points) }));
  }

  async join(button, error) {
    button.disabled = true;
    error.textContent = "";
    try {
      this.tour = { ...this.tour, ...(await post(`/tournaments/${this.id}/join`, { client_seed: clientSeed() })) };
      this.redraw();
      this.parts.me.querySelector("[data-action=withdraw]")?.focus();
    } catch (err) {
      button.disabled = false;
      error.textContent = refusalText(err);
    }
  }

  // A modal question (the native <dialog>: focus moves into it, Escape keeps me in, focus returns afterwards).
  confirmWithdraw(error) {
    const close = () => { dialog.close(); dialog.remove(); };
    const dialog = h("dialog.confirm", { "aria-labelledby": "withdraw-title", "aria-describedby": "withdraw-what", onclose: () => dialog.remove() },
      h("h2", { id: "withdraw-title" }, t("tournament.withdraw_title", { name: this.tour.name })),
      h("p", { id: "withdraw-what" }, t(this.tour.status === "upcoming" ? "tournament.withdraw_before"
        : this.tour.my_game ? "tournament.withdraw_game" : "tournament.withdraw_what")),
      h("div.dialog-buttons", {},
        h("button", { type: "button", autofocus: true, "data-action": "stay", onclick: close }, t("tournament.stay")),
        h("button.danger", { type: "button", "data-action": "confirm-withdraw", onclick: () => { close(); this.withdraw(error); } },
          t("tournament.withdraw"))));
    document.body.append(dialog);
    dialog.showModal();
  }

  async withdraw(error) {
    error.textContent = "";
    try {
      await del(`/tournaments/${this.id}/join`);
      this.tour = await get(`/tournaments/${this.id}`);
      this.redraw();
    } catch (err) {
      error.textContent = refusalText(err);
    }
  }

  // ---- the standings
  drawStandings() {
    const rows = this.tour.standings || [];
    const upcoming = this.tour.status === "upcoming"; // no points yet: who has joined, only
    const title = h("h2", { id: "tour-standings-title" }, t(upcoming ? "tournament.registered" : "tournament.standings"));
    if (!rows.length) return mount(this.parts.standings, title, h("p.muted", {}, t("tournament.no_players")));
    if (upcoming) {
      return mount(this.parts.standings, title, h("ul.tour-registered", {}, rows.map((s) => h(`li${isMe(s.username) ? ".me" : ""}`,
        { "data-username": s.username }, h("a", { href: `/users/${encodeURIComponent(s.username)}` }, s.username)))));
    }
    mount(this.parts.standings, title, h("table.tour-standings-table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("leaderboard.player")),
        h("th", { scope: "col" }, t("tournament.points")), h("th", { scope: "col" }, t("leaderboard.games")))),
      h("tbody", {}, rows.map((s) => h(`tr${isMe(s.username) ? ".me" : ""}${s.withdrawn ? ".withdrawn" : ""}`,
        { "data-username": s.username, "data-withdrawn": String(Boolean(s.withdrawn)) },
        h("td.rank", {}, number(s.rank)),
        h("td.player", {}, String(s.username).startsWith("bot:") ? seatText(s.username)
          : h("a", { href: `/users/${encodeURIComponent(s.username)}` }, s.username),
        s.withdrawn ? h("span.tour-withdrawn", {}, ` ${t("tournament.withdrawn")}`) : null),
        h("td.points", {}, decimal(s.points), h("span.tiebreaks", {}, t("tournament.tiebreaks", {
          opponents: decimal(s.tiebreaks?.[0] ?? 0), score: decimal(s.tiebreaks?.[1] ?? 0) }))),
        h("td.games", {}, number(s.games)))))));
  }

  // ---- the tables
  drawTables() {
    const tour = this.tour;
    const title = h("h2", { id: "tour-tables-title" }, tour.format === "swiss" && this.tables?.round
      ? t("tournament.tables_round", { round: number(this.tables.round) }) : t("tournament.tables"));
    if (tour.status === "upcoming" || !this.tables) return mount(this.parts.tables, title, h("p.muted", {}, t("tournament.no_tables")));
    const list = [...this.tables.tables];
    if (tour.format === "arena") list.reverse(); // the newest table first
    mount(this.parts.tables, title, this.roundChooser(),
      this.tables.error ? h("p.error", { role: "alert" }, this.tables.error) : null,
      list.length ? h("ul.tour-table-list", {}, list.map((table) => this.tableItem(table, this.tables.tables.indexOf(table) + 1)))
        : h("p.muted", {}, t("tournament.no_tables")));
  }

  // A Swiss's earlier rounds, one at a time (GET …/tables?round=N).
  roundChooser() {
    const tour = this.tour;
    if (tour.format !== "swiss" || !tour.round || tour.round < 2) return null;
    const select = h("select", { name: "round", onchange: async () => {
      this.shownRound = Number(select.value) === tour.round ? null : Number(select.value);
      await this.loadTables();
      this.drawTables();
      this.parts.tables.querySelector("select[name=round]")?.focus();
    } }, Array.from({ length: tour.round }, (_, i) => h("option", { value: i + 1, selected: i + 1 === (this.shownRound ?? tour.round) },
      t("tournament.round", { round: number(i + 1) }))));
    return h("p.tour-round-choice", {}, h("label", {}, `${t("tournament.show_round")} `, select));
  }

  tableItem(table, n) {
    const finished = table.status === "finished" && Array.isArray(table.places);
    const seats = table.seats.map((seat, i) => ({ seat, place: finished ? table.places[i] : null }));
    if (finished) seats.sort((a, b) => a.place - b.place);
    const mine = table.seats.some(isMe);
    return h(`li${mine ? ".mine" : ""}`, { "data-game": table.game, "data-status": table.status },
      h("div.tour-table-head", {}, h("a", { href: `/games/${table.game}` }, t("tournament.table_n", { n: number(n) })),
        h("span.muted", {}, ` · ${t(table.status === "finished" ? "status.finished" : "tournament.table_playing")}`)),
      h(`${finished ? "ol" : "ul"}.tour-seats`, {}, seats.map(({ seat, place }) => h(`li${isMe(seat) ? ".me" : ""}`, {},
        place ? h("span.place", {}, `${t("user.place", { place: number(place) })}: `) : null, seatText(seat)))));
  }

  // ---- fairness
  drawFairness() {
    const tour = this.tour;
    const result = h("div.tour-verify-result", { "aria-live": "polite" });
    mount(this.parts.fairness, h("h2", { id: "tour-fairness-title" }, t("tournament.fairness")),
      h("p", {}, t("tournament.seed_intro")),
      h("dl.tour-seeds", {}, h("dt", {}, t("tournament.seed_hash")), h("dd", {}, h("code", {}, tour.server_seed_hash || "–")),
        tour.server_seed ? [h("dt", {}, t("tournament.seed")), h("dd", {}, h("code", {}, tour.server_seed))] : null),
      h("p.tour-verify", {}, h("a", { href: `/api/tournaments/${this.id}/verify`, "data-link": "verify" }, t("tournament.verify")), " · ",
        h("a", { href: `/api/tournaments/${this.id}/audit`, "data-link": "audit" }, t("tournament.audit")), " · ",
        h("button", { type: "button", "data-action": "check", onclick: () => this.check(result) }, t("tournament.check"))),
      result);
  }

  async check(result) {
    mount(result, h("p.muted", {}, t("common.loading")));
    try {
      const answer = await get(`/tournaments/${this.id}/verify`);
      const fair = answer.fair === null || answer.fair === undefined ? t("tournament.fair_later") : answer.fair ? t("tournament.fair") : t("tournament.unfair");
      mount(result, h(`p${answer.ok ? "" : ".error"}`, { "data-ok": String(answer.ok) }, answer.ok ? t("tournament.log_intact") : t("tournament.log_broken")),
        h("p", { "data-fair": String(answer.fair) }, fair),
        answer.problems?.length ? h("ul", {}, answer.problems.map((p) => h("li", {}, p))) : null);
    } catch (err) {
      mount(result, h("p.error", { role: "alert" }, errorText(err)));
    }
  }

  // ---- live
  redraw() {
    this.drawStatus();
    this.drawMine();
    this.drawStandings();
    this.drawTables();
    this.drawFairness();
  }

  // The tournament read again (its standings, my part, its winners), once for the messages that come together.
  reread(delay = REREAD_MS) {
    clearTimeout(this.rereadTimer);
    this.rereadTimer = setTimeout(async () => {
      try {
        const was = this.tour.status;
        this.tour = await get(`/tournaments/${this.id}`);
        if (this.tour.status !== "upcoming" && (!this.tables || was !== this.tour.status)) await this.loadTables();
        this.redraw();
        if (this.tour.status === "finished") this.finish();
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) this.finish();
      }
    }, delay);
  }

  listen() {
    window.addEventListener("offline", () => this.socket?.close());
    window.addEventListener("online", () => this.reconnectNow());
    window.addEventListener("ttr:session", () => { this.restartSocket(); this.reread(0); }); // signed out: watch as anyone
    document.addEventListener("visibilitychange", () => { if (!document.hidden) this.reconnectNow(); });
    onNotification((n) => { if (n.data?.tournament === this.id) this.reread(); });
  }

  connect() {
    if (this.closed || this.tour.status === "finished") return this.finish();
    clearTimeout(this.reconnectTimer);
    const socket = openSocket(`/ws/tournaments/${this.id}/`);
    this.socket = socket;
    socket.onopen = () => {
      if (this.retry > 0) this.reread(); // back after a gap: my own part may have changed meanwhile
      this.retry = 0;
      this.setOnline(true);
    };
    socket.onmessage = (message) => this.onMessage(JSON.parse(message.data));
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setOnline(false);
      if (this.closed) return;
      if (event.code === CLOSE_NOT_FOUND) return this.finish();
      reconnectLater(this, event.code);
    };
  }

  reconnectNow() {
    if (this.closed || this.socket) return;
    this.retry = 1; // a gap: read my own part again once connected
    this.connect();
  }

  restartSocket() {
    const old = this.socket;
    this.socket = null;
    old?.close();
    if (!this.closed) this.connect();
  }

  finish() {
    this.closed = true; // nothing more can change
    clearTimeout(this.reconnectTimer);
    const old = this.socket;
    this.socket = null;
    old?.close();
    this.online = false;
    this.drawConnection();
  }

  setOnline(online) {
    this.online = online;
    this.drawConnection();
  }

  onMessage(message) {
    switch (message.type) {
      case "status": {
        const changed = message.status !== this.tour.status || message.round !== this.tour.round;
        this.tour = { ...this.tour, status: message.status, round: message.round, players: message.players,
          next_round_at: message.next_round_at };
        this.drawStatus();
        this.drawMine();
        if (changed) this.reread();
        break;
      }
      case "standings":
        this.tour = { ...this.tour, standings: message.standings };
        this.drawStandings();
        this.drawMine();
        break;
      case "tables":
        if (this.shownRound === null) {
          this.tables = { round: message.round ?? this.tour.round, tables: message.tables };
          this.drawTables();
        }
        this.reread(); // my next game may be among them
        break;
      default:
        break;
    }
  }
}
