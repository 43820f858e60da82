// The words of the page's language (issue #23): its catalogue (/static/locales/<lang>.json, and English's for what it
// lacks), t/tn/tParts, and numbers and dates by Intl. Which language that is, is decided and saved by i18n.js (the
// account's setting needs the API, and api.js needs these words for its refusals: so this module imports nothing).
// Modules take these through i18n.js, which passes them on; api.js takes them from here.
let current = "en";
let words = {};
let english = {};

async function catalogue(code) {
  const response = await fetch(`/static/locales/${code}.json`);
  if (!response.ok) throw new Error(`no catalogue for ${code} (HTTP ${response.status})`);
  return response.json();
}

// Read the words of `code` (a language we have) and make it the page's language; the one it became.
export async function readCatalogue(code) {
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
