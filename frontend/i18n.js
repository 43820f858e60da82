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
//   t("move.claim", { cards: joined([counted("colour.count.red", 1)], " + ") }) → Czech "… za 1 červenou"
//
// A message may hold ICU-style choices (catalogue.js): {level, select, greedy {Chamtivý bot} other {…}},
// {n, plural, one {# karta} other {# karet}}, and {cards:acc}, a counted value in the case the sentence needs
// (the catalogue's "colour.count.red:acc" entry where the language has one).
//
// A key the catalogue lacks falls back to English, then to the key itself. A plural entry is an object keyed by
// the language's CLDR categories (one, few, many, other: tests/server/test_i18n.py checks each catalogue has
// exactly those Intl.PluralRules names).
//
// This module decides and saves the language (reading and writing the account's through api.js); the words
// themselves are catalogue.js's, passed on from here. api.js, which tells a refusal in the reader's words, takes
// them from catalogue.js, so the imports run one way: i18n.js → api.js → catalogue.js.
import { get, patch, session } from "./api.js";
import { readCatalogue } from "./catalogue.js";

// The words themselves (catalogue.js), for every module that draws.
export { counted, date, joined, language, number, relativeTime, t, tn, tParts } from "./catalogue.js";

// Each language by its own name, as the selector shows it.
export const LANGUAGES = [["en", "English"], ["cs", "Čeština"], ["ro", "Română"], ["pl", "Polski"], ["hu", "Magyar"], ["fi", "Suomi"]];
const CODES = LANGUAGES.map(([code]) => code);
const CHOSEN = "ttr.language"; // the choice made on this browser (signed out, or before the account had one)

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

// Decide the language and read its words, once: later calls answer the same promise.
export function loadLanguage() {
  if (!loading) loading = load();
  return loading;
}

async function load() {
  return readCatalogue(bestMatch([await accountLanguage(), localStorage.getItem(CHOSEN), ...(navigator.languages || [navigator.language])]) || "en");
}

// Save the choice (on the account when signed in, on this browser always) and draw the page again in it. null: no
// choice (the browser's languages decide; the account's e-mails are in English).
export async function chooseLanguage(code) {
  if (code !== null && !CODES.includes(code)) return;
  if (session.user) await patch("/me", { language: code });
  if (code === null) localStorage.removeItem(CHOSEN);
  else localStorage.setItem(CHOSEN, code);
  location.reload();
}
