// The lobby's own sections for a signed-in person: "My games" (GET /api/me/games: those awaiting my move first,
// with their speed in words, a daily game's move time and bank apart, who of its players is on vacation until when,
// and the moves made since I last looked), "Find a game" (the queue: POST and DELETE /api/queue,
// the entry read from GET /api/me) and "New game" (POST /api/games: live or daily, public or private).
//
// The queue is read every QUEUE_POLL_MS while this page waits in it and is in view, and at once when the inbox
// hears that a table formed (game_formed); a table found while this browser waited opens its game. "My games"
// is read again after each notification.
import { h, mount } from "./dom.js";
import { get, post, del, ApiError, errorText } from "./api.js";
import { onNotification, setYourTurn } from "./inbox.js";
import { awayLines } from "./byday.js";
import { durationText, mapName, queueText, seatName, timeLeftText } from "./words.js";
import { date, t, tParts, tn } from "./i18n.js";

const QUEUE_POLL_MS = 2500;
const QUEUED = "ttr.queued"; // set while this browser waits in the queue: a table found then opens its game

// ---- My games
export function myGamesSection() {
  const section = h("section.card-box.my-games", { id: "my-games", "aria-busy": "true" },
    h("h2", {}, t("lobby.my_games")), h("p.muted", {}, t("common.loading")));
  fillMyGames(section);
  return section;
}

async function fillMyGames(section) {
  let answer;
  try { answer = await get("/me/games"); }
  catch (err) { return mount(section, h("h2", {}, t("lobby.my_games")), h("p.error", { role: "alert" }, errorText(err))); }
  setYourTurn(answer.your_turn);
  const games = [...answer.results].sort((a, b) => Number(b.your_move) - Number(a.your_move)); // stable: the server's order within
  mount(section, h("h2", {}, t("lobby.my_games"), answer.your_turn ? h("span.badge.turns", {}, ` ${tn("lobby.your_move_in", answer.your_turn)}`) : null),
    // No sideways scroll at any width: on a phone each game is a block of its own (replay.css, "My games").
    games.length ? h("table.my-games-table", {},
      h("thead", {}, h("tr", {}, ["lobby.game", "lobby.seats", "lobby.time", "lobby.now"].map((key) => h("th", {}, t(key))))),
      h("tbody", {}, games.map(myGameRow)))
      : h("p.muted", {}, t("lobby.no_games")));
  section.setAttribute("aria-busy", "false");
}

function myGameRow(game) {
  const fresh = game.new_moves ? h("span.new-moves", {}, ` · ${tn("lobby.new_moves", game.new_moves)}`) : null;
  const now = game.status === "open" ? t("lobby.waiting_players") : game.status === "finished" ? t("status.finished")
    : game.your_move ? h("strong.your-move", {}, t("game.your_move")) : t("lobby.others_to_move");
  return h(`tr${game.your_move ? ".awaiting" : ""}`, { "data-game": game.id, "data-your-move": String(Boolean(game.your_move)) },
    h("td.map", {}, h("a", { href: `/games/${game.id}` }, mapName(game.map)), game.ranked ? ` · ${t("lobby.ranked")}` : "",
      game.private ? ` · ${t("game.private")}` : "", createdText(game)),
    h("td.seats", {}, game.seats.map((s) => h("span.seat-chip", {}, `${s.seat + 1}: ${seatName(s)}`))),
    h("td.time", {}, speedLines(game), clockLine(game), awayLines(game.away)),
    h("td.now", {}, now, fresh));
}

// The speed in words, not a word that could read as a state: "daily, 2 days a move" over "bank: 3 days"; "live,
// 5 min a move".
function speedLines(game) {
  if (game.speed !== "daily") {
    return h("div.speed", { "data-speed": "live" },
      game.turn_seconds ? t("lobby.live_speed", { time: durationText(game.turn_seconds) }) : t("lobby.live_no_clock"));
  }
  return [h("div.speed", { "data-speed": "daily" }, tn("lobby.daily_speed", game.days_per_move || 1)),
    h("div.bank-days.muted", {}, game.bank_days ? tn("lobby.bank_days_n", game.bank_days) : t("lobby.no_bank"))];
}

// The clock, a daily game's move time and bank apart: "this move: 1 d 4 h left · then the bank: 3 d", or once the
// move's days are spent "on the bank: 20 h left" (`bank_left`: the bank of the deadline's seat, before this move).
function clockLine(game) {
  if (!game.deadline) return null;
  const bank = game.speed === "daily" && typeof game.bank_left === "number" ? game.bank_left : null;
  const attrs = { "data-deadline": game.deadline, "data-bank": bank ?? "" };
  if (bank === null) return h("div.deadline", attrs, t("lobby.time_left", { time: timeLeftText(game.deadline) }));
  const left = Math.max(0, (new Date(game.deadline) - Date.now()) / 1000);
  if (left <= bank) return h("div.deadline.on-bank", attrs, t("lobby.on_bank", { time: durationText(left) }));
  return h("div.deadline", attrs, t("lobby.move_left", { time: durationText(left - bank) }),
    bank ? h("span.muted", {}, ` · ${t("lobby.bank_then", { time: durationText(bank) })}`) : null);
}

