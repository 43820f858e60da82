// The header's inbox: a button with the count of unread notifications, a badge "your turn in N games", a panel
// listing the notifications (each a link to its game; "mark all read"), and opt-in desktop notifications.
//
// One socket per browser, not per tab: the tabs of this site elect a leader with a Web Lock; the leader holds
// the user socket (/ws/me/), and tells the other tabs what it hears over a BroadcastChannel. So a person with
// ten tabs costs the server one socket, a desktop notification is shown once (and only when none of the tabs
// is visible), and a page that reads nothing (a finished game) opens nothing. When the leader tab closes, the
// lock passes to another tab, which connects. Browsers without Web Locks give every tab its own socket.
//
// Counts: `unread` from the socket (hello, then each notification); `your_turn` from hello, then from
// GET /api/me/games after each notification and after a move of mine while the count is not zero (a move
// sends me no notification, but may end my turn). Pages hear notifications as `ttr:notification` events.
import { h, mount } from "./dom.js";
import { get, openSocket, post, session, errorText, CLOSE_NOT_FOUND, CLOSE_UNAUTHORISED } from "./api.js";
import { date, language, number, relativeTime, t, tn } from "./i18n.js";

const LOCK = "ttr.inbox";
const TAB = Math.random().toString(36).slice(2);

const counts = { unread: null, your_turn: null };
const visibleTabs = new Map(); // the leader's view of which other tabs are visible
let channel = null;
let holder = null;
let leader = false;
let socket = null;
let retry = 0;
let started = false;
let releaseLock = null;
let waiting = null;
let reconnectTimer = null;
let refreshTimer = null;
let panel = null;

// Draws the inbox into `element` (the header's #inbox) and, once per page, starts hearing notifications.
export function startInbox(element) {
  holder = element;
  if (!session.token) {
    stop();
    mount(holder);
    return;
  }
  draw();
  if (started) return;
  started = true;
  if ("BroadcastChannel" in window) {
    channel = new BroadcastChannel(LOCK);
    channel.onmessage = (message) => { if (message.data.user === session.user) fromTab(message.data); };
    tell({ type: "ask" });
    tellVisibility();
  }
  // Signed in or out in another tab: this tab's socket (if it leads) belongs to the person it was opened for.
  window.addEventListener("storage", (event) => { if (event.key === "ttr.token" || event.key === null) restart(); });
  document.addEventListener("visibilitychange", tellVisibility);
  window.addEventListener("pagehide", () => tell({ type: "visible", tab: TAB, visible: false }));
  window.addEventListener("ttr:moved", () => { if (counts.your_turn) refreshCounts(1500); });
  campaign();
}

// Waits for the lock (at once when no other tab holds it), then leads until the tab closes or stop() releases it.
function campaign() {
  if (navigator.locks) {
    waiting = new AbortController(); // stop() withdraws a request still waiting for the lock
    navigator.locks.request(LOCK, { signal: waiting.signal }, () => new Promise((release) => { releaseLock = release; lead(); }))
      .catch(() => { /* withdrawn */ });
  } else {
    lead();
  }
}

function restart() {
  stop();
  counts.unread = counts.your_turn = null;
  visibleTabs.clear();
  if (!session.token) return mount(holder);
  draw();
  campaign();
  tell({ type: "ask" });
}

// A message to the other tabs of this site, for the same person only (signed in as someone else there: ignored).
function tell(message) {
  channel?.postMessage({ ...message, user: session.user });
}

// Pages call this to hear every notification (the socket's message: id, kind, game, at, read, text).
export function onNotification(listener) {
  window.addEventListener("ttr:notification", (event) => listener(event.detail));
}

// The lobby read /api/me/games itself: its count of games awaiting my move is the badge's.
export function setYourTurn(count) { setCounts({ your_turn: count }, true); }

function refreshCounts(delay = 300) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    try { setYourTurn((await get("/me/games")).your_turn); } catch { /* the next notification tries again */ }
  }, delay);
}

function stop() {
  leader = false;
  clearTimeout(reconnectTimer);
  const old = socket;
  socket = null;
  old?.close();
  waiting?.abort();
  releaseLock?.();
  releaseLock = waiting = null;
}

// ---- the leader: the socket
function lead() {
  if (!session.token) return releaseLock?.();
  leader = true;
  tell({ type: "ask-visible" });
  connect();
}

function connect() {
  if (!leader || !session.token) return;
  const ws = openSocket("/ws/me/");
  socket = ws;
  let greeted = false;
  ws.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "hello") {
      greeted = true;
      retry = 0;
      setCounts({ unread: data.unread, your_turn: data.your_turn }, true);
    } else if (data.type === "notification") {
      heard(data);
    }
  };
  ws.onclose = (event) => {
    if (socket !== ws) return;
    socket = null;
    if (event.code === CLOSE_UNAUTHORISED) return session.expire();
    if (!greeted && counts.unread === null) readCounts(); // no socket to say them: read them once
    retry = Math.min(retry + 1, event.code === CLOSE_NOT_FOUND ? 8 : 6);
    reconnectTimer = setTimeout(connect, 500 * 2 ** retry + Math.random() * 500);
  };
}

