// The words of the page's language (issue #23): its catalogue (/static/locales/<lang>.json, and English's for what it
// lacks), t/tn/tParts, and numbers and dates by Intl. Which language that is, is decided and saved by i18n.js (the
// account's setting needs the API, and api.js needs these words for its refusals: so this module imports nothing).
// Modules take these through i18n.js, which passes them on; api.js takes them from here.
let current = "en";
let words = {};
let english = {};

// A catalogue's address: the hashed name the page lists for it (index.html's #static-names, cached for a year as
// every hashed file is), else the plain name.
let listed = null;
function address(code) {
  if (!listed) {
    try {
      listed = JSON.parse(document.getElementById("static-names")?.textContent || "{}");
    } catch {
      listed = {};
    }
  }
  return listed[`locales/${code}.json`] || `/static/locales/${code}.json`;
}

async function catalogue(code) {
  const response = await fetch(address(code));
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

// A message is read as a small part of ICU MessageFormat, so that the words around a value may follow it:
//   {name}          the value of `name` (the braces left as they are when no such value is given)
//   {name:case}     the value in a grammatical case of the language ("acc": "za 1 fialovou"), when the value is a
//                   counted one that knows its cases (`counted`, `joined`); any other value as it is
//   {name, select, greedy {Chamtivý bot} strong {Silný bot} other {bot {name}}}   the branch named by the value
//   {name, plural, one {# karta} few {# karty} other {# karet}}   the branch Intl.PluralRules picks for the
//                   number (or an exact "=0" one); # in it is the number
// Anything else between braces is text.
const ARGUMENT = /\{\s*(\w+)(?::(\w+))?\s*\}/y;
const CHOICE = /\{\s*(\w+)\s*,\s*(select|plural)\s*,/y;
const BRANCH = /\s*(=\d+|\w+)\s*\{/y;

function matchAt(pattern, text, at) {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

// Parts of `text` from `at` up to an unmatched "}" (inside a branch) or its end: [parts, where it stopped].
function parseParts(text, at, inBranch, inPlural) {
  const parts = [];
  let plain = "";
  const flush = () => { if (plain) parts.push(plain); plain = ""; };
  while (at < text.length) {
    const c = text[at];
    if (c === "}" && inBranch) break;
    if (c === "{") {
      const found = parseArgument(text, at, inPlural);
      if (found) {
        flush();
        parts.push(found[0]);
        at = found[1];
        continue;
      }
    }
    if (c === "#" && inPlural) {
      flush();
      parts.push({ hash: true });
    } else {
      plain += c;
    }
    at += 1;
  }
  flush();
  return [parts, at];
}

// The argument starting at text[at] ("{"), and where it ends; null when the braces hold text of no argument.
function parseArgument(text, at, inPlural) {
  const simple = matchAt(ARGUMENT, text, at);
  if (simple) return [{ name: simple[1], kase: simple[2] || null, raw: simple[0] }, at + simple[0].length];
  const choice = matchAt(CHOICE, text, at);
  if (!choice) return null;
  const node = { name: choice[1], type: choice[2], branches: {} };
  let i = at + choice[0].length;
  for (;;) {
    while (/\s/.test(text[i] || "")) i += 1;
    if (text[i] === "}") return Object.keys(node.branches).length ? [node, i + 1] : null;
    const branch = matchAt(BRANCH, text, i);
    if (!branch) return null;
    const [parts, end] = parseParts(text, i + branch[0].length, true, inPlural || node.type === "plural");
    if (text[end] !== "}") return null;
    node.branches[branch[1]] = parts;
    i = end + 1;
  }
}

const parsed = new Map();
function parse(text) {
  if (!parsed.has(text)) parsed.set(text, parseParts(text, 0, false, false)[0]);
  return parsed.get(text);
}

function render(parts, params, code, count) {
  return parts.map((part) => {
    if (typeof part === "string") return part;
    if (part.hash) return typeof count === "number" ? number(count) : String(count);
    const value = params ? params[part.name] : undefined;
    if (!part.branches) {
      if (value === undefined || value === null) return part.raw;
      return part.kase && typeof value.inCase === "function" ? value.inCase(part.kase) : String(value);
    }
    if (part.type === "select") return render(part.branches[String(value)] ?? part.branches.other ?? [], params, code, count);
    const n = Number(value);
    const branch = part.branches[`=${n}`] ?? part.branches[pluralRule(code).select(n)] ?? part.branches.other ?? [];
    return render(branch, params, code, value);
  }).join("");
}

function fill(text, params, code) {
  const message = String(text);
  return message.includes("{") ? render(parse(message), params, code, undefined) : message;
}

// The words of `key`, its arguments filled from `params`.
export function t(key, params) {
  const { entry, code } = lookup(key);
  if (entry && typeof entry === "object") return fill(pluralForm(entry, code, params?.count ?? 0), params, code);
  return fill(entry, params, code);
}

// The form of plural entry `key` for `count` ({count} is the number, written the language's way).
export function tn(key, count, params) {
  const { entry, code } = lookup(key);
  const text = entry && typeof entry === "object" ? pluralForm(entry, code, count) : entry;
  return fill(text, { ...params, count: number(count) }, code);
}

const rules = new Map();
function pluralRule(code) {
  if (!rules.has(code)) rules.set(code, new Intl.PluralRules(code));
  return rules.get(code);
}
function pluralForm(entry, code, count) {
  return entry[pluralRule(code).select(count)] ?? entry.other ?? Object.values(entry)[0];
}

// Words that a message may ask for in a grammatical case of the language. A catalogue holds, beside an entry
// `key`, an entry `key:acc` (and so on) only where its language's form differs; the message names the case
// ("za {cards:acc}"), and a value written anywhere else reads in the entry's own form (the nominative).
class Inflected {
  constructor(say) { this.say = say; }
  inCase(kase) { return this.say(kase); }
  toString() { return this.say(null); }
}

// `count` of a thing in the form plural entry `key` gives it ("3 red", "1 fialová"; with `{…:acc}` "1 fialovou").
export function counted(key, count, params) {
  return new Inflected((kase) => tn(kase && Object.hasOwn(words, `${key}:${kase}`) ? `${key}:${kase}` : key, count, params));
}

// Values (counted or plain) joined by `separator`, each in the case a message asks for.
export function joined(items, separator) {
  return new Inflected((kase) => items.map((item) => (kase && typeof item?.inCase === "function" ? item.inCase(kase) : String(item))).join(separator));
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
