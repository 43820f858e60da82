// The public HTTP API (docs/API.md), with the token kept in localStorage.
import { language, t } from "./catalogue.js"; // the words alone: i18n.js reads the account's language through here

const TOKEN = "ttr.token";
const USER = "ttr.user";
const EXPIRED = "ttr.expired";

export const session = {
  get token() { return localStorage.getItem(TOKEN); },
  get user() { return localStorage.getItem(USER); },
  // Set when the server refused the stored token (expired or revoked): the page says so once, until sign-in.
  get expired() { return sessionStorage.getItem(EXPIRED); },
  set(user, token) {
    localStorage.setItem(USER, user);
    localStorage.setItem(TOKEN, token);
    sessionStorage.removeItem(EXPIRED);
  },
  clear() { localStorage.removeItem(USER); localStorage.removeItem(TOKEN); },
  expire() {
    if (this.user) sessionStorage.setItem(EXPIRED, this.user);
    this.clear();
    window.dispatchEvent(new Event("ttr:session"));
  },
  forgetExpired() { sessionStorage.removeItem(EXPIRED); },
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body.detail || body.code || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
  // The sentence shown to the player. Signed out: says so. In English: the server's own text, and the rule's ID
  // ("route taken (rule C-DBL-1)"). In another language the server's text (English) gives way to a sentence in the
  // reader's words for the common codes (api.code.<code>), else to the explanation of the rule that refused it
  // (rule.<ID>), else it is quoted; the rule's ID before it ("Pravidlo C-DBL-1: …").
  get text() {
    const { code, rule } = this.body;
    if (code === "authentication_failed" || code === "not_authenticated") return t(`api.code.${code}`);
    const detail = this.body.detail || this.message;
    if (language() === "en") return `${detail}${rule ? ` (rule ${rule})` : ""}`;
    const explained = rule && known(`rule.${rule}`) ? t(`rule.${rule}`) : null;
    const said = CODES.includes(code) ? t(`api.code.${code}`, { detail }) : explained || t("api.refused", { detail });
    return rule ? t("api.rule", { rule, text: said }) : said;
  }
}

// The refusals told in the reader's words (api.code.<code>): the common ones; others by their rule, or quoted.
const CODES = ["not_authenticated", "authentication_failed", "not_your_turn", "stale_seq", "throttled", "rate_limited",
  "unavailable", "invalid", "bad_credentials", "username_taken", "not_found", "game_full", "seat_taken", "already_seated"];
const known = (key) => t(key) !== key;

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = session.token;
  if (token) headers.Authorization = `Token ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`/api${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null; // done, nothing to say (DELETE /queue, POST /notifications/read)
  const data = await response.json().catch(() => ({ code: "server_error", detail: `HTTP ${response.status}` }));
  if (response.status === 401 && data.code === "authentication_failed" && token) {
    // The stored token is no longer good: forget it, and read again as anyone may (a page stays readable).
    session.expire();
    if (method === "GET") return api(method, path, body);
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const patch = (path, body = {}) => api("PATCH", path, body);
export const del = (path) => api("DELETE", path);

// What went wrong, in the words shown to the player (an ApiError's text, or anything else's message).
// Our own seed for a game's chance, sent when we sit down or start (docs/FAIRNESS.md): 16 random bytes, hex.
export function clientSeed() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export const errorText = (err) => (err instanceof ApiError ? err.text : err?.message || String(err));

const boards = new Map();
export function board(name) {
  if (!boards.has(name)) boards.set(name, fetch(`/maps/${name}.json`).then((r) => r.json()));
  return boards.get(name);
}

// A socket of the API (docs/API.md, WebSockets) at `path`: the token goes as a subprotocol beside "ttr.v1", never
// in the URL, which servers and proxies write into their logs.
export function openSocket(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const token = session.token;
  return new WebSocket(`${scheme}://${location.host}${path}`, token ? ["ttr.v1", `token.${token}`] : ["ttr.v1"]);
}

// The close codes of the API's sockets (docs/API.md, WebSocket).
export const CLOSE_UNAUTHORISED = 4401;
export const CLOSE_NOT_FOUND = 4404;
export const CLOSE_TOO_MANY_SOCKETS = 4008;

// A live page's socket closed, not for good: open the next after a back-off (at once when the server refused the
// token: the next socket watches as anyone; when the tab is shown again when the person has too many open).
// `owner` keeps `retry` and `reconnectTimer` and has `connect()`.
export function reconnectLater(owner, code) {
  if (code === CLOSE_UNAUTHORISED) session.expire();
  if (code === CLOSE_TOO_MANY_SOCKETS && document.hidden) return; // reconnectNow when shown
  owner.retry = Math.min((owner.retry || 0) + 1, 5);
  const delay = code === CLOSE_UNAUTHORISED ? 0 : 250 * 2 ** owner.retry + Math.random() * 250;
  owner.reconnectTimer = setTimeout(() => owner.connect(), delay);
}