// When the game was made: "created 3 Mar, 14:05" (the year too when it is not this one's), in the reader's language.
export function createdText(game) {
  if (!game.created_at) return null;
  const at = new Date(game.created_at);
  const options = { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" };
  if (at.getFullYear() !== new Date().getFullYear()) options.year = "numeric";
  return h("div.created.muted", { "data-created": game.created_at }, t("lobby.created", { date: date(at, options) }));
}

// One listener for the page: whichever "My games" section is in the page now is read again.
let heard = false;
function listen() {
  if (heard) return;
  heard = true;
  let timer = null;
  onNotification((n) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const section = document.querySelector("section.my-games");
      if (section) fillMyGames(section);
    }, 200);
    if (n.kind === "game_formed") document.querySelector("section.queue")?.dispatchEvent(new Event("ttr:poll"));
  });
}

// ---- Find a game (the queue)
export function queueSection() {
  listen();
  const section = h("section.card-box.queue", { "aria-live": "polite" }, h("h2", {}, t("lobby.find")), h("p.muted", {}, t("common.loading")));
  let timer = null;
  const poll = async () => {
    clearTimeout(timer);
    if (!section.isConnected && section.dataset.started) return; // the lobby was drawn again: this one is gone
    section.dataset.started = "1";
    let entry;
    // GET /api/me holds the queue entry (null: not queued); GET /api/queue would answer that with a 404, a
    // failed request in the console of every lobby.
    try { entry = (await get("/me")).queue; }
    catch (err) {
      mount(section, h("h2", {}, t("lobby.find")), h("p.error", { role: "alert" }, errorText(err)));
      timer = setTimeout(poll, QUEUE_POLL_MS * 4);
      return;
    }
    if (!entry) {
      localStorage.removeItem(QUEUED);
      return showForm(section, poll);
    }
    if (entry.status === "matched") return matched(section, entry, poll);
    localStorage.setItem(QUEUED, "1");
    showWaiting(section, entry, poll);
    timer = setTimeout(function again() {
      if (document.hidden) timer = setTimeout(again, QUEUE_POLL_MS);
      else poll();
    }, QUEUE_POLL_MS);
  };
  section.addEventListener("ttr:poll", poll);
  poll();
  return section;
}

// A table took me: open it when this browser was waiting for one; otherwise (an old match) say so only.
function matched(section, entry, poll) {
  if (localStorage.getItem(QUEUED)) {
    localStorage.removeItem(QUEUED);
    mount(section, h("h2", {}, t("lobby.find")), h("p", { role: "status" }, t("lobby.table_ready")));
    location.href = `/games/${entry.game}`;
    return;
  }
  showForm(section, poll, h("p.muted.last-match", {}, tParts("lobby.last_match", {
    link: h("a", { href: `/games/${entry.game}` }, t("lobby.this_game")) })));
}

function showWaiting(section, entry, poll) {
  const error = h("p.error", { role: "alert" });
  const waited = entry.since ? timeLeftText(Date.now(), new Date(entry.since).getTime()) : null;
  const others = typeof entry.waiting !== "number" ? ""
    : entry.waiting ? tn("lobby.others_waiting", entry.waiting) : t("lobby.nobody_waiting");
  mount(section, h("h2", {}, t("lobby.find")),
    h("p.waiting", { "data-status": "waiting" }, h("strong", {}, `${t("lobby.looking")} `), queueText(entry)),
    h("p.muted", {}, [waited ? t("lobby.waiting_for", { time: waited }) : t("lobby.waiting"), others].filter(Boolean).join(" · "),
      `. ${t("lobby.opens_here")}`),
    h("button", { type: "button", "data-action": "leave-queue", onclick: async () => {
      try {
        await del("/queue");
        localStorage.removeItem(QUEUED);
        poll();
      } catch (err) {
        if (err instanceof ApiError && err.body.code === "already_matched" && err.body.game) {
          localStorage.removeItem(QUEUED);
          location.href = `/games/${err.body.game}`;
        } else {
          error.textContent = errorText(err);
        }
      }
    } }, t("lobby.leave_queue")), error);
}

