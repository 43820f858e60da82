// Post-game analysis (issue #24): the replay's analysis panel (ask for it, its progress, then the graph of each
// player's estimated final lead, the marks on the replay's slider, the marked decisions in words, each player's
// points lost per decision), a better move drawn on the board (a ghost route, ringed cities, the card or deck
// marked in the market: shared with the game page's hints, hints.js), and the player page's analysis by map with
// its trend as a sparkline. Reads GET/POST /games/{id}/analysis (once the summary's `analysis` says one was asked
// for); draws nothing else of the replay (replay.js). A decision is shown at its move's own event (`event`, an event
// of its seat), where the replay's words tell that move; `seq`, the position decided on, is the event before it.
import { h, s, mount } from "./dom.js";
import { get, post, session, ApiError } from "./api.js";
import { carTransform } from "./boardgeometry.js";
import { SEAT_FILL, SEAT_INK, SEAT_MARK, seatColourName } from "./colours.js";
import { BOT_LEVELS, botName, marketAt, mapName, moveText, seatName, ticketText } from "./words.js";
import { number, t, tn } from "./i18n.js";
import { seatSwatch } from "./panels.js";

export const MARKS = ["inaccuracy", "mistake", "blunder"]; // mildest first
const GLYPH = { inaccuracy: "?!", mistake: "?", blunder: "??" }; // as chess annotates them: not colour alone
const POLL_MS = 2000;
const MARK_GAP_PX = 22; // slider marks nearer than this share no row (a blunder's diamond is 17 px across)
const MARK_ROWS = 3;

