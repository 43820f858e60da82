// The client's entry: draws the page that the address names. Pages: / (lobby), /signin, /games/{id},
// /games/{id}/replay, /leaderboard, /users/{name}, /me (settings), /confirm-email, /unsubscribe. Only the public
// API of docs/API.md is used.
import { h, mount } from "./dom.js";
import { clientSeed, get, post, session, ApiError } from "./api.js";
import { gamePage } from "./game.js";
import { replayPage } from "./replay.js";
import { startInbox } from "./inbox.js";
import { createForm, myGamesSection, queueSection } from "./lobby.js";
import { confirmEmailPage, mePage, unsubscribePage } from "./me.js";
import { seatName } from "./words.js";

const page = document.getElementById("page");

function header() {
  const who = document.getElementById("who");
  const here = encodeURIComponent(location.pathname + location.search);
  if (!session.user) {
    mount(who, h("a", { href: `/signin?next=${here}` }, "Sign in"));
  } else {
    mount(who, h("a", { href: `/users/${encodeURIComponent(session.user)}` }, session.user), " ",
      h("a", { href: "/me" }, "Settings"), " ",
      h("button", { type: "button", onclick: logout }, "Log out"));
  }
  startInbox(document.getElementById("inbox"));
  // A token the server refused (expired, or revoked by a log-out elsewhere): say so above the page, once.
  document.querySelector(".session-notice")?.remove();
  if (session.expired && !session.user) {
    page.before(h("p.session-notice", { role: "status" },
      `Your session as ${session.expired} has expired, so this page is shown as to anyone. `,
      h("a", { href: `/signin?next=${here}` }, "Sign in again"), " to play.",
      h("button.link", { type: "button", "aria-label": "Dismiss", onclick: () => { session.forgetExpired(); header(); } }, "×")));
  }
}
window.addEventListener("ttr:session", header);

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
    h("p", {}, h("label", {}, "Username ", user)),
    h("p", {}, h("label", {}, "Password ", pass)),
    h("button.primary", { type: "submit" }, title));
  };
  mount(page, h("h1", {}, "Sign in"), error, form("Log in", "login"), form("Sign up", "register"));
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
    h("td", {}, h("a", { href: `/games/${game.id}` }, `${game.map === "usa" ? "USA" : "Europe"}`),
      game.ranked ? " · ranked" : ""),
    h("td", {}, game.seats.map((s) => h("span.seat-chip", {}, `${s.seat + 1}: ${seatName(s)}`))),
    h("td", {}, turn === undefined ? "" : turn),
    h("td", {}, game.status === "open" && free && !mine && session.user
      ? h("button", { type: "button", onclick: () => join(game.id) }, "Join")
      : h("a", { href: `/games/${game.id}` }, game.status === "finished" ? "See" : mine ? "Play" : "Watch"),
    game.status === "finished" ? [" · ", h("a", { href: `/games/${game.id}/replay` }, "Replay")] : null));
}

async function join(id) {
  try { await post(`/games/${id}/join`, { client_seed: clientSeed() }); location.href = `/games/${id}`; }
  catch (err) { alert(err instanceof ApiError ? err.text : String(err)); }
}

async function whoseTurn(games) {
  const turns = new Map();
  await Promise.all(games.map(async (g) => {
    try {
      const state = await get(`/games/${g.id}/state`);
      const seat = g.seats[state.view.current_seat];
      turns.set(g.id, seat ? `${seatName(seat)} to play` : "");
    } catch { /* a game that vanished meanwhile */ }
  }));
  return turns;
}

const PAGE_SIZE = 20;
const LISTS = [["open", "Open games"], ["active", "Being played"], ["finished", "Finished"]];