async function readCounts() {
  try {
    const [unread, games] = await Promise.all([get("/notifications?unread=1"), get("/me/games")]);
    setCounts({ unread: unread.count ?? unread.results.length, your_turn: games.your_turn }, true);
  } catch { /* the socket's hello will say */ }
}

function heard(notification) {
  if (typeof notification.unread === "number") setCounts({ unread: notification.unread }, true);
  tell({ type: "notification", notification });
  announce(notification);
  desktopNotice(notification);
  refreshCounts();
}

// ---- every tab
function fromTab(message) {
  switch (message.type) {
    case "ask": if (leader) tell({ type: "counts", counts }); break;
    case "ask-visible": tellVisibility(); break;
    case "counts": setCounts(message.counts, false); break;
    case "notification": announce(message.notification); break;
    case "visible": visibleTabs.set(message.tab, message.visible); break;
    default: break;
  }
}

function tellVisibility() {
  tell({ type: "visible", tab: TAB, visible: !document.hidden });
}

function setCounts(changed, share) {
  for (const [key, value] of Object.entries(changed)) if (typeof value === "number") counts[key] = value;
  if (share) tell({ type: "counts", counts });
  draw();
}

function announce(notification) {
  window.dispatchEvent(new CustomEvent("ttr:notification", { detail: notification }));
  if (panel && !panel.hidden) fillPanel();
}

// A desktop notification, when the person allowed them and none of this site's tabs is in view.
function desktopNotice(n) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (!document.hidden || [...visibleTabs.values()].some(Boolean)) return;
  const notice = new Notification("Ticket to Ride", { body: notificationText(n), tag: `ttr-${n.id}` });
  notice.onclick = () => {
    window.focus();
    const link = notificationLink(n);
    if (link) location.href = link;
    notice.close();
  };
}

// ---- drawing
// The link, the button and the panel are made once and kept (a redraw never takes the focus from the button).
let button = null;
let turnLink = null;

function draw() {
  if (!holder || !session.token) return;
  const unread = counts.unread || 0;
  const turns = counts.your_turn || 0;
  if (!button || !holder.contains(button)) {
    panel = panel || h("div.inbox-panel", { id: "inbox-panel", hidden: true, role: "region", "aria-label": t("inbox.notifications") });
    button = button || h("button.inbox-button", { type: "button", "aria-expanded": "false", "aria-controls": "inbox-panel",
      onclick: () => togglePanel() });
    turnLink = turnLink || h("a.your-turn", { href: "/#my-games" });
    mount(holder, turnLink, button, panel);
  }
  button.setAttribute("aria-label", unread ? tn("inbox.button_unread", unread) : t("inbox.button"));
  // The name holds the visible words ("Inbox 2" within "Inbox, 2 unread"): the space keeps the badge's number a word
  mount(button, t("inbox.button"), unread ? [" ", h("span.badge.unread", { "data-count": unread, "aria-hidden": "true" }, unread)] : null);
  turnLink.classList.toggle("none", !turns); // its place kept: the header's height never changes with it
  turnLink.dataset.count = turns;
  turnLink.textContent = tn("inbox.your_turn_in", turns);
}

function togglePanel(open = panel.hidden) {
  panel.hidden = !open;
  button.setAttribute("aria-expanded", String(open));
  if (!open) return;
  mount(panel, h("p.muted", {}, t("common.loading")));
  fillPanel();
  document.addEventListener("keydown", closeOnEscape);
  setTimeout(() => document.addEventListener("click", closeOutside), 0);
}

function closeOnEscape(event) {
  if (event.key !== "Escape") return;
  closePanel();
  button.focus();
}

function closeOutside(event) {
  if (!holder.contains(event.target)) closePanel();
}

function closePanel() {
  document.removeEventListener("keydown", closeOnEscape);
  document.removeEventListener("click", closeOutside);
  if (!panel.hidden) togglePanel(false);
}

async function fillPanel() {
  let list;
  try { list = (await get("/notifications")).results; }
  catch (err) { return mount(panel, h("p.error", { role: "alert" }, errorText(err))); }
  const error = h("p.error", { role: "alert" });
  mount(panel, h("div.inbox-head", {}, h("h2", {}, t("inbox.notifications")),
    h("button", { type: "button", "data-action": "read-all", disabled: !list.some((n) => !n.read),
      onclick: () => markRead({ all: true }, error) }, t("inbox.mark_all_read"))),
  error, desktopOffer(),
  list.length ? h("ul.notifications", {}, list.map((n) => h(`li${n.read ? "" : ".unread"}`, { "data-notification": n.id, "data-kind": n.kind },
    notificationLink(n) ? h("a", { href: notificationLink(n), onclick: (e) => openOne(e, n) }, notificationText(n)) : h("span", {}, notificationText(n)),
    h("span.muted.when", {}, " · ", h("time", { datetime: n.at, title: date(n.at) }, when(n.at))))))
    : h("p.muted", {}, t("inbox.empty")),
  h("p.inbox-foot", {}, h("a", { href: "/me" }, t("inbox.settings"))));
}

