// The tournaments' list (/tournaments: GET /api/tournaments?status=…): the upcoming ones, soonest first, each with a
// countdown to its start that ticks by the second; the running ones with their leaders (the top three of each one's
// standings, read from its own page of the API); the finished ones with their winners. Signed in, the form that
// creates one (POST /api/tournaments): name, format (Swiss: rounds; arena: minutes), map, players at a table and
// whether smaller tables may form, speed (live: a turn's time; daily: days a move), the start (the browser's local
// time, 5 minutes ahead by default), most players, ranked, bots filling the tables, private. A refusal names the
// field it is about ({"field"} in the error): its words go under that field, which is marked invalid.
//
// The words shared with the tournament's own page (tournament.js) live here too: a tournament's facts in a line,
// its countdowns, and a refusal in the reader's words.
import { h, mount } from "./dom.js";
import { get, post, session, ApiError, errorText } from "./api.js";
import { botName, durationText, listText, mapName, timeLeftText } from "./words.js";
import { date, number, t, tParts, tn } from "./i18n.js";

const PAGE_SIZE = 20;
const LISTS = ["upcoming", "running", "finished"]; // each list's title: t(`tournament.list.${status}`)
const LEADERS = 3;
const START_DELAY_MS = 5 * 60 * 1000; // the form's start: 5 minutes from now
const RETRY_MS = 3000, RETRIES = 20; // a start passed: the lists read again every 3 s while it has not begun

// ---- words shared with tournament.js

// "Swiss · Europe · tables of 4 (smaller too) · live, 1 min a move · 5 rounds": what kind of tournament it is.
export function factsText(tour) {
  const tables = tour.smaller_tables ? tn("tournament.tables_up_to", tour.table_size) : tn("tournament.tables_of", tour.table_size);
  const speed = tour.speed === "daily" ? tn("lobby.daily_speed", tour.days_per_move || 1)
    : tour.turn_seconds ? t("lobby.live_speed", { time: durationText(tour.turn_seconds) }) : t("lobby.live_no_clock");
  const length = tour.format === "swiss" ? (tour.rounds ? tn("tournament.rounds_n", tour.rounds) : null)
    : tour.minutes ? durationText(tour.minutes * 60) : null;
  return [t(`tournament.format.${tour.format}`), mapName(tour.map), tables, speed, length,
    tour.ranked ? t("lobby.ranked") : t("lobby.unranked"), tour.bots_fill ? t("tournament.with_bots") : null,
    tour.private ? t("game.private") : null].filter(Boolean).join(" · ");
}

// "7 players", "7 of 16 players".
export const playersText = (tour) => (tour.max_players
  ? tn("tournament.players_of", tour.max_players, { players: number(tour.players) }) : tn("tournament.players_n", tour.players));

// A seat of a table: a person's name, or a bot's ("bot:greedy") in the reader's words.
export const seatText = (seat) => (String(seat).startsWith("bot:") ? botName(String(seat).slice(4)) : seat);

// A countdown to `at` ("starts in 4:59"), told again each second by tickCountdowns; `key` holds {time}, `done`
// says what it is once the moment has passed ("starting…").
export function countdown(at, key, done) {
  return h("span.countdown", { "data-until": at, "data-key": key, "data-done": done }, countdownText(at, key, done));
}

function countdownText(at, key, done) {
  return new Date(at).getTime() > Date.now() ? t(key, { time: timeLeftText(at) }) : t(done);
}

// Every countdown of the page told again, once a second while the page lives; `passed()` is called when one of them
// reaches its moment (the page reads what happened then).
export function tickCountdowns(root, passed = () => {}) {
  const timer = setInterval(() => {
    if (!root.isConnected) return clearInterval(timer);
    for (const el of root.querySelectorAll("[data-until]")) {
      const text = countdownText(el.dataset.until, el.dataset.key, el.dataset.done);
      if (el.textContent === text) continue;
      const over = new Date(el.dataset.until).getTime() <= Date.now();
      el.textContent = text;
      if (over && !el.dataset.over) {
        el.dataset.over = "1";
        passed(el);
      }
    }
  }, 1000);
  return timer;
}