const decimal = (x) => number(x, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const signed = (x) => number(x, { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: "exceptZero" });
const whole = (x) => number(x, { maximumFractionDigits: 0 });
export const markGlyph = (mark) => h(`span.mark-glyph.mark-${mark}`, { "aria-hidden": "true" }, GLYPH[mark]);

// ---- A better move (or a hint) on the board

// Draws `move` for `seat` on the board: a claim's route as ghost trains (the seat's colour, faded, its mark on each)
// in a capsule outlined with marching dashes in the seat's colour over a dark edge, glowing in that colour: unlike
// a free route's pale spaces in the route's colour and a claimed one's solid trains. A station's city and a ticket
// choice's cities are ringed the same way (and marked .suggested). The outlines are sized in screen pixels
// (--unit), as the halos are. null clears it.
export function drawMove(board, move, seat) {
  const key = move ? JSON.stringify([move, seat]) : "";
  if (board.overlay.dataset.key === key) return; // drawn already (and its dashes marching on)
  board.overlay.dataset.key = key;
  board.overlay.replaceChildren();
  for (const el of board.svg.querySelectorAll(".city.suggested")) el.classList.remove("suggested");
  if (!move) return;
  const colour = SEAT_FILL[seat] || "#1b6fd1";
  const layers = (shape, attrs) => ["glow", "edge", "white", "dash"].map((part) => s(`${shape}.${part}`, attrs));
  const geometry = move.type === "claim_route" ? board.geometry(move.route) : null;
  if (geometry) {
    const { cars, angle, carLength } = geometry;
    const [first, last] = [cars[0], cars[cars.length - 1]];
    const middle = { x: (first.x + last.x) / 2, y: (first.y + last.y) / 2 };
    const long = Math.hypot(last.x - first.x, last.y - first.y) + carLength + 10, high = board.carWidth + 10;
    const car = { x: -carLength / 2, y: -board.carWidth / 2, width: carLength, height: board.carWidth, rx: 2.5 };
    board.overlay.append(s("g.ghost", { "data-ghost": move.route, "data-seat": seat, style: `--ghost: ${colour}; --ghost-ink: ${SEAT_INK[seat] || "#fff"}` },
      s("g", { transform: carTransform(middle, angle) }, layers("rect", { x: -long / 2, y: -high / 2, width: long, height: high, rx: high / 2 })),
      cars.map((at) => s("g.ghost-car", { transform: carTransform(at, angle) }, s("rect", car), s("path", { d: SEAT_MARK[seat] || "" })))));
  }
  const tickets = move.type === "keep_tickets" ? move.tickets.map((id) => board.tickets?.[id]).filter(Boolean) : [];
  const cities = [...new Set(move.type === "build_station" ? [move.city] : tickets.flatMap((tk) => [tk.a, tk.b]))];
  for (const id of cities) {
    const city = board.cities[id];
    if (!city) continue;
    board.svg.querySelector(`.city[data-city="${CSS.escape(id)}"]`)?.classList.add("suggested");
    board.overlay.append(s("g.ghost-ring", { "data-ring": id, "data-seat": seat, style: `--ghost: ${colour}` },
      layers("circle", { cx: city.x, cy: city.y, r: 24 })));
  }
}

// Marks a draw's card in a market section (its `.cards` in slot order): the slot, or the deck (a stand-in added
// where the section shows none, as the replay's does). Any other move: the marks cleared.
export function markMarket(section, move) {
  if (!section) return;
  for (const el of section.querySelectorAll(".suggested")) {
    el.classList.remove("suggested");
    if (el.dataset.label !== undefined) el.setAttribute("aria-label", el.dataset.label);
  }
  section.querySelector(".deck-standin")?.remove();
  if (move?.type !== "draw_card") return;
  const cards = section.querySelector(".cards");
  let target = move.source === "deck" ? section.querySelector("[data-deck]") : cards?.children[move.index];
  if (!target && move.source === "deck" && cards) {
    target = h("span.card.deck.deck-standin", { "data-deck": "", "aria-label": t("game.deck") }, h("span.label", {}, t("game.deck")));
    cards.append(target);
  }
  if (!target) return;
  const label = target.getAttribute("aria-label") || target.title || "";
  target.dataset.label = label;
  target.setAttribute("aria-label", t("suggest.marked", { what: label }));
  target.classList.add("suggested");
}

// Where the board (or the market) shows a suggested move, in words; null for a move shown in words only.
export function whereShown(move, seat) {
  switch (move?.type) {
    case "claim_route": return t("suggest.route", { colour: seatColourName(seat) });
    case "build_station": return t("suggest.city", { colour: seatColourName(seat) });
    case "keep_tickets": return t("suggest.tickets", { colour: seatColourName(seat) });
    case "draw_card": return t(move.source === "deck" ? "suggest.deck" : "suggest.card");
    default: return null;
  }
}

// A ticket choice's tickets as a list (the words of the move name them too; the list reads better).
export function moveDetails(move, board) {
  if (move?.type !== "keep_tickets") return null;
  return h("ul.suggested-tickets", {}, move.tickets.map((id) => h("li", { "data-ticket": id },
    board.tickets?.[id] ? ticketText(board.tickets[id], board.cities) : id)));
}

// ---- The replay's analysis panel

// The panel (`element`, the top of the replay's side column), the marks over the slider (`marks`) and the box
// above the board that tells the chosen decision's better move (`detail`). The replay calls `update(at, side)`
// after drawing each position; `go(seq)` moves the replay; `position(seq)` is where event seq lies along the slider
// (0 to 1).
export class AnalysisPanel {
  constructor({ id, summary, board, events, last, go, position }) {
    Object.assign(this, { id, summary, board, events, last, go, position });
    this.ctx = { seats: summary.seats, board };
    this.content = h("div.analysis-content");
    this.news = h("p.visually-hidden", { "aria-live": "polite" }); // the analysis asked for, under way, ready
    this.element = h("section.analysis", { "aria-labelledby": "analysis-title" },
      h("h2", { id: "analysis-title", tabindex: -1 }, t("analysis.title")), this.news, this.content);
    this.marks = h("div.slider-marks", { role: "group", "aria-label": t("analysis.marks_label") });
    this.detail = h("div.better-move");
    this.at = last;
    this.selected = null;
    this.data = null;
    this.side = null;
  }

  get mine() {
    const me = (session.user || "").toLowerCase();
    return Boolean(me) && this.summary.seats.some((x) => (x.username || "").toLowerCase() === me);
  }

  async load() {
    // The summary tells whether anyone asked (`analysis`): one nobody asked for is not read again.
    if (this.summary.analysis === "none") return this.notAsked();
    this.body(h("p.muted", {}, t("analysis.loading")));
    await this.read();
  }

  notAsked() {
    this.body(this.mine ? [h("p", {}, t("analysis.offer")), this.ask(t("analysis.start"))] : h("p.muted", {}, t("analysis.not_analysed")));
  }

  ask(words) {
    return h("button.primary", { type: "button", "data-action": "analyse", onclick: (e) => this.request(e.target) }, words);
  }

  body(...children) {
    mount(this.content, children);
  }

  async read() {
    clearTimeout(this.timer);
    try {
      this.take(await get(`/games/${this.id}/analysis`));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.refused(err);
    }
  }

  take(answer) {
    if (answer.status === "done") return this.done(answer);
    if (answer.status === "none") return this.notAsked();
    const share = Math.min(Math.max(Number(answer.progress) || 0, 0), 1);
    const words = answer.status === "running" ? t("analysis.running", { percent: number(share, { style: "percent" }) }) : t("analysis.queued");
    if (this.news.textContent !== words && answer.status !== this.lastStatus) this.news.textContent = words;
    this.lastStatus = answer.status;
    this.body(h("div.analysis-progress", { "data-status": answer.status },
      h("progress", { max: 100, value: Math.round(share * 100), "aria-label": t("analysis.progress") }),
      h("span", {}, words)));
    this.timer = setTimeout(() => { if (this.element.isConnected) this.read().catch(console.warn); }, POLL_MS);
  }

  refused(err) {
    const code = err.body.code;
    if (code === "analysis_failed") {
      this.body(h("p.error", { role: "alert" }, t("analysis.failed", { detail: err.body.detail || "" })), this.mine ? this.ask(t("analysis.retry")) : null);
    } else {
      this.body(h("p.error", { role: "alert" }, err.text));
    }
  }

  async request(button) {
    button.disabled = true;
    try {
      this.take(await post(`/games/${this.id}/analysis`));
      this.element.querySelector("h2").focus(); // the button is gone: the focus stays in the panel
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      button.disabled = false;
      this.element.querySelector(".analysis-error")?.remove();
      button.after(h("p.error.analysis-error", { role: "alert" }, err.text));
    }
  }

  done(analysis) {
    this.data = analysis;
    // (`event` is the move's own event; an answer without it places the move just after its position)
    this.decisions = analysis.decisions.map((d, index) => ({ ...d, event: d.event ?? d.seq + 1, index }));
    this.marked = this.decisions.filter((d) => MARKS.includes(d.mark));
    if (this.lastStatus) this.news.textContent = t("analysis.ready");
    this.graph = new LeadGraph(analysis.leads || [], this.marked, this.last, this.ctx, (seq) => this.go(seq));
    this.body(
      analysis.altered ? h("p.analysis-altered", { role: "alert" }, h("strong", {}, t("analysis.warning")), " ", t("analysis.altered")) : null,
      h("p.muted.analysis-by", { title: analysis.bot, "data-bot": analysis.bot }, judgeText(analysis)),
      this.graph.element,
      this.playersTable(analysis.players || []),
      h("h3", {}, t("analysis.marked")),
      this.marked.length ? h("ol.marked", {}, this.marked.map((d) => h("li", {}, this.entry(d))))
        : h("p.muted.no-marks", {}, t("analysis.no_marks")));
    this.drawMarks();
    this.graph.draw();
    this.update(this.at, this.side);
  }

  // "ann, event 87: mistake, about 13 points lost (7–20)" (87: the move's own event; the loss is measured on fresh
  // sampled games, its interval two standard errors either side: a mark's is above 0)
  head(d) {
    const spread = 2 * (d.stderr ?? 0), low = d.loss_low ?? d.loss - spread, high = d.loss_high ?? d.loss + spread;
    return t("analysis.entry_about", { who: seatName(this.ctx.seats[d.seat], this.ctx.seats), seq: d.event,
      mark: t(`analysis.mark.${d.mark}`), loss: whole(d.loss), low: whole(Math.max(0, low)), high: whole(high) });
  }

  words(move, seq) { return moveText(move, this.ctx, marketAt(this.events, seq)); }

  entry(d) {
    return h("button.decision", { type: "button", "data-decision": d.index, "data-seq": d.event, "data-mark": d.mark,
      "aria-pressed": "false", onclick: () => this.select(d) },
    h("span.decision-head", {}, markGlyph(d.mark), " ", seatSwatch(d.seat), this.head(d)),
    h("span.decision-played", {}, t("analysis.played", { move: this.words(d.played, d.seq) })),
    h("span.decision-better", {}, t("analysis.better", { move: this.words(d.best, d.seq) }),
      d.reason ? [" — ", h("span", { lang: "en" }, d.reason)] : null));
  }

  // Whole in the side column at any width (no sideways scroll): names and headings wrap, the numbers stay narrow.
  playersTable(players) {
    if (!players.length) return null;
    return h("table.analysis-players", {},
      h("thead", {}, h("tr", {}, h("th", {}, t("panel.player")), h("th.num", {}, t("analysis.decisions")), h("th.num", {}, t("analysis.mean_loss")),
        MARKS.map((m) => h("th.num.mark-col", { title: t(`analysis.col.${m}`) }, markGlyph(m), h("span.visually-hidden", {}, t(`analysis.col.${m}`)))))),
      h("tbody", {}, players.map((p) => h("tr", { "data-seat": p.seat },
        h("td.who", {}, seatSwatch(p.seat), " ", seatName(this.ctx.seats[p.seat] || p, this.ctx.seats)),
        h("td.num", {}, number(p.decisions)), h("td.num", { "data-mean-loss": "" }, decimal(p.mean_loss ?? 0)),
        h("td.num", {}, number(p.inaccuracies ?? 0)), h("td.num", {}, number(p.mistakes ?? 0)), h("td.num", {}, number(p.blunders ?? 0))))));
  }

  // A mark over the slider at each marked decision's move (the worst when a turn holds several).
  drawMarks() {
    const bySeq = new Map();
    for (const d of this.marked) bySeq.set(d.event, [...(bySeq.get(d.event) || []), d]);
    // Marks of nearby events would cover each other: such a mark goes on the next row (at most MARK_ROWS), so that
    // each can be clicked.
    const gap = MARK_GAP_PX / (this.marks.clientWidth || 600);
    const ends = [];
    mount(this.marks, [...bySeq].sort(([a], [b]) => a - b).map(([seq, list]) => {
      const worst = list.reduce((a, b) => (MARKS.indexOf(b.mark) > MARKS.indexOf(a.mark) ? b : a));
      const label = list.map((d) => this.head(d)).join("; ");
      const at = this.position(seq);
      let row = ends.findIndex((end) => at - end >= gap);
      if (row < 0) row = ends.length < MARK_ROWS ? ends.length : ends.indexOf(Math.min(...ends));
      ends[row] = at;
      return h(`button.slider-mark.mark-${worst.mark}`, { type: "button", style: `--at: ${at.toFixed(4)}; --row: ${row}`,
        "data-seq": seq, "data-mark": worst.mark, "aria-label": label, title: label, onclick: () => this.select(worst) });
    }));
    this.marks.style.setProperty("--rows", Math.max(ends.length, 1));
  }

  select(d) {
    this.selected = d;
    this.go(d.event);
    this.update(d.event, this.side); // at once; again once the replay has drawn that position
    // On a phone the list lies under the board: the better move and the board brought into view.
    const top = this.detail.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.6) this.detail.scrollIntoView({ block: "start" });
  }

  // The replay shows event `at` (its side column `side` drawn again): the cursor, and the chosen decision's better
  // move while the replay stays at its move.
  update(at, side) {
    this.at = at;
    this.side = side;
    if (this.selected && this.selected.event !== at) this.selected = null;
    this.graph?.setAt(at);
    const d = this.selected;
    drawMove(this.board, d ? d.best : null, d?.seat);
    markMarket(side?.querySelector("section.market"), d?.best);
    for (const el of this.element.querySelectorAll("button.decision")) el.setAttribute("aria-pressed", String(Number(el.dataset.decision) === d?.index));
    for (const el of this.marks.children) el.classList.toggle("current", Number(el.dataset.seq) === at);
    if (!d) return mount(this.detail);
    const where = whereShown(d.best, d.seat);
    mount(this.detail, h("div.better-move-box", { "data-decision": d.index, "data-mark": d.mark },
      h("button.link.close", { type: "button", "aria-label": t("analysis.hide"), onclick: () => { this.selected = null; this.update(this.at, this.side); } }, "×"),
      h("p", {}, markGlyph(d.mark), " ", seatSwatch(d.seat), h("strong", {}, this.head(d))),
      h("p", {}, t("analysis.played", { move: this.words(d.played, d.seq) })),
      h("p", {}, h("strong", {}, t("analysis.better", { move: this.words(d.best, d.seq) })),
        d.reason ? [" — ", h("span", { lang: "en" }, d.reason)] : null),
      moveDetails(d.best, this.board),
      where ? h("p.muted", {}, where) : null));
  }
}

