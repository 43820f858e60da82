// The client's entry: draws the page that the address names. Pages: / (lobby), /signin, /games/{id},
// /games/{id}/replay, /leaderboard, /users/{name}, /me (settings), /confirm-email, /unsubscribe, /tournaments and
// /tournaments/{id} (tournaments.js, tournament.js). Only the public
// API of docs/API.md is used.
import { h, mount } from "./dom.js";
import { clientSeed, get, post, session, ApiError } from "./api.js";
import { gamePage } from "./game.js";
import { replayPage } from "./replay.js";
import { startInbox } from "./inbox.js";
import { createForm, createdText, myGamesSection, queueSection } from "./lobby.js";
import { confirmEmailPage, mePage, unsubscribePage } from "./me.js";
import { tournamentsPage } from "./tournaments.js";
import { tournamentPage } from "./tournament.js";
import { botName, seatName } from "./words.js";
import { userAnalysis } from "./analysis.js";
import { LANGUAGES, chooseLanguage, date, language, loadLanguage, number, t, tParts, tn } from "./i18n.js";

const page = document.getElementById("page");

function header() {
  const who = document.getElementById("who");
  const here = encodeURIComponent(location.pathname + location.search);
  navWords();
  if (!session.user) {
    mount(who, h("a", { href: `/signin?next=${here}` }, t("nav.sign_in")));
  } else {
    mount(who, h("a", { href: `/users/${encodeURIComponent(session.user)}` }, session.user), " ",
      h("a", { href: "/me" }, t("nav.settings")), " ",
      h("button", { type: "button", onclick: logout }, t("nav.log_out")));
  }
  startInbox(document.getElementById("inbox"));
  // A token the server refused (expired, or revoked by a log-out elsewhere): say so above the page, once.
  document.querySelector(".session-notice")?.remove();
  if (session.expired && !session.user) {
    page.before(h("p.session-notice", { role: "status" },
      tParts("session.expired", { name: session.expired, signin: h("a", { href: `/signin?next=${here}` }, t("session.sign_in_again")) }),
      h("button.link", { type: "button", "aria-label": t("session.dismiss"), onclick: () => { session.forgetExpired(); header(); } }, "×")));
  }
}

// The header's fixed words (index.html's, in English) and the language selector beside them: on every page.
function navWords() {
  const nav = document.querySelector("header.top nav");
  if (!nav) return;
  const lobby = nav.querySelector(':scope > a[href="/"]');
  const board = nav.querySelector(':scope > a[href="/leaderboard"]');
  const tournaments = nav.querySelector(':scope > a[href="/tournaments"]');
  if (lobby) lobby.textContent = t("nav.lobby");
  if (board) board.textContent = t("nav.leaderboard");
  if (tournaments) tournaments.textContent = t("tournament.title");
  let holder = nav.querySelector("#language");
  if (!holder) {
    holder = h("span", { id: "language" });
    nav.append(holder);
  }
  const select = h("select", { name: "language", "aria-label": t("nav.language"), onchange: (e) => chooseLanguage(e.target.value) },
    LANGUAGES.map(([code, name]) => h("option", { value: code, lang: code, selected: code === language() }, name)));
  mount(holder, select);
}
async function logout() {
  try { await post("/auth/logout"); } catch { /* the token may have expired already */ }
  session.clear();
  location.href = "/";
}

function signinPage() {
  const error = h("p.error", { role: "alert" });
  const form = (title, action) => {
    const user = h("input", { name: "username", autocomplete: "username", required: true, minlength: 2, maxlength: 24 });
    const pass = h("input", { name: "password", type: "password", required: true,
      autocomplete: action === "register" ? "new-password" : "current-password" });
    return h(`form.card-box.${action}`, {
      onsubmit: async (e) => {
        e.preventDefault();
        error.textContent = "";
        try {
          const body = { username: user.value, password: pass.value };
          const answer = await post(action === "register" ? "/auth/register" : "/auth/token", body);
          session.set(answer.username || user.value, answer.token);
          location.href = safeNext();
        } catch (err) { error.textContent = err instanceof ApiError ? err.text : String(err); }
      },
    }, h("h2", {}, title),
    h("p", {}, h("label", {}, `${t("signin.username")} `, user)),
    h("p", {}, h("label", {}, `${t("signin.password")} `, pass)),
    h("button.primary", { type: "submit" }, title));
  };
  mount(page, h("h1", {}, t("signin.title")), error, form(t("signin.log_in"), "login"), form(t("signin.sign_up"), "register"));
}