function showForm(section, poll, note = null) {
  const error = h("p.error", { role: "alert" });
  const map = mapSelect();
  const counts = [2, 3, 4, 5].map((n) => h("input", { type: "checkbox", name: "players", value: n, checked: n <= 4 }));
  const ranked = h("input", { type: "checkbox", name: "ranked" });
  const speed = speedSelect();
  const bots = h("input", { type: "checkbox", name: "bots" });
  const botSeconds = h("input", { type: "number", name: "bots_after", min: 0, max: 86400, value: 60, disabled: true,
    "aria-label": t("lobby.bot_seconds") });
  bots.addEventListener("change", () => { botSeconds.disabled = !bots.checked; });
  mount(section, h("h2", {}, t("lobby.find")), note,
    h("form.inline.queue-form", { onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      const players = counts.filter((c) => c.checked).map((c) => Number(c.value));
      if (!players.length) { error.textContent = t("lobby.tick_players"); return; }
      try {
        await post("/queue", { map: map.value, players, ranked: ranked.checked, speed: speed.value,
          bots_after: bots.checked ? Number(botSeconds.value) : null });
        localStorage.setItem(QUEUED, "1");
        poll();
      } catch (err) { error.textContent = errorText(err); }
    } },
    h("label", {}, t("lobby.map"), map),
    h("fieldset.counts", {}, h("legend", {}, t("lobby.players")), counts.map((c) => h("label", {}, c, ` ${c.value}`))),
    h("label", {}, t("lobby.speed"), speed),
    h("label", {}, h("span", {}, t("lobby.ranked_label")), ranked),
    h("fieldset.bots", {}, h("legend", {}, t("lobby.fill_bots")), h("label", {}, bots, ` ${t("lobby.after")}`), botSeconds, h("span", {}, ` ${t("lobby.seconds")}`)),
    h("button.primary", { type: "submit" }, t("lobby.find")), error));
}

// ---- New game
export function createForm() {
  const error = h("p.error", { role: "alert" });
  const map = mapSelect();
  const players = h("select", { name: "players" }, [2, 3, 4, 5].map((n) => h("option", { value: n, selected: n === 4 }, n)));
  const ranked = h("input", { type: "checkbox", name: "ranked" });
  const secret = h("input", { type: "checkbox", name: "private" });
  const talk = h("input", { type: "checkbox", name: "spectators_at_table" }); // spectators may write at the table
  const speed = speedSelect();
  const clock = h("select", { name: "turn_seconds" },
    h("option", { value: "" }, t("lobby.no_clock")), h("option", { value: "60" }, t("lobby.one_minute")),
    h("option", { value: "300" }, t("lobby.five_minutes")), h("option", { value: "86400" }, t("lobby.one_day")));
  const days = h("select", { name: "days_per_move" }, [1, 2, 3, 5, 7, 10, 14].map((n) => h("option", { value: n }, tn("log.dur.days", n))));
  const bank = h("input", { type: "number", name: "bank_days", min: 0, max: 30, value: 3 });
  const live = h("label.live-only", {}, t("lobby.turn_time"), clock);
  const daily = [h("label.daily-only", {}, t("lobby.days_per_move"), days), h("label.daily-only", {}, t("lobby.bank_days"), bank)];
  const show = () => {
    live.hidden = speed.value !== "live";
    for (const label of daily) label.hidden = speed.value !== "daily";
  };
  speed.addEventListener("change", show);
  show();
  return h("form.card-box.inline.create", {
    onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      const time = speed.value === "daily"
        ? { speed: "daily", turn_seconds: null, days_per_move: Number(days.value), bank_days: Number(bank.value) }
        : { speed: "live", turn_seconds: clock.value ? Number(clock.value) : null };
      try {
        const game = await post("/games", { map: map.value, players: Number(players.value), ranked: ranked.checked,
          private: secret.checked, spectators_at_table: talk.checked, ...time });
        location.href = `/games/${game.id}`;
      } catch (err) { error.textContent = errorText(err); }
    },
  }, h("h2", { style: "width:100%" }, t("lobby.new_game")),
  h("label", {}, t("lobby.map"), map), h("label", {}, t("lobby.players"), players), h("label", {}, t("lobby.speed"), speed), live, daily,
  h("label", {}, h("span", {}, t("lobby.ranked_label")), ranked), h("label", {}, h("span", {}, t("lobby.private")), secret),
  h("label", {}, h("span", {}, t("lobby.spectators_at_table")), talk),
  h("button.primary", { type: "submit" }, t("lobby.create")), error);
}

function mapSelect() {
  return h("select", { name: "map" }, h("option", { value: "europe" }, t("map.europe")), h("option", { value: "usa" }, t("map.usa")));
}

function speedSelect() {
  return h("select", { name: "speed" }, h("option", { value: "live" }, t("lobby.speed.live")), h("option", { value: "daily" }, t("lobby.speed.daily")));
}