// "Judged by the strong bot, 48 games played out per move": the analysis's bot by its level (its version, such as
// "strong-search 1", is the internal name: kept in the title) and its budget.
function judgeText(analysis) {
  const level = BOT_LEVELS.find((l) => (analysis.bot || "").toLowerCase().startsWith(l)) || "strong";
  const samples = analysis.budget?.samples;
  return samples ? tn("analysis.judge", samples, { bot: botName(level) }) : botName(level);
}

// ---- The graph: each seat's estimated final lead over the game

const HEIGHT = 160;
const PAD = { left: 42, right: 16, top: 12, bottom: 20 };

class LeadGraph {
  constructor(points, marked, last, ctx, go) {
    Object.assign(this, { points: [...points].sort((a, b) => a.seq - b.seq), marked, last, ctx, go });
    this.seats = [...new Set(this.points.flatMap((p) => Object.keys(p.leads || {})))].map(Number).sort((a, b) => a - b);
    const most = Math.max(0, ...this.points.flatMap((p) => Object.values(p.leads || {}).map((v) => Math.abs(v))));
    this.range = Math.max(5, Math.ceil(most / 5) * 5);
    this.at = last;
    const summaryId = "lead-graph-summary";
    this.box = h("div.graph-box", { tabindex: 0, role: "slider", "aria-label": t("analysis.graph"), "aria-describedby": summaryId,
      "aria-valuemin": 1, "aria-valuemax": last, onkeydown: (e) => this.key(e) });
    this.box.addEventListener("click", (e) => this.click(e));
    this.element = h("figure.lead-graph", {},
      h("figcaption", {}, h("strong", {}, t("analysis.graph")), " ", h("span.muted", {}, t("analysis.graph_help"))),
      this.box,
      h("ul.graph-legend", {}, this.seats.map((seat) => h("li", { "data-seat": seat }, seatSwatch(seat),
        seatName(ctx.seats[seat], ctx.seats), " ", h("strong", {}, signed(this.leadOf(this.points[this.points.length - 1], seat) ?? 0))))),
      h("p.visually-hidden", { id: summaryId }, this.summary()));
    if (window.ResizeObserver) new ResizeObserver(() => { if (this.box.clientWidth !== this.width) this.draw(); }).observe(this.box);
  }