// Where to go after signing in: a path on this site only (never another origin named in the address).
function safeNext() {
  const next = new URLSearchParams(location.search).get("next") || "/";
  return next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

function gameRow(game, turns) {
  const mine = game.seats.some((s) => s.username && s.username.toLowerCase() === (session.user || "").toLowerCase());
  const free = game.seats.some((s) => !s.username && !s.bot);
  const turn = turns.get(game.id);
  return h("tr", { "data-game": game.id },
    h("td.map", {}, h("a", { href: `/games/${game.id}` }, mapName(game.map)),  // not td.game: .game is the game page
      game.ranked ? ` · ${t("lobby.ranked")}` : "", createdText(game)),
    h("td.seats", {}, game.seats.map((s) => h("span.seat-chip", {}, `${s.seat + 1}: ${seatName(s)}`))),
    h("td.turn", {}, turn === undefined ? "" : turn),
    h("td.actions", {}, game.status === "open" && free && !mine && session.user
      ? h("button", { type: "button", onclick: () => join(game.id) }, t("lobby.join"))
      : h("a", { href: `/games/${game.id}` }, t(game.status === "finished" ? "lobby.see" : mine ? "lobby.play" : "lobby.watch")),
    game.status === "finished" ? [" · ", h("a", { href: `/games/${game.id}/replay` }, t("lobby.replay"))] : null));
}

const mapName = (map) => t(map === "usa" ? "map.usa" : "map.europe");
const isMe = (name) => Boolean(name) && name.toLowerCase() === (session.user || "").toLowerCase();

async function join(id) {
  try { await post(`/games/${id}/join`, { client_seed: clientSeed() }); location.href = `/games/${id}`; }
  catch (err) { alert(err instanceof ApiError ? err.text : String(err)); }
}

async function whoseTurn(games) {
  const turns = new Map();
  await Promise.all(games.map(async (g) => {
    try {
      const state = await get(`/games/${g.id}/state`);
      // While the tickets are chosen at the start every seat decides at once: no one seat's turn to name.
      if (state.view.phase === "setup_tickets") return turns.set(g.id, t("game.phase.setup_tickets"));
      const seat = g.seats[state.view.current_seat];
      turns.set(g.id, !seat ? "" : isMe(seat.username) && !seat.bot ? t("turn.yours") : t("turn.theirs", { name: seatName(seat) }));
    } catch { /* a game that vanished meanwhile */ }
  }));
  return turns;
}

const PAGE_SIZE = 20;
const LISTS = ["open", "active", "finished"]; // each list's title: t(`lobby.${status}`)

// The lobby: one section per status, each paged on its own (?open=2&finished=5 in the address, so the
// browser's back button and a shared link keep the pages), and "only my games" when signed in.
async function lobbyPage() {
  const params = new URLSearchParams(location.search);
  const mine = Boolean(session.user) && params.get("mine") === "1";
  const sections = LISTS.map((status) => h(`section.card-box.games-${status}`, { "aria-busy": "true" },
    h("h2", {}, t(`lobby.${status}`)), h("p.muted", {}, t("common.loading"))));
  const filter = session.user ? h("p.filter", {}, h("label", {}, h("input", {
    type: "checkbox", name: "mine", checked: mine,
    onchange: (e) => { setParam("mine", e.target.checked ? "1" : null); LISTS.forEach((st) => setParam(st, null)); lobbyPage(); },
  }), ` ${t("lobby.only_mine")}`)) : null;
  mount(page, h("h1", {}, t("lobby.title")),
    session.user ? [myGamesSection(), queueSection(), createForm()]
      : h("p.card-box", {}, tParts("lobby.sign_in_first", { signin: h("a", { href: "/signin" }, t("nav.sign_in")) })),
    filter, sections);
  await Promise.all(LISTS.map((status, i) => gamesSection(sections[i], status, t(`lobby.${status}`), mine)));
}

// Sets (or, with null, drops) one parameter of the address without a new history entry.
function setParam(name, value) {
  const url = new URL(location.href);
  if (value === null) url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  history.replaceState(null, "", url);
}

async function gamesSection(section, status, title, mine) {
  const wanted = Math.max(1, Number.parseInt(new URLSearchParams(location.search).get(status), 10) || 1);
  let list;
  try {
    list = await get(`/games?status=${status}&page=${wanted}&page_size=${PAGE_SIZE}${mine ? "&mine=1" : ""}`);
  } catch (err) {
    // Past the last page (the list shrank since the link was made): show the first page instead.
    if (err instanceof ApiError && err.status === 404 && wanted > 1) {
      setParam(status, null);
      return gamesSection(section, status, title, mine);
    }
    throw err;
  }
  const turns = status === "active" ? await whoseTurn(list.results) : new Map();
  const pager = pagerFor(list, wanted, t("pager.label", { title }), [t("pager.newer"), t("pager.older")], async (n) => {
    setParam(status, String(n));
    section.setAttribute("aria-busy", "true");
    await gamesSection(section, status, title, mine);
    return section;
  });
  mount(section, h("h2", {}, `${title} (${number(list.count)})`),
    list.results.length ? h("div.table-scroll", {}, h("table.games-table", {},
      h("thead", {}, h("tr", {}, h("th", {}, t("lobby.game")), h("th", {}, t("lobby.seats")), h("th", {}, t("lobby.turn")),
        h("th", {}, h("span.visually-hidden", {}, t("lobby.actions"))))),
      h("tbody", {}, list.results.map((g) => gameRow(g, turns))))) : h("p.muted", {}, t("lobby.none")),
    pager);
  section.setAttribute("aria-busy", "false");
}

// "‹ Newer · Page 2 of 5 · Older ›" under a paged list (the API's count, next and previous); `go(n)` draws page
// n and answers the element now holding the pager, where the focus stays on the button pressed (or its twin
// when that one is disabled at the end of the list).
function pagerFor(list, at, label, [back, on], go) {
  if (!list.next && !list.previous) return null;
  const pages = Math.max(1, Math.ceil(list.count / PAGE_SIZE));
  const press = (n, which) => async () => {
    const holder = await go(n);
    const same = holder.querySelector(`.pager [data-page="${which}"]:enabled`);
    (same || holder.querySelector(".pager button:enabled"))?.focus();
  };
  return h("nav.pager", { "aria-label": label },
    h("button", { type: "button", "data-page": "previous", disabled: !list.previous, onclick: press(at - 1, "previous") }, back),
    h("span", { "aria-live": "polite" }, t("pager.page", { at: number(at), pages: number(pages) })),
    h("button", { type: "button", "data-page": "next", disabled: !list.next, onclick: press(at + 1, "next") }, on));
}

async function leaderboardPage() {
  const params = new URLSearchParams(location.search);
  const map = params.get("map") === "usa" ? "usa" : "europe";
  const at = Math.max(1, Number.parseInt(params.get("page"), 10) || 1);
  let board;
  try {
    board = await get(`/leaderboard?map=${map}&page=${at}&page_size=${PAGE_SIZE}`);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404 && at > 1)) throw err;
    setParam("page", null); // past the last page: the first instead
    return leaderboardPage();
  }
  const pager = pagerFor(board, at, t("leaderboard.pages"), [t("leaderboard.higher"), t("leaderboard.lower")], async (n) => {
    setParam("page", String(n));
    await leaderboardPage();
    return page;
  });
  mount(page, h("h1", {}, t("leaderboard.title", { map: mapName(map) })),
    h("p", {}, h("a", { href: "/leaderboard?map=europe", "aria-current": map === "europe" ? "page" : null }, t("map.europe")), " · ",
      h("a", { href: "/leaderboard?map=usa", "aria-current": map === "usa" ? "page" : null }, t("map.usa"))),
    board.results.length ? null : h("p.muted", {}, t("leaderboard.empty")),
    // Five columns, the rating's μ ± σ under it: the table fits a phone in every language
    board.results.length ? h("div.table-scroll.card-box", {}, h("table.leaderboard", {}, h("thead", {}, h("tr", {},
      ["#", t("leaderboard.player"), t("leaderboard.rating"), t("leaderboard.games"), t("leaderboard.wins")].map((w) => h("th", {}, w)))),
      h("tbody", {}, board.results.map((r, i) => h("tr", {},
        h("td", {}, number((at - 1) * PAGE_SIZE + i + 1)),
        h("td", {}, h("a", { href: `/users/${encodeURIComponent(r.username)}` }, r.bot ? botName(r.bot) : r.username), r.provisional ? ` (${t("leaderboard.provisional")})` : ""),
        h("td", {}, decimal(r.rating), h("span.spread", {}, `μ ${decimal(r.mu)} ± σ ${decimal(r.sigma)}`)),
        h("td", {}, number(r.games)), h("td", {}, number(r.wins))))))) : null, pager);
}