// The refusals of the tournaments' API in the reader's words (tournament.code.<code>), others as api.js tells them.
const CODES = ["started", "full", "already_joined", "finished", "not_joined"];
export const refusalText = (err) => (err instanceof ApiError && CODES.includes(err.body.code) ? t(`tournament.code.${err.body.code}`) : errorText(err));

// ---- the list page
export async function tournamentsPage(page) {
  const sections = LISTS.map((status) => h(`section.card-box.tournaments-${status}`, { "aria-busy": "true" },
    h("h2", {}, t(`tournament.list.${status}`)), h("p.muted", {}, t("common.loading"))));
  mount(page, h("h1", {}, t("tournament.title")),
    session.user ? h("p.tour-create-link", {}, h("a", { href: "#create" }, t("tournament.create_title")))
      : h("p.card-box", {}, tParts("tournament.sign_in_first", { signin: h("a", { href: "/signin?next=%2Ftournaments" }, t("nav.sign_in")) })),
    // On a wide screen the lists and the form side by side (tournament.css)
    h("div.tour-columns", {}, h("div.tour-lists", {}, sections), session.user ? createForm() : null));
  // A start passed: the upcoming and running lists are read again a little later (the server's periodic task starts
  // it within seconds), and again while an upcoming one's start is past, for a minute or so.
  let timer = null, tries = 0;
  const reread = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (!page.isConnected) return;
      await Promise.all([0, 1].map((i) => listSection(sections[i], LISTS[i], 1)));
      const late = [...sections[0].querySelectorAll("[data-until]")].some((el) => new Date(el.dataset.until) <= Date.now());
      if (late && ++tries < RETRIES) reread();
    }, RETRY_MS);
  };
  tickCountdowns(page, () => { tries = 0; reread(); });
  await Promise.all(LISTS.map((status, i) => listSection(sections[i], status, 1)));
}

async function listSection(section, status, at) {
  section.setAttribute("aria-busy", "true");
  let list;
  try {
    list = await get(`/tournaments?status=${status}&page=${at}&page_size=${PAGE_SIZE}`);
  } catch (err) {
    section.setAttribute("aria-busy", "false");
    return mount(section, h("h2", {}, t(`tournament.list.${status}`)), h("p.error", { role: "alert" }, errorText(err)));
  }
  const leaders = status === "running" ? await leadersOf(list.results) : new Map();
  mount(section, h("h2", {}, `${t(`tournament.list.${status}`)} (${number(list.count)})`),
    list.results.length ? h("ul.tour-list", {}, list.results.map((tour) => tourItem(tour, leaders.get(tour.id))))
      : h("p.muted", {}, t("tournament.none")),
    pager(list, at, t(`tournament.list.${status}`), (n) => listSection(section, status, n)));
  section.setAttribute("aria-busy", "false");
}

// The top of each running tournament's standings (the list's rows hold none): its own page of the API, read side by side.
async function leadersOf(tours) {
  const found = new Map();
  await Promise.all(tours.map(async (tour) => {
    try { found.set(tour.id, (await get(`/tournaments/${tour.id}`)).standings.slice(0, LEADERS)); }
    catch { /* gone meanwhile: no leaders to show */ }
  }));
  return found;
}

function tourItem(tour, leaders) {
  const when = tour.status === "upcoming"
    ? [date(tour.starts_at), " · ", countdown(tour.starts_at, "tournament.starts_in", "tournament.starting")]
    : tour.status === "running"
      ? (leaders?.length ? t("tournament.leaders", { names: listText(leaders.map((s) => `${seatText(s.username)} (${number(s.points, { maximumFractionDigits: 2 })})`)) }) : playersText(tour))
      : tour.winners?.length ? t("tournament.winners", { names: listText(tour.winners) }) : t("tournament.no_winners");
  return h("li", { "data-tournament": tour.id, "data-status": tour.status },
    h("div.tour-head", {}, h("a.tour-name", { href: `/tournaments/${tour.id}` }, tour.name),
      tour.featured ? h("span.tour-featured", {}, t("tournament.featured")) : null,
      tour.joined && !tour.withdrawn && tour.status !== "finished" ? h("span.tour-joined", {}, t("tournament.joined_chip")) : null),
    h("div.tour-facts.muted", {}, factsText(tour)),
    h("div.tour-when", {}, when, tour.status === "finished" ? null : h("span.muted", {}, ` · ${playersText(tour)}`)));
}