  leadOf(point, seat) { return point?.leads?.[seat] ?? point?.leads?.[String(seat)]; }

  // Each seat's line in words: where it ends, its lowest and its highest point.
  summary() {
    if (!this.points.length) return t("analysis.no_points");
    return this.seats.map((seat) => {
      const own = this.points.filter((p) => this.leadOf(p, seat) !== undefined);
      const low = own.reduce((a, b) => (this.leadOf(b, seat) < this.leadOf(a, seat) ? b : a));
      const high = own.reduce((a, b) => (this.leadOf(b, seat) > this.leadOf(a, seat) ? b : a));
      return t("analysis.summary_seat", { who: seatName(this.ctx.seats[seat], this.ctx.seats), end: signed(this.leadOf(own[own.length - 1], seat)),
        low: signed(this.leadOf(low, seat)), low_at: low.seq, high: signed(this.leadOf(high, seat)), high_at: high.seq });
    }).join(" ");
  }

  x(seq) { return PAD.left + ((seq - 1) / Math.max(this.last - 1, 1)) * (this.width - PAD.left - PAD.right); }
  y(lead) { return PAD.top + ((this.range - lead) / (2 * this.range)) * (HEIGHT - PAD.top - PAD.bottom); }

  draw() {
    this.width = Math.max(this.box.clientWidth || 360, 200);
    const w = this.width, r = this.range;
    const grid = [r, r / 2, 0, -r / 2, -r];
    const lines = this.seats.map((seat) => {
      const own = this.points.filter((p) => this.leadOf(p, seat) !== undefined);
      const points = own.map((p) => `${this.x(p.seq).toFixed(1)},${this.y(this.leadOf(p, seat)).toFixed(1)}`).join(" ");
      const end = own[own.length - 1];
      return s("g.lead-line", { "data-seat": seat },
        s("polyline.under", { points }), s("polyline.over", { points, stroke: SEAT_FILL[seat] }),
        end ? s("g", { transform: `translate(${this.x(end.seq).toFixed(1)} ${this.y(this.leadOf(end, seat)).toFixed(1)})` },
          s("circle", { r: 6.5, fill: SEAT_FILL[seat], stroke: "#1f1d1a", "stroke-width": 1.2 }),
          s("path", { d: SEAT_MARK[seat], fill: SEAT_INK[seat], transform: "scale(.85)" })) : null);
    });
    const dots = this.marked.map((d) => {
      const point = this.points.find((p) => p.seq === d.seq);
      const lead = this.leadOf(point, d.seat);
      return lead === undefined ? null : s(`circle.graph-mark.mark-${d.mark}`, { cx: this.x(d.seq).toFixed(1), cy: this.y(lead).toFixed(1),
        r: d.mark === "blunder" ? 4.5 : 3.5, "data-seq": d.seq });
    });
    this.cursor = s("line.cursor", { y1: PAD.top - 6, y2: HEIGHT - PAD.bottom + 4 });
    this.svg = s("svg.lead-svg", { viewBox: `0 0 ${w} ${HEIGHT}`, width: w, height: HEIGHT, "aria-hidden": "true" },
      grid.map((v) => s(`line.grid${v === 0 ? ".zero" : ""}`, { x1: PAD.left, x2: w - PAD.right, y1: this.y(v), y2: this.y(v) })),
      [r, 0, -r].map((v) => s("text.axis", { x: PAD.left - 5, y: this.y(v) + 4, "text-anchor": "end",
        text: number(v, { maximumFractionDigits: 0, signDisplay: "exceptZero" }) })),
      s("text.axis", { x: PAD.left, y: HEIGHT - 4, text: "1" }),
      s("text.axis", { x: w - PAD.right, y: HEIGHT - 4, "text-anchor": "end", text: String(this.last) }),
      this.cursor, lines, dots);
    mount(this.box, this.svg);
    this.setAt(this.at);
  }

