// The client's entry: draws the page that the address names. Pages: / (lobby), /signin, /games/{id},
// /games/{id}/replay, /leaderboard, /users/{name}. Only the public API of ../shared/API.md is used.
import { h, mount } from "./dom.js";
import { get, post, session, ApiError } from "./api.js";
import { gamePage } from "./game.js";
import { replayPage } from "./replay.js";
import { seatName } from "./words.js";

const page = document.getElementById("page");

function header() {
  const who = document.getElementById("who");
  if (!session.user) return mount(who, h("a", { href: "/signin" }, "Sign in"));
  mount(who, h("a", { href: `/users/${encodeURIComponent(session.user)}` }, session.user), " ",
    h("button", { type: "button", onclick: logout }, "Log out"));
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
          location.href = new URLSearchParams(location.search).get("next") || "/";
        } catch (err) { error.textContent = err instanceof ApiError ? err.text : String(err); }
      },
    }, h("h2", {}, title),
    h("p", {}, h("label", {}, "Username ", user)),
    h("p", {}, h("label", {}, "Password ", pass)),
    h("button.primary", { type: "submit" }, title));
  };
  mount(page, h("h1", {}, "Sign in"), error, form("Log in", "login"), form("Sign up", "register"));
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
  try { await post(`/games/${id}/join`); location.href = `/games/${id}`; }
  catch (err) { alert(err instanceof ApiError ? err.text : String(err)); }
}

function createForm() {
  const error = h("p.error", { role: "alert" });
  const map = h("select", { name: "map" }, h("option", { value: "europe" }, "Europe"), h("option", { value: "usa" }, "USA"));
  const players = h("select", { name: "players" }, [2, 3, 4, 5].map((n) => h("option", { value: n, selected: n === 4 }, n)));
  const ranked = h("input", { type: "checkbox", name: "ranked" });
  const clock = h("select", { name: "turn_seconds" },
    h("option", { value: "" }, "no clock"), h("option", { value: "60" }, "1 minute"),
    h("option", { value: "300" }, "5 minutes"), h("option", { value: "86400" }, "1 day"));
  return h("form.card-box.inline.create", {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        const game = await post("/games", {
          map: map.value, players: Number(players.value), ranked: ranked.checked,
          turn_seconds: clock.value ? Number(clock.value) : null,
        });
        location.href = `/games/${game.id}`;
      } catch (err) { error.textContent = err instanceof ApiError ? err.text : String(err); }
    },
  }, h("h2", { style: "width:100%" }, "New game"),
  h("label", {}, "Map", map), h("label", {}, "Players", players),
  h("label", {}, "Turn time", clock), h("label", {}, h("span", {}, "Ranked"), ranked),
  h("button.primary", { type: "submit" }, "Create game"), error);
}

async function whoseTurn(games) {
  const turns = new Map();
  await Promise.all(games.slice(0, 20).map(async (g) => {
    try {
      const state = await get(`/games/${g.id}/state`);
      const seat = g.seats[state.view.current_seat];
      turns.set(g.id, seat ? `${seatName(seat)} to play` : "");
    } catch { /* a game that vanished meanwhile */ }
  }));
  return turns;
}

async function lobbyPage() {
  const [open, active, finished] = await Promise.all(["open", "active", "finished"].map((s) => get(`/games?status=${s}`)));
  const turns = await whoseTurn(active.results);
  const table = (title, games, status) => h(`section.card-box.games-${status}`, {},
    h("h2", {}, `${title} (${games.length})`),
    games.length ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Seats"), h("th", {}, "Turn"), h("th", {}, ""))),
      h("tbody", {}, games.map((g) => gameRow(g, turns)))) : h("p.muted", {}, "None."));
  mount(page, h("h1", {}, "Lobby"),
    session.user ? createForm() : h("p.card-box", {}, h("a", { href: "/signin" }, "Sign in"), " to create or join a game."),
    table("Open games", open.results, "open"), table("Being played", active.results, "active"),
    table("Finished", finished.results, "finished"));
}

async function leaderboardPage() {
  const map = new URLSearchParams(location.search).get("map") || "europe";
  const board = await get(`/leaderboard?map=${map}`);
  mount(page, h("h1", {}, `Leaderboard: ${map === "usa" ? "USA" : "Europe"}`),
    h("p", {}, h("a", { href: "/leaderboard?map=europe" }, "Europe"), " · ", h("a", { href: "/leaderboard?map=usa" }, "USA")),
    h("table.card-box", {}, h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "μ ± σ", "Games", "Wins"].map((t) => h("th", {}, t)))),
      h("tbody", {}, board.results.map((r, i) => h("tr", {},
        h("td", {}, i + 1),
        h("td", {}, h("a", { href: `/users/${encodeURIComponent(r.username)}` }, r.username), r.provisional ? " (provisional)" : ""),
        h("td", {}, r.rating.toFixed(1)), h("td", {}, `${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`),
        h("td", {}, r.games), h("td", {}, r.wins))))));
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

async function route() {
  header();
  const path = location.pathname;
  let m;
  try {
    if (path === "/signin") return signinPage();
    if (path === "/leaderboard") return await leaderboardPage();
    if ((m = path.match(/^\/users\/([^/]+)$/))) return await userPage(decodeURIComponent(m[1]));
    if ((m = path.match(/^\/games\/([0-9a-f-]{36})\/replay$/))) return await replayPage(page, m[1]);
    if ((m = path.match(/^\/games\/([0-9a-f-]{36})$/))) return await gamePage(page, m[1]);
    return await lobbyPage();
  } catch (err) {
    mount(page, h("p.error", { role: "alert" }, err instanceof ApiError ? err.text : String(err)));
    throw err;
  }
}

route();