// "‹ Newer · Page 2 of 5 · Older ›" under a list that holds more than one page.
function pager(list, at, title, go) {
  if (!list.next && !list.previous) return null;
  const pages = Math.max(1, Math.ceil(list.count / PAGE_SIZE));
  return h("nav.pager", { "aria-label": t("pager.label", { title }) },
    h("button", { type: "button", disabled: !list.previous, onclick: () => go(at - 1) }, t("pager.newer")),
    h("span", { "aria-live": "polite" }, t("pager.page", { at: number(at), pages: number(pages) })),
    h("button", { type: "button", disabled: !list.next, onclick: () => go(at + 1) }, t("pager.older")));
}

// ---- the form

// "2026-03-04T14:05" in the browser's own time zone, as <input type=datetime-local> holds it.
function localInput(at) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

// A field of the form: its label, the control, and the place its refusal goes (tied by aria-describedby).
function field(name, label, control, { row = false, hint = null } = {}) {
  const error = h("span.field-error", { id: `tour-${name}-error`, "data-field": name });
  const hintEl = hint ? h("span.field-hint.muted", { id: `tour-${name}-hint` }, hint) : null;
  control.id = `tour-${name}`;
  control.setAttribute("aria-describedby", [hintEl ? hintEl.id : null, error.id].filter(Boolean).join(" "));
  const wrap = h(`div.tour-field${row ? ".row" : ""}`, { "data-name": name },
    row ? h("label", { for: control.id }, control, ` ${label}`) : [h("label", { for: control.id }, label), control], hintEl, error);
  return { wrap, control, error };
}