// When a notification came: "5 minutes ago" within the day, else its date ("26 Nov 2026, 10:00").
function when(at) {
  const then = Math.min(new Date(at).getTime(), Date.now()); // a clock a little ahead of ours says "now", not "in 2 seconds"
  return Date.now() - then < 86400 * 1000 ? relativeTime(then) : date(at);
}

// ---- a notification in the reader's words
// The server stores a notification's text in English. In English it is shown as it is; in another language it is
// told again from its kind and data (the sentences of the e-mails, games/templates/mail/notification.txt), and
// from what the English text says of the map ("Europe", "USA") and the number of players, which the data lacks.
// A kind not known here, or a text naming no map, is shown as it is.
export function notificationText(n) {
  if (language() === "en") return n.text;
  const tournament = tournamentText(n);
  if (tournament) return tournament;
  const text = String(n.text || "");
  const map = /\bUSA\b/.test(text) ? t("map.usa") : /\bEurope\b/.test(text) ? t("map.europe") : null;
  if (!map) return text;
  const d = n.data || {};
  const players = Number((text.match(/(\d+)-player\b/) || text.match(/\bof (\d+) with\b/) || [])[1]) || null;
  switch (n.kind) {
    case "your_turn":
      return t(/choose your tickets/i.test(text) ? "inbox.n.your_turn_tickets" : "inbox.n.your_turn", { map });
    case "game_formed":
      return t(/\brematch\b/.test(text) ? "inbox.n.rematch_formed" : "inbox.n.game_formed", { map });
    case "invitation":
      if (d.by && players) return tn("inbox.n.invitation", players, { by: d.by, map });
      return d.by ? t("inbox.n.invitation_by", { by: d.by, map }) : t("inbox.n.invitation_plain", { map });
    case "rematch_offered":
      return d.by ? t("inbox.n.rematch_offered", { by: d.by, map }) : t("inbox.n.rematch_offered_plain", { map });
    case "game_ended": {
      const over = typeof d.place === "number" && typeof d.points === "number" && players
        ? tn("inbox.n.game_ended", d.points, { map, place: number(d.place), players: number(players) })
        : t("inbox.n.game_ended_plain", { map });
      const rated = typeof d.rating_before === "number" && typeof d.rating_after === "number";
      return rated ? `${over} ${t("inbox.n.rating", { before: decimal(d.rating_before), after: decimal(d.rating_after) })}` : over;
    }
    case "clock_running_out": {
      const deadline = d.deadline ? new Date(d.deadline) : null;
      if (!deadline || Number.isNaN(deadline.getTime())) return t("inbox.n.clock_plain", { map });
      return deadline > Date.now() ? t("inbox.n.clock", { map, when: relativeTime(deadline) })
        : t("inbox.n.clock_past", { map, date: date(deadline) });
    }
    default: return text;
  }
}

const decimal = (x) => number(x, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

// A tournament's notifications, told from their kind and data (the tournament's name is in the English text only).
function tournamentText(n) {
  const d = n.data || {};
  switch (n.kind) {
    case "tournament_starting": return t("tournament.n.starting");
    case "tournament_table":
      return typeof d.round === "number" ? t("tournament.n.table", { round: number(d.round) }) : t("tournament.n.table_plain");
    case "tournament_ended":
      return typeof d.place === "number" ? t("tournament.n.ended", { place: number(d.place) }) : t("tournament.n.ended_plain");
    default: return null;
  }
}

async function markRead(body, error) {
  try {
    await post("/notifications/read", body);
    setCounts({ unread: body.all ? 0 : Math.max(0, (counts.unread || 0) - body.ids.length) }, true);
    fillPanel();
  } catch (err) { error.textContent = errorText(err); }
}

// Where a notification leads: its game, else its tournament (tournament_starting, tournament_ended); null: nowhere.
function notificationLink(n) {
  if (n.game) return gameLink(n);
  return n.data?.tournament ? `/tournaments/${encodeURIComponent(n.data.tournament)}` : null;
}

// An invitation's link carries its token (the game page seats whoever opens it signed in).
function gameLink(n) {
  const token = n.kind === "invitation" ? n.data?.token : null;
  return `/games/${n.game}${token ? `?invite=${encodeURIComponent(token)}` : ""}`;
}

// Opening a notification's game marks it read first (the page is left right after).
async function openOne(event, n) {
  if (n.read) return;
  event.preventDefault();
  const href = event.currentTarget.href;
  try { await post("/notifications/read", { ids: [n.id] }); } catch { /* read or not, the game is what was asked for */ }
  location.href = href;
}

// Desktop notifications are asked for only when the person presses the button (browsers ignore a request
// made without a gesture, and it would be rude anyway).
function desktopOffer() {
  if (!("Notification" in window)) return null;
  if (Notification.permission === "granted") return h("p.muted.desktop", {}, t("inbox.desktop_on"));
  if (Notification.permission === "denied") return h("p.muted.desktop", {}, t("inbox.desktop_blocked"));
  return h("p.desktop", {}, h("button", { type: "button", "data-action": "desktop-notifications", onclick: async () => {
    await Notification.requestPermission();
    fillPanel();
  } }, t("inbox.desktop_enable")));
}