  // The lead point at or before `seq` (the estimates as they stood then).
  pointAt(seq) {
    let found = null;
    for (const p of this.points) if (p.seq <= seq) found = p;
    return found;
  }

  setAt(seq) {
    this.at = seq;
    if (this.cursor) {
      const x = this.x(Math.min(Math.max(seq, 1), this.last)).toFixed(1);
      this.cursor.setAttribute("x1", x);
      this.cursor.setAttribute("x2", x);
    }
    const point = this.pointAt(seq);
    const leads = this.seats.map((seat) => `${seatName(this.ctx.seats[seat], this.ctx.seats)} ${signed(this.leadOf(point, seat) ?? 0)}`).join(", ");
    this.box.setAttribute("aria-valuenow", seq);
    this.box.setAttribute("aria-valuetext", t("analysis.graph_value", { seq, leads }));
  }

  click(e) {
    if (!this.points.length) return;
    const rect = this.box.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const nearest = this.points.reduce((a, b) => (Math.abs(this.x(b.seq) - x) < Math.abs(this.x(a.seq) - x) ? b : a));
    this.go(nearest.seq);
  }

  // As a slider does: Right/Up the next decision, Left/Down the previous, Page Up/Down ten of them, Home/End the
  // first and the last.
  key(e) {
    const seqs = [...new Set(this.points.map((p) => p.seq))];
    if (!seqs.length) return;
    const here = seqs.filter((q) => q <= this.at).length - 1; // -1: before the first
    const back = seqs[here] === this.at ? here - 1 : here;
    const steps = { ArrowRight: here + 1, ArrowUp: here + 1, ArrowLeft: back, ArrowDown: back,
      PageUp: here + 10, PageDown: back - 9, Home: 0, End: seqs.length - 1 };
    if (!(e.key in steps)) return;
    e.preventDefault();
    this.go(seqs[Math.min(Math.max(steps[e.key], 0), seqs.length - 1)]);
  }
}

