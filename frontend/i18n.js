// The client's language and its words (issue #23). The language is the signed-in person's setting (GET /api/me
// "language"), else the one chosen on this browser (localStorage), else the browser's own (navigator.languages, the
// first one we have), else English. `await loadLanguage()` reads the catalogue (/static/locales/<lang>.json, and
// English's for what it lacks) once, before the page is drawn; from then on t(), tn() and the formatters answer at
// once. Call them when drawing, never at a module's top level (the catalogue is not there yet when modules load).
//
//   t("turn.theirs", { name: "ada" })        → "ada's turn"         ({name} placeholders)
//   tn("cards", 3)                           → "3 cards"            (the plural form Intl.PluralRules picks; {count})
//   tParts("lobby.sign_in_first", { signin: h("a", …) }) → ["", <a>, " to create or join a game."] (for h())
//   number(1234.5), date(iso), relativeTime(iso)           (Intl, in the page's language)
//
// A key the catalogue lacks falls back to English, then to the key itself. A plural entry is an object keyed by
// the language's CLDR categories (one, few, many, other: tests/server/test_i18n.py checks each catalogue has
// exactly those Intl.PluralRules names).
import { get, patch, session } from "./api.js";

// Each language by its own name, as the selector shows it.
export const LANGUAGES = [["en", "English"], ["cs", "Čeština"], ["ro", "Română"], ["pl", "Polski"], ["hu", "Magyar"], ["fi", "Suomi"]];
const CODES = LANGUAGES.map(([code]) => code);
const CHOSEN = "ttr.language"; // the choice made on this browser (signed out, or before the account had one)

let current = "en";
let words = {};
let english = {};
let loading = null;

// The first of `wanted` (BCP 47 tags, best first) that we have, by its primary subtag; null when none.
export function bestMatch(wanted) {
  for (const tag of wanted || []) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (CODES.includes(primary)) return primary;
  }
  return null;
}

async function accountLanguage() {
  if (!session.token) return null;
  try { return (await get("/me")).language || null; } catch { return null; } // signed out meanwhile: the browser's
}

async function catalogue(code) {
  const response = await fetch(`/static/locales/${code}.json`);
  if (!response.ok) throw new Error(`no catalogue for ${code} (HTTP ${response.status})`);
  return response.json();
}

// Decide the language and read its words, once: later calls answer the same promise.
export function loadLanguage() {
  if (!loading) loading = load();
  return loading;
}

async function load() {
  const code = bestMatch([await accountLanguage(), localStorage.getItem(CHOSEN), ...(navigator.languages || [navigator.language])]) || "en";
  try {
    [words, english] = await Promise.all([catalogue(code), code === "en" ? null : catalogue("en")]);
    english = english || words;
    current = code;
  } catch (err) { // a catalogue that cannot be read: English (and, failing that, the keys themselves)
    console.warn(err);
    english = words = await catalogue("en").catch(() => ({}));
    current = "en";
  }
  document.documentElement.lang = current;
  return current;
}

export const language = () => current;

// Save the choice (on the account when signed in, on this browser always) and draw the page again in it. null: no
// choice (the browser's languages decide; the account's e-mails are in English).
export async function chooseLanguage(code) {
  if (code !== null && !CODES.includes(code)) return;
  if (session.user) await patch("/me", { language: code });
  if (code === null) localStorage.removeItem(CHOSEN);
  else localStorage.setItem(CHOSEN, code);
  location.reload();
}

function lookup(key) {
  if (Object.hasOwn(words, key)) return { entry: words[key], code: current };
  if (Object.hasOwn(english, key)) return { entry: english[key], code: "en" };
  return { entry: key, code: "en" };
}

function fill(text, params) {
  return String(text).replace(/\{(\w+)\}/g, (all, name) => (params && name in params ? String(params[name]) : all));
}

// The words of `key`, its {name} placeholders filled from `params`.
export function t(key, params) {
  const { entry, code } = lookup(key);
  if (entry && typeof entry === "object") return fill(pluralForm(entry, code, params?.count ?? 0), params);
  return fill(entry, params);
}

// The form of plural entry `key` for `count` ({count} is the number, written the language's way).
export function tn(key, count, params) {
  const { entry, code } = lookup(key);
  const text = entry && typeof entry === "object" ? pluralForm(entry, code, count) : entry;
  return fill(text, { ...params, count: number(count) });
}

const rules = new Map();
function pluralForm(entry, code, count) {
  if (!rules.has(code)) rules.set(code, new Intl.PluralRules(code));
  return entry[rules.get(code).select(count)] ?? entry.other ?? Object.values(entry)[0];
}

// `key`'s words as pieces for h(): a parameter may be an element (a link in the middle of a sentence).
export function tParts(key, params) {
  return t(key, Object.fromEntries(Object.keys(params || {}).map((name) => [name, `\u0000${name}\u0000`])))
    .split("\u0000").map((piece, i) => (i % 2 ? params[piece] : piece));
}

export const number = (n, options) => new Intl.NumberFormat(current, options).format(n);

export const date = (d, options = { dateStyle: "medium", timeStyle: "short" }) =>
  new Intl.DateTimeFormat(current, options).format(d instanceof Date ? d : new Date(d));

const UNITS = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];

// "in 3 hours", "2 days ago", "tomorrow": `d` against `now`, in the largest unit that fits.
export function relativeTime(d, now = Date.now()) {
  const seconds = ((d instanceof Date ? d : new Date(d)).getTime() - (now instanceof Date ? now.getTime() : now)) / 1000;
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) || UNITS[UNITS.length - 1];
  return new Intl.RelativeTimeFormat(current, { numeric: "auto" }).format(Math.round(seconds / size), unit);
}