const decimal = (x) => number(x, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

async function userPage(name) {
  const user = await get(`/users/${encodeURIComponent(name)}`);
  mount(page, h("h1", {}, user.username, user.bot ? ` (${botName(user.bot)})` : ""),
    h("section.card-box", {}, h("h2", {}, t("user.ratings")),
      Object.keys(user.ratings).length ? h("table", {}, h("tbody", {}, Object.entries(user.ratings).map(([map, r]) => h("tr", {},
        h("th", {}, mapName(map)), h("td", {}, `${decimal(r.rating)} (μ ${decimal(r.mu)} ± σ ${decimal(r.sigma)})`),
        h("td", {}, `${tn("games", r.games)}, ${tn("wins", r.wins)}`, r.provisional ? `, ${t("leaderboard.provisional")}` : ""))))) : h("p.muted", {}, t("user.no_rating"))),
    user.bot && !Object.keys(user.analysis || {}).length ? null : userAnalysis(user), // a bot's only once it has some
    h("section.card-box", {}, h("h2", {}, t("user.history")),
      h("table", {}, h("tbody", {}, user.history.map((e) => h("tr", {},
        h("td", {}, date(e.at)), h("td", {}, e.game ? h("a", { href: `/games/${e.game}` }, mapName(e.map)) : mapName(e.map)), // null: a private game
        h("td", {}, t("user.place", { place: number(e.place) })), h("td", {}, `${decimal(e.before)} → ${decimal(e.after)}`)))))),
    h("section.card-box", {}, h("h2", {}, t("user.recent")),
      h("ul", {}, user.recent_games.map((g) => h("li", {}, h("a", { href: `/games/${g.id}` }, `${mapName(g.map)} (${t(`status.${g.status}`)})`), " ",
        g.seats.map((s) => seatName(s)).join(", "))))));
}

// Each page's title (its catalogue key), by its address; the lobby's otherwise.
const TITLES = [[/^\/signin$/, "page.sign_in"], [/^\/leaderboard$/, "page.leaderboard"], [/^\/users\//, "page.player"],
  [/\/replay$/, "page.replay"], [/^\/games\//, "page.game"], [/^\/me$/, "page.settings"], [/^\/confirm-email$/, "page.email"],
  [/^\/unsubscribe$/, "page.unsubscribe"], [/^\/tournaments$/, "tournament.title"], [/^\/tournaments\//, "tournament.page"]];

async function route() {
  header();
  const path = location.pathname;
  const title = t((TITLES.find(([re]) => re.test(path)) || [null, "page.lobby"])[1]);
  document.title = `${title} · Ticket to Ride`;
  let m;
  try {
    if (path === "/signin") return signinPage();
    if (path === "/leaderboard") return await leaderboardPage();
    if (path === "/me") return await mePage(page);
    if (path === "/confirm-email") return await confirmEmailPage(page);
    if (path === "/unsubscribe") return await unsubscribePage(page);
    if (path === "/tournaments") return await tournamentsPage(page);
    if ((m = path.match(/^\/tournaments\/([0-9a-f-]{36})$/))) return await tournamentPage(page, m[1]);
    if ((m = path.match(/^\/users\/([^/]+)$/))) return await userPage(decodeURIComponent(m[1]));
    if ((m = path.match(/^\/games\/([0-9a-f-]{36})\/replay$/))) return await replayPage(page, m[1]);
    if ((m = path.match(/^\/games\/([0-9a-f-]{36})$/))) return await gamePage(page, m[1]);
    return await lobbyPage();
  } catch (err) {
    mount(page, h("h1", {}, title), h("p.error", { role: "alert" }, problemText(err, path)),
      h("p", {}, h("a", { href: "/" }, t("error.back_to_lobby"))));
    if (!(err instanceof ApiError)) throw err;
  }
}

// What the page says when it cannot be drawn: plain words for the cases a person meets.
function problemText(err, path) {
  if (!(err instanceof ApiError)) return t("error.something", { message: err.message || err });
  if (err.status === 404 && path.startsWith("/games/")) return t("error.no_game");
  if (err.status === 404 && path.startsWith("/users/")) return t("error.no_player");
  if (err.status === 404 && path.startsWith("/tournaments/")) return t("tournament.no_tournament");
  return err.text;
}

await loadLanguage(); // the catalogue before the first word is drawn (i18n.js)
// Only now: a stored token refused while the language was read (GET /api/me) fires ttr:session, and a header drawn
// then, before the catalogue, would show its message keys (route() draws it once the words are there).
window.addEventListener("ttr:session", header);
for (const element of document.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n); // index.html's own
route();