export function createForm() {
  const general = h("p.error", { role: "alert" });
  const select = (name, options) => h("select", { name }, options.map(([value, words, selected]) => h("option", { value, selected }, words)));
  const fields = {
    name: field("name", t("tournament.name"), h("input", { name: "name", required: true, minlength: 3, maxlength: 80, autocomplete: "off" })),
    format: field("format", t("tournament.format"), select("format", [["swiss", t("tournament.format.swiss")], ["arena", t("tournament.format.arena")]])),
    map: field("map", t("lobby.map"), select("map", [["europe", t("map.europe")], ["usa", t("map.usa")]])),
    table_size: field("table_size", t("tournament.table_size"), select("table_size", [2, 3, 4, 5].map((n) => [n, number(n), n === 4]))),
    smaller_tables: field("smaller_tables", t("tournament.smaller_tables"), h("input", { type: "checkbox", name: "smaller_tables", checked: true }), { row: true }),
    speed: field("speed", t("lobby.speed"), select("speed", [["live", t("lobby.speed.live")], ["daily", t("lobby.speed.daily")]])),
    turn_seconds: field("turn_seconds", t("lobby.turn_time"), select("turn_seconds", [30, 60, 120, 300].map((s) => [s, durationText(s), s === 60]))),
    days_per_move: field("days_per_move", t("lobby.days_per_move"), select("days_per_move", [1, 2, 3, 5, 7].map((n) => [n, tn("log.dur.days", n), n === 1]))),
    rounds: field("rounds", t("tournament.rounds"), h("input", { type: "number", name: "rounds", min: 1, max: 15, value: 5, required: true })),
    minutes: field("minutes", t("tournament.minutes"), h("input", { type: "number", name: "minutes", min: 10, max: 1440, value: 60, required: true })),
    starts_at: field("starts_at", t("tournament.starts_at"), h("input", { type: "datetime-local", name: "starts_at", required: true,
      value: localInput(new Date(Date.now() + START_DELAY_MS)), min: localInput(new Date()) })),
    max_players: field("max_players", t("tournament.max_players"), h("input", { type: "number", name: "max_players", min: 2, max: 1000 }),
      { hint: t("tournament.max_players_hint") }),
    ranked: field("ranked", t("lobby.ranked_label"), h("input", { type: "checkbox", name: "ranked" }), { row: true }),
    bots_fill: field("bots_fill", t("tournament.bots_fill"), h("input", { type: "checkbox", name: "bots_fill", checked: true }), { row: true }),
    private: field("private", t("lobby.private"), h("input", { type: "checkbox", name: "private" }), { row: true }),
  };
  const c = (name) => fields[name].control;
  const help = h("p.muted.tour-format-help", { id: "tour-format-help" });
  const show = () => {
    const swiss = c("format").value === "swiss", live = c("speed").value === "live";
    fields.rounds.wrap.hidden = !swiss;
    fields.minutes.wrap.hidden = swiss;
    fields.turn_seconds.wrap.hidden = !live;
    fields.days_per_move.wrap.hidden = live;
    c("rounds").disabled = !swiss; // a hidden field is neither checked nor sent
    c("minutes").disabled = swiss;
    help.textContent = t(`tournament.format_help.${c("format").value}`);
  };
  c("format").addEventListener("change", show);
  c("speed").addEventListener("change", show);
  show();
  const clear = () => {
    general.textContent = "";
    for (const f of Object.values(fields)) {
      f.error.textContent = "";
      f.control.removeAttribute("aria-invalid");
    }
  };
  const submit = async (e) => {
    e.preventDefault();
    clear();
    const swiss = c("format").value === "swiss", live = c("speed").value === "live";
    const start = new Date(c("starts_at").value);
    if (Number.isNaN(start.getTime())) return refuse(fields.starts_at, t("tournament.bad_start"));
    const body = {
      name: c("name").value.trim(), format: c("format").value, map: c("map").value, table_size: Number(c("table_size").value),
      smaller_tables: c("smaller_tables").checked, speed: c("speed").value,
      ...(live ? { turn_seconds: Number(c("turn_seconds").value) } : { days_per_move: Number(c("days_per_move").value) }),
      ...(swiss ? { rounds: Number(c("rounds").value) } : { minutes: Number(c("minutes").value) }),
      starts_at: start.toISOString(), ranked: c("ranked").checked, bots_fill: c("bots_fill").checked, private: c("private").checked,
    };
    if (c("max_players").value) body.max_players = Number(c("max_players").value);
    const button = e.submitter || form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const tour = await post("/tournaments", body);
      location.href = `/tournaments/${tour.id}`;
    } catch (err) {
      button.disabled = false;
      refused(err);
    }
  };
  const refuse = (f, words, focus = true) => {
    f.error.textContent = words;
    f.control.setAttribute("aria-invalid", "true");
    if (focus) f.control.focus();
  };
  // Each field's own words under it ({"fields": {name: words}}, or the one "field"), the first one focused; what
  // names no field of the form is said under it.
  const refused = (err) => {
    const body = err instanceof ApiError ? err.body : {};
    const named = body.fields && typeof body.fields === "object" ? body.fields : body.field ? { [body.field]: body.detail } : {};
    let first = true;
    for (const [name, words] of Object.entries(named)) {
      const where = fields[name];
      if (!where || where.wrap.hidden) continue;
      refuse(where, new ApiError(err.status, { ...body, detail: words }).text, first);
      first = false;
    }
    if (first) general.textContent = errorText(err);
  };
  c("format").setAttribute("aria-describedby", `${c("format").getAttribute("aria-describedby")} ${help.id}`);
  const form = h("form.card-box.tour-form", { id: "create", "aria-labelledby": "create-title", onsubmit: submit },
    h("h2", { id: "create-title" }, t("tournament.create_title")),
    h("div.tour-fields", {}, fields.name.wrap, fields.format.wrap, help, fields.rounds.wrap, fields.minutes.wrap, fields.map.wrap,
      fields.table_size.wrap, fields.smaller_tables.wrap, fields.speed.wrap, fields.turn_seconds.wrap, fields.days_per_move.wrap,
      fields.starts_at.wrap, fields.max_players.wrap, fields.ranked.wrap, fields.bots_fill.wrap, fields.private.wrap),
    general, h("button.primary", { type: "submit", "data-action": "create-tournament" }, t("tournament.create")));
  return form;
}
