// A person's own settings (/me: GET and PATCH /api/me, POST /api/me/vacation): the e-mail address, pending until
// its confirmation link is opened; which notifications are e-mailed; vacation, during which daily clocks stand
// still. And the two pages the e-mails link to: /confirm-email?token= and /unsubscribe?token=, each of which
// makes its one call and says what happened.
import { h, mount } from "./dom.js";
import { get, post, patch, session, ApiError, errorText } from "./api.js";
import { NOTIFICATION_KINDS, plural, timeLeftText } from "./words.js";
import { LANGUAGES, chooseLanguage, t } from "./i18n.js";

const MAX_VACATION_DAYS = 30;

export async function mePage(page) {
  if (!session.user) return signInFirst(page, "Settings", "to see your settings");
  const me = await get("/me");
  if (!me.vacation) me.vacation = await get("/me/vacation").catch(() => null); // (older servers: not in /me)
  mount(page, h("h1", {}, `Settings: ${me.username}`), emailSection(me, page), notifySection(me), vacationSection(me, page),
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
  return h("section.card-box.email", {}, h("h2", {}, "E-mail"),
    me.email ? h("p", { "data-state": "confirmed" }, "Notifications you choose below are e-mailed to ", h("strong", {}, me.email), ".")
      : h("p.muted", { "data-state": "none" }, "No confirmed address: notifications stay in the inbox."),
    me.email_pending ? h("p.pending", { "data-state": "pending" }, h("strong", {}, me.email_pending),
      " waits for confirmation: open the link sent to it.") : null,
    h("form.inline", { onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      try {
        await patch("/me", { email: address.value.trim() });
        await mePage(page);
      } catch (err) { error.textContent = errorText(err); }
    } }, h("label", {}, "E-mail address", address), h("button.primary", { type: "submit" }, "Save address"), error));
}

function notifySection(me) {
  const said = h("p.muted", { role: "status" });
  const boxes = NOTIFICATION_KINDS.map(([kind, words]) => {
    const box = h("input", { type: "checkbox", name: kind, "data-kind": kind, checked: me.notify?.[kind] !== false });
    box.addEventListener("change", async () => {
      said.textContent = "";
      said.className = "muted";
      try {
        await patch("/me", { notify: { [kind]: box.checked } });
        said.textContent = `Saved: ${box.checked ? "e-mail" : "no e-mail"} when ${words}.`;
      } catch (err) {
        box.checked = !box.checked;
        said.className = "error";
        said.textContent = errorText(err);
      }
    });
    return h("li", {}, h("label", {}, box, ` ${words}`));
  });
  return h("section.card-box.notify", {}, h("h2", {}, "E-mail me when"),
    me.email ? null : h("p.muted", {}, "(once your address is confirmed; the inbox tells you everything either way)"),
    h("ul.plain", {}, boxes), said);
}

function vacationSection(me, page) {
  const vacation = me.vacation || { until: null, days_left: 0 };
  const away = vacation.until && new Date(vacation.until) > Date.now();
  const error = h("p.error", { role: "alert" });
  const most = Math.min(MAX_VACATION_DAYS, vacation.days_left);
  const days = h("input", { type: "number", name: "days", min: 1, max: Math.max(1, most), value: Math.max(1, Math.min(7, most)) });
  return h("section.card-box.vacation", {}, h("h2", {}, "Vacation"),
    h("p", {}, "While you are on vacation, the clocks of your daily games stand still."),
    away ? h("p.on-vacation", {}, h("strong", {}, `On vacation until ${new Date(vacation.until).toLocaleString()}`),
      ` (${timeLeftText(vacation.until)} from now).`) : null,
    h("p.days-left", { "data-days-left": vacation.days_left }, `You have ${plural(vacation.days_left, "vacation day")} left.`),
    most > 0 ? h("form.inline", { onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      try {
        await post("/me/vacation", { days: Number(days.value) });
        await mePage(page);
      } catch (err) { error.textContent = errorText(err); }
    } }, h("label", {}, "Days", days), h("button.primary", { type: "submit" }, away ? "Add vacation days" : "Start vacation"), error)
      : null);
}

// /confirm-email?token=: the link mailed to a new address.
export async function confirmEmailPage(page) {
  await linkPage(page, "E-mail address", "/me/email/confirm", (answer) =>
    [h("p.done", {}, "Your e-mail address ", h("strong", {}, answer.email), " is confirmed: the notifications you choose are sent there."),
      h("p", {}, h("a", { href: "/me" }, "Choose which ones"))]);
}

// /unsubscribe?token=: the link at the foot of every e-mail (one kind of notification).
export async function unsubscribePage(page) {
  const words = Object.fromEntries(NOTIFICATION_KINDS);
  await linkPage(page, "Unsubscribe", "/me/unsubscribe", (answer) =>
    [h("p.done", {}, `You will no longer get an e-mail when ${words[answer.kind] || answer.kind}.`),
      h("p", {}, h("a", { href: "/me" }, "Change this or other e-mails in your settings"))]);
}

async function linkPage(page, title, path, said) {
  const token = new URLSearchParams(location.search).get("token");
  mount(page, h("h1", {}, title), h("p.muted", { role: "status" }, "One moment…"));
  if (!token) return mount(page, h("h1", {}, title), h("p.error", { role: "alert" }, "This link has no token: open the whole link from the e-mail."));
  try {
    mount(page, h("h1", {}, title), said(await post(path, { token })));
  } catch (err) {
    const signedOut = err instanceof ApiError && [401, 403].includes(err.status) && !session.user;
    mount(page, h("h1", {}, title), h("p.error", { role: "alert" }, signedOut ? "Sign in first, then this link works." : linkProblem(err)),
      signedOut ? h("p", {}, h("a", { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}` }, "Sign in")) : null);
  }
}

function linkProblem(err) {
  if (err instanceof ApiError && (err.status === 404 || err.status === 400)) {
    return `This link does not work (${err.text}). It may be old or already used: the newest e-mail has a good one.`;
  }
  return errorText(err);
}

function signInFirst(page, title, why) {
  mount(page, h("h1", {}, title), h("p.card-box", {},
    h("a", { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}` }, "Sign in"), ` ${why}.`));
}
