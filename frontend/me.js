// A person's own settings (/me: GET and PATCH /api/me, POST /api/me/vacation): the e-mail address, pending until
// its confirmation link is opened; which notifications are e-mailed; vacation, during which daily clocks stand
// still. And the two pages the e-mails link to: /confirm-email?token= and /unsubscribe?token=, each of which
// makes its one call and says what happened.
import { h, mount } from "./dom.js";
import { get, post, patch, session, ApiError, errorText } from "./api.js";
import { LANGUAGES, chooseLanguage, date, relativeTime, t, tParts, tn } from "./i18n.js";

const MAX_VACATION_DAYS = 30;
// The kinds of notification (games.models.NOTIFICATION_KINDS), each named by me.kind.<kind>: "it is my move", the end
// of "e-mail me when …".
// A tournament's kinds are named by tournament.kind.<what> (tournament.js's words).
const KINDS = ["your_turn", "clock_running_out", "game_formed", "invitation", "rematch_offered", "game_ended",
  "tournament_starting", "tournament_table", "tournament_ended"];
const TOURNAMENT_KINDS = { tournament_starting: "tournament.kind.starting", tournament_table: "tournament.kind.table",
  tournament_ended: "tournament.kind.ended" };
const kindWords = (kind) => (TOURNAMENT_KINDS[kind] ? t(TOURNAMENT_KINDS[kind]) : KINDS.includes(kind) ? t(`me.kind.${kind}`) : kind);

export async function mePage(page) {
  if (!session.user) return signInFirst(page, t("me.settings"), "me.sign_in_to_see");
  const me = await get("/me");
  if (!me.vacation) me.vacation = await get("/me/vacation").catch(() => null); // (older servers: not in /me)
  mount(page, h("h1", {}, t("me.title", { name: me.username })), emailSection(me, page), notifySection(me), vacationSection(me, page),
    languageSection(me));
}

// The account's language (pages and e-mails); none: the browser's for the pages, English for the e-mails.
function languageSection(me) {
  const error = h("p.error", { role: "alert" });
  const select = h("select", { name: "account-language", onchange: async () => {
    error.textContent = "";
    try { await chooseLanguage(select.value || null); } catch (err) { error.textContent = errorText(err); }
  } }, h("option", { value: "", selected: !me.language }, t("settings.language_auto")),
  LANGUAGES.map(([code, name]) => h("option", { value: code, lang: code, selected: me.language === code }, name)));
  return h("section.card-box.language", {}, h("h2", {}, t("settings.language")),
    h("p", {}, h("label", {}, `${t("settings.language_intro")} `, select)), error);
}

function emailSection(me, page) {
  const error = h("p.error", { role: "alert" });
  const address = h("input", { type: "email", name: "email", autocomplete: "email", value: me.email_pending || me.email || "" });
  return h("section.card-box.email", {}, h("h2", {}, t("me.email")),
    me.email ? h("p", { "data-state": "confirmed" }, tParts("me.email_confirmed", { email: h("strong", {}, me.email) }))
      : h("p.muted", { "data-state": "none" }, t("me.email_none")),
    me.email_pending ? h("p.pending", { "data-state": "pending" },
      tParts("me.email_pending", { email: h("strong", {}, me.email_pending) })) : null,
    h("form.inline", { onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      try {
        await patch("/me", { email: address.value.trim() });
        await mePage(page);
      } catch (err) { error.textContent = errorText(err); }
    } }, h("label", {}, t("me.email_address"), address), h("button.primary", { type: "submit" }, t("me.save_address")), error));
}

