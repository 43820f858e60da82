// The public HTTP API (../shared/API.md), with the token kept in localStorage.
const TOKEN = "ttr.token";
const USER = "ttr.user";

export const session = {
  get token() { return localStorage.getItem(TOKEN); },
  get user() { return localStorage.getItem(USER); },
  set(user, token) { localStorage.setItem(USER, user); localStorage.setItem(TOKEN, token); },
  clear() { localStorage.removeItem(USER); localStorage.removeItem(TOKEN); },
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body.detail || body.code || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
  // The sentence shown to the player: the rule ID and the server's own text.
  get text() {
    const rule = this.body.rule ? ` (rule ${this.body.rule})` : "";
    return `${this.body.detail || this.message}${rule}`;
  }
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (session.token) headers.Authorization = `Token ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`/api${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ code: "server_error", detail: `HTTP ${response.status}` }));
  if (response.status === 401 && data.code === "authentication_failed") session.clear();
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);

const boards = new Map();
export function board(name) {
  if (!boards.has(name)) boards.set(name, fetch(`/maps/${name}.json`).then((r) => r.json()));
  return boards.get(name);
}