// ---- The player page: points lost per decision by map, and its trend

export function userAnalysis(user) {
  const maps = Object.entries(user.analysis || {});
  return h("section.card-box.user-analysis", {}, h("h2", {}, t("user.analysis")),
    maps.length ? [h("p.muted", {}, t("user.analysis_intro")), h("div.table-scroll", {}, h("table", {},
      h("thead", {}, h("tr", {}, [t("lobby.map"), t("analysis.mean_loss"), t("user.analysed"), t("user.trend")].map((w) => h("th", {}, w)))),
      h("tbody", {}, maps.map(([map, a]) => h("tr", { "data-map": map },
        h("th", {}, mapName(map)), h("td", { "data-mean-loss": "" }, h("strong", {}, decimal(a.mean_loss ?? 0))),
        h("td", {}, tn("games", a.games), ", ", tn("analysis.decisions_n", a.decisions)),
        h("td", {}, sparkline(a.trend || [])))))))]
      : h("p.muted", {}, t("user.no_analysis")));
}

// A small line of points lost per decision, game by game (oldest first), with its words for a screen reader.
function sparkline(trend) {
  if (!trend.length) return null;
  const W = 132, H = 34, P = 4;
  const values = trend.map((g) => g.mean_loss);
  const top = Math.max(...values, 0.5);
  const x = (i) => (trend.length > 1 ? P + (i * (W - 2 * P)) / (trend.length - 1) : W / 2);
  const y = (v) => P + (1 - v / top) * (H - 2 * P);
  const label = tn("user.trend_label", trend.length, { values: values.map(decimal).join(", ") });
  const lastAt = trend.length - 1;
  return s("svg.sparkline", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": label },
    s("title", { text: label }),
    s("line.base", { x1: P, x2: W - P, y1: H - P, y2: H - P }),
    s("polyline", { points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }),
    s("circle", { cx: x(lastAt).toFixed(1), cy: y(values[lastAt]).toFixed(1), r: 2.8 }));
}