// The lobby: one section per status, each paged on its own (?open=2&finished=5 in the address, so the
// browser's back button and a shared link keep the pages), and "only my games" when signed in.
async function lobbyPage() {
  const params = new URLSearchParams(location.search);
  const mine = Boolean(session.user) && params.get("mine") === "1";
  const sections = LISTS.map(([status, title]) => h(`section.card-box.games-${status}`, { "aria-busy": "true" },
    h("h2", {}, title), h("p.muted", {}, "Loading…")));
  const filter = session.user ? h("p.filter", {}, h("label", {}, h("input", {
    type: "checkbox", name: "mine", checked: mine,
    onchange: (e) => { setParam("mine", e.target.checked ? "1" : null); LISTS.forEach(([st]) => setParam(st, null)); lobbyPage(); },
  }), " Only games I am seated in")) : null;
  mount(page, h("h1", {}, "Lobby"),
    session.user ? [myGamesSection(), queueSection(), createForm()]
      : h("p.card-box", {}, h("a", { href: "/signin" }, "Sign in"), " to create or join a game."),
    filter, sections);
  await Promise.all(LISTS.map(([status, title], i) => gamesSection(sections[i], status, title, mine)));
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
  const pager = pagerFor(list, wanted, `${title}: pages`, ["‹ Newer", "Older ›"], async (n) => {
    setParam(status, String(n));
    section.setAttribute("aria-busy", "true");
    await gamesSection(section, status, title, mine);
    return section;
  });
  mount(section, h("h2", {}, `${title} (${list.count})`),
    list.results.length ? h("div.table-scroll", {}, h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Seats"), h("th", {}, "Turn"), h("th", {}, h("span.visually-hidden", {}, "Actions")))),
      h("tbody", {}, list.results.map((g) => gameRow(g, turns))))) : h("p.muted", {}, "None."),
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
    h("span", { "aria-live": "polite" }, `Page ${at} of ${pages}`),
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
  const pager = pagerFor(board, at, "Leaderboard pages", ["‹ Higher", "Lower ›"], async (n) => {
    setParam("page", String(n));
    await leaderboardPage();
    return page;
  });
  mount(page, h("h1", {}, `Leaderboard: ${map === "usa" ? "USA" : "Europe"}`),
    h("p", {}, h("a", { href: "/leaderboard?map=europe", "aria-current": map === "europe" ? "page" : null }, "Europe"), " · ",
      h("a", { href: "/leaderboard?map=usa", "aria-current": map === "usa" ? "page" : null }, "USA")),
    board.results.length ? null : h("p.muted", {}, "Nobody has played a ranked game on this map yet."),
    h("div.table-scroll.card-box", {}, h("table", {}, h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "μ ± σ", "Games", "Wins"].map((t) => h("th", {}, t)))),
      h("tbody", {}, board.results.map((r, i) => h("tr", {},
        h("td", {}, (at - 1) * PAGE_SIZE + i + 1),
        h("td", {}, h("a", { href: `/users/${encodeURIComponent(r.username)}` }, r.username), r.provisional ? " (provisional)" : ""),
        h("td", {}, r.rating.toFixed(1)), h("td", {}, `${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`),
        h("td", {}, r.games), h("td", {}, r.wins)))))), pager);
}

async function userPage(name) {
  const user = await get(`/users/${encodeURIComponent(name)}`);
  mount(page, h("h1", {}, user.username, user.bot ? ` (${user.bot} bot)` : ""),
    h("section.card-box", {}, h("h2", {}, "Ratings"),
      Object.keys(user.ratings).length ? h("table", {}, h("tbody", {}, Object.entries(user.ratings).map(([map, r]) => h("tr", {},
        h("th", {}, map), h("td", {}, `${r.rating.toFixed(1)} (μ ${r.mu.toFixed(1)} ± σ ${r.sigma.toFixed(1)})`),
        h("td", {}, `${r.games} games, ${r.wins} wins`, r.provisional ? ", provisional" : ""))))) : h("p.muted", {}, "No rated game yet.")),
    h("section.card-box", {}, h("h2", {}, "History"),
      h("table", {}, h("tbody", {}, user.history.map((e) => h("tr", {},
        h("td", {}, new Date(e.at).toLocaleString()), h("td", {}, h("a", { href: `/games/${e.game}` }, e.map)),
        h("td", {}, `place ${e.place}`), h("td", {}, `${e.before.toFixed(1)} → ${e.after.toFixed(1)}`)))))),
    h("section.card-box", {}, h("h2", {}, "Recent games"),
      h("ul", {}, user.recent_games.map((g) => h("li", {}, h("a", { href: `/games/${g.id}` }, `${g.map} (${g.status})`), " ",
        g.seats.map((s) => seatName(s)).join(", "))))));
}

const TITLES = [[/^\/signin$/, "Sign in"], [/^\/leaderboard$/, "Leaderboard"], [/^\/users\//, "Player"],
  [/\/replay$/, "Replay"], [/^\/games\//, "Game"], [/^\/me$/, "Settings"], [/^\/confirm-email$/, "E-mail address"],
  [/^\/unsubscribe$/, "Unsubscribe"]];

async function route() {
  header();
  const path = location.pathname;
  const title = (TITLES.find(([re]) => re.test(path)) || [null, "Lobby"])[1];
  document.title = `${title} · Ticket to Ride`;
  let m;
  try {
    if (path === "/signin") return signinPage();
    if (path === "/leaderboard") return await leaderboardPage();
    if (path === "/me") return await mePage(page);
    if (path === "/confirm-email") return await confirmEmailPage(page);
    if (path === "/unsubscribe") return await unsubscribePage(page);
    if ((m = path.match(/^\/users\/([^/]+)$/))) return await userPage(decodeURIComponent(m[1]));
    if ((m = path.match(/^\/games\/([0-9a-f-]{36})\/replay$/))) return await replayPage(page, m[1]);
    if ((m = path.match(/^\/games\/([0-9a-f-]{36})$/))) return await gamePage(page, m[1]);
    return await lobbyPage();
  } catch (err) {
    mount(page, h("h1", {}, title), h("p.error", { role: "alert" }, problemText(err, path)),
      h("p", {}, h("a", { href: "/" }, "Back to the lobby")));
    if (!(err instanceof ApiError)) throw err;
  }
}

// What the page says when it cannot be drawn: plain words for the cases a person meets.
function problemText(err, path) {
  if (!(err instanceof ApiError)) return `Something went wrong: ${err.message || err}`;
  if (err.status === 404 && path.startsWith("/games/")) return "There is no game at this address.";
  if (err.status === 404 && path.startsWith("/users/")) return "There is no player by this name.";
  return err.text;
}

route();
