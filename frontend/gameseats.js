// An open game's panel on the game page: its facts and seats; sitting down, adding a bot of a chosen level and
// starting (the creator), the invitation panel of a private game (byday.js). `page`: the GameView (game.js), which
// keeps the level chosen and the invitation panel across redraws.
import { h } from "./dom.js";
import { session } from "./api.js";
import { BOT_LEVELS, botName, seatName, timeControlText } from "./words.js";
import { t, tn, tParts } from "./i18n.js";
import { seatSwatch } from "./panels.js";
import { InvitePanel } from "./byday.js";

export function openSection(page) {
  const s = page.game.summary;
  const me = (session.user || "").toLowerCase();
  const mine = me === (s.created_by || "").toLowerCase();
  const seated = s.seats.some((x) => x.username && x.username.toLowerCase() === me);
  page.botLevel = page.botLevel || "greedy";
  const level = h("select", { "aria-label": t("game.bot_level"), onchange: () => { page.botLevel = level.value; } },
    BOT_LEVELS.map((l) => h("option", { value: l, selected: l === page.botLevel }, botName(l))));
  return h("section.open", {}, h("h2", { tabindex: -1 }, t("game.waiting_start")),
    page.game.error ? h("p.error", { role: "alert" }, page.game.error) : null,
    h("p", {}, t("game.open_facts", { name: s.created_by, facts: [tn("game.seats", s.players), t(s.ranked ? "lobby.ranked" : "lobby.unranked"),
      timeControlText(s), s.private ? t("game.private") : null].filter(Boolean).join(", ") })),
    h("ul", {}, s.seats.map((seat) => seatLine(page, seat, { mine, seated, level }))),
    mine && s.invite && s.seats.some((x) => !x.username && !x.bot)
      ? (page.invites = page.invites || new InvitePanel(page.id)).update(s.invite) : null,
    mine ? h("p", {}, h("label", {}, `${t("game.bot_level")} `, level)) : null,
    mine ? h("p", {}, h("button.primary", { type: "button", "data-action": "start",
      onclick: () => page.seatAction("start", { fill_with_bots: level.value }) }, t("game.start"))) : null,
    !session.user && !s.private ? h("p", {}, tParts("game.sign_in_to_join", { signin: h("a", { href: `/signin?next=/games/${page.id}` }, t("nav.sign_in")) })) : null,
    s.private && !seated ? h("p.muted", {}, t("game.private_note")) : null);
}

// A seat: who sits there, or empty with "add a bot" (for the creator) and "sit here" (for one signed in, not seated).
function seatLine(page, seat, { mine, seated, level }) {
  const empty = !seat.username && !seat.bot;
  return h("li", { "data-seat": seat.seat },
    seatSwatch(seat.seat), `${t("game.seat", { n: seat.seat + 1 })} `,
    empty ? h("span.muted", {}, t("game.empty")) : seatName(seat), " ",
    empty && mine ? h("button", { type: "button", "data-add-bot": seat.seat,
      onclick: () => page.seatAction("bots", { seat: seat.seat, level: level.value }) }, t("game.add_bot")) : null,
    empty && !seated && session.user && !page.game.summary.private ? h("button", { type: "button", "data-sit": seat.seat,
      onclick: () => page.seatAction("join", { seat: seat.seat }) }, t("game.sit")) : null);
}