function notifySection(me) {
  const said = h("p.muted", { role: "status" });
  const boxes = KINDS.map((kind) => {
    const words = kindWords(kind);
    const box = h("input", { type: "checkbox", name: kind, "data-kind": kind, checked: me.notify?.[kind] !== false });
    box.addEventListener("change", async () => {
      said.textContent = "";
      said.className = "muted";
      try {
        await patch("/me", { notify: { [kind]: box.checked } });
        said.textContent = t(box.checked ? "me.saved_mail" : "me.saved_no_mail", { what: words });
      } catch (err) {
        box.checked = !box.checked;
        said.className = "error";
        said.textContent = errorText(err);
      }
    });
    return h("li", {}, h("label", {}, box, ` ${words}`));
  });
  return h("section.card-box.notify", {}, h("h2", {}, t("me.notify_title")),
    me.email ? null : h("p.muted", {}, t("me.notify_unconfirmed")),
    h("ul.plain", {}, boxes), said);
}

function vacationSection(me, page) {
  const vacation = me.vacation || { until: null, days_left: 0 };
  const away = vacation.until && new Date(vacation.until) > Date.now();
  const error = h("p.error", { role: "alert" });
  const most = Math.min(MAX_VACATION_DAYS, vacation.days_left);
  const days = h("input", { type: "number", name: "days", min: 1, max: Math.max(1, most), value: Math.max(1, Math.min(7, most)) });
  return h("section.card-box.vacation", {}, h("h2", {}, t("me.vacation")),
    h("p", {}, t("me.vacation_intro")),
    away ? h("p.on-vacation", {}, h("strong", {}, t("me.vacation_until", { date: date(vacation.until) })),
      ` (${relativeTime(vacation.until)}).`) : null,
    h("p.days-left", { "data-days-left": vacation.days_left }, tn("me.days_left", vacation.days_left)),
    most > 0 ? h("form.inline", { onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      try {
        await post("/me/vacation", { days: Number(days.value) });
        await mePage(page);
      } catch (err) { error.textContent = errorText(err); }
    } }, h("label", {}, t("me.days"), days),
    h("button.primary", { type: "submit" }, t(away ? "me.add_vacation" : "me.start_vacation")), error)
      : null);
}

// /confirm-email?token=: the link mailed to a new address.
export async function confirmEmailPage(page) {
  await linkPage(page, t("me.email_address"), "/me/email/confirm", (answer) =>
    [h("p.done", {}, tParts("me.confirmed", { email: h("strong", {}, answer.email) })),
      h("p", {}, h("a", { href: "/me" }, t("me.choose_which")))]);
}

// /unsubscribe?token=: the link at the foot of every e-mail (one kind of notification).
export async function unsubscribePage(page) {
  await linkPage(page, t("me.unsubscribe"), "/me/unsubscribe", (answer) =>
    [h("p.done", {}, t("me.unsubscribed", { what: kindWords(answer.kind) })),
      h("p", {}, h("a", { href: "/me" }, t("me.change_mails")))]);
}

async function linkPage(page, title, path, said) {
  const token = new URLSearchParams(location.search).get("token");
  mount(page, h("h1", {}, title), h("p.muted", { role: "status" }, t("me.one_moment")));
  if (!token) return mount(page, h("h1", {}, title), h("p.error", { role: "alert" }, t("me.no_token")));
  try {
    mount(page, h("h1", {}, title), said(await post(path, { token })));
  } catch (err) {
    const signedOut = err instanceof ApiError && [401, 403].includes(err.status) && !session.user;
    mount(page, h("h1", {}, title), h("p.error", { role: "alert" }, signedOut ? t("me.sign_in_first") : linkProblem(err)),
      signedOut ? h("p", {}, h("a", { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}` }, t("me.sign_in"))) : null);
  }
}

function linkProblem(err) {
  if (err instanceof ApiError && (err.status === 404 || err.status === 400)) {
    return t("me.link_broken", { problem: err.text });
  }
  return errorText(err);
}

// `why`: a key whose {signin} is the link ("{signin} to see your settings.").
function signInFirst(page, title, why) {
  const link = h("a", { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}` }, t("me.sign_in"));
  mount(page, h("h1", {}, title), h("p.card-box", {}, tParts(why, { signin: link })));
}
