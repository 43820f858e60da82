// The game page's status bar. Whose turn it is reads at a glance: a banner at the top of the page (whose move, what
// to do, the last round, the clock; it stays in view while the page scrolls) over a line of smaller facts (the map,
// the time control, whether the page hears the game, watching, the replay's link, the chime's and the confirmation's
// switches); the turn told once aloud for screen readers, the tab's title ("● Your turn — Ticket to Ride") and a
// short chime (chime.js).
//
// The banner keeps one height whatever it says (game.css), so that the board under it never moves when the turn
// changes. On a phone only the banner stays at the top (no more than about 60 px); the line of facts goes under the
// board (`below`, placed by the page). A daily game's clock tells the move's own days and the bank apart: "20 h left to decide · bank 3 days",
// then, once the move's days are spent, "2 d 4 h left to decide, from the bank".
import { h, mount } from "./dom.js";
import { durationText, listText, mapName, seatName, timeControlText, timeLeftText } from "./words.js";
import { t, tn } from "./i18n.js";
import { chime, setSound, soundOn } from "./chime.js";
import { confirmAll, setConfirmAll } from "./gameconfirm.js";

const PHASES = ["setup_tickets", "turn", "second_card", "tunnel_payment", "keep_tickets", "finished", "open"];
const phaseText = (phase) => (PHASES.includes(phase) ? t(`game.phase.${phase}`) : phase);

// What the banner asks of the player, by the phase of the game.
const MINE = { setup_tickets: "tickets", keep_tickets: "tickets", turn: "turn", second_card: "second_card", tunnel_payment: "tunnel_payment" };

// The clock's words: a live game's time left; a daily game's (data-bank: the deciding seat's bank in seconds, which
// the decision draws on only once the move's own days are spent) the move's time and the bank apart.
function clockText(el, now = Date.now()) {
  const deadline = el.dataset.deadline;
  if (el.dataset.format === "short") return timeLeftText(deadline, now);
  if (el.dataset.bank === undefined) return t("game.clock", { time: timeLeftText(deadline, now) });
  const bank = Number(el.dataset.bank);
  const moveEnds = new Date(deadline).getTime() - bank * 1000;
  if (now < moveEnds) return t("game.clock_move", { time: timeLeftText(moveEnds, now), bank: durationText(bank) });
  return t("game.clock_bank", { time: timeLeftText(deadline, now) });
}

// Every clock under `root` told again (each second): the banner's, and the players' table's short ones.
export function tickClocks(root) {
  for (const clock of root.querySelectorAll("[data-deadline]")) {
    const text = clockText(clock);
    if (clock.textContent !== text) clock.textContent = text;
  }
}

// A game's speed as the status bar says it: "daily, 2 days a move, bank 4 days"; a live game's as the lobby does.
function speedText(summary) {
  if (summary.speed !== "daily") return timeControlText(summary);
  const per = tn("log.dur.days", summary.days_per_move || 1);
  return summary.bank_days ? t("game.tc_daily_bank", { per, bank: tn("log.dur.days", summary.bank_days) }) : t("game.tc_daily", { per });
}

export class StatusBar {
  // `game`: the GameState; `root`: the page's element, where the chimes sounded are counted (data-chimes).
  constructor(game, root) {
    this.game = game;
    this.root = root;
    this.element = h("div.status-bar");
    this.below = h("div.status-below"); // the facts' place on a phone
    this.news = h("p.visually-hidden", { "aria-live": "polite" }); // whose move, told once per change
    this.narrow = window.matchMedia("(max-width: 900px)");
    this.narrow.addEventListener?.("change", () => this.render());
  }

  render() {
    const v = this.game.view;
    const seats = this.game.summary.seats;
    const deciding = v ? (v.deciding_seats || [v.current_seat]).filter((x) => x !== null && x !== undefined) : [];
    const mine = Boolean(v && v.phase !== "finished" && deciding.includes(this.game.mySeat));
    const others = listText(deciding.filter((x) => x !== this.game.mySeat).map((x) => seatName(seats[x], seats)));
    const facts = this.facts(v);
    mount(this.element, this.banner(v, mine, deciding, others), this.narrow.matches ? null : facts);
    mount(this.below, this.narrow.matches ? facts : null);
    const news = !v ? "" : v.phase === "finished" ? t("game.news_over") : mine ? t("game.news_mine") : t("game.news_others", { names: others || t("game.nobody") });
    if (this.news.textContent !== news) this.news.textContent = news;
    this.turnTold(v ? mine : undefined);
  }

  // Whose move, what to do, the last round, the clock (an empty banner of the same height before the view is read).
  banner(v, mine, deciding, others) {
    if (!v) return h("div.turn-banner.empty", { "aria-hidden": "true" });
    const phase = v.phase;
    if (phase === "finished") {
      return h("div.turn-banner.over", {}, h("span.turn-text", {}, h("strong.game-over", {}, t("game.game_over")), this.winnersText()));
    }
    const last = v.last_round ? h("span.last-round", {}, t("game.last_round")) : null;
    const clock = v.deadline ? this.clock(v, mine ? this.game.mySeat : deciding[0]) : null;
    if (mine) {
      const todo = MINE[phase] ? t(`game.mine.${MINE[phase]}`) : phaseText(phase);
      return h("div.turn-banner.mine", { "data-turn": this.game.mySeat }, // told aloud once by the news, not each redraw
        h("span.turn-text", {}, h("strong.turn-now", {}, t("game.your_move_now")), h("span.turn-todo", {}, `: ${todo}`)), last, clock);
    }
    return h("div.turn-banner", { "data-turn": deciding[0] ?? "" },
      h("span.turn-text", {}, others ? t("game.to_play", { names: others }) : t("game.waiting"), h("span.turn-todo", {}, ` (${phaseText(phase)})`)),
      last, clock);
  }

  // The deciding seat's clock; in a daily game with its bank told apart.
  clock(v, seat) {
    const bank = this.game.summary.speed === "daily" && v.banks && typeof v.banks === "object" ? v.banks[seat] : undefined;
    const el = h("span.clock", { "data-deadline": v.deadline });
    if (typeof bank === "number") el.dataset.bank = String(bank);
    el.textContent = clockText(el);
    return el;
  }

  facts(v) {
    const game = this.game, summary = game.summary;
    const playing = game.mySeat !== null && v && v.phase !== "finished";
    return h("div.status-meta", {},
      h("strong", {}, mapName(summary.map)),
      h("span.time-control", {}, speedText(summary), summary.private ? ` · ${t("game.private")}` : ""),
      game.closed ? null : h(`span.conn${game.online ? "" : ".offline"}`, { "data-online": String(game.online), role: "status" },
        game.online ? t("game.live") : t("game.offline")),
      game.mySeat === null && v ? h("span.muted", {}, t("game.watching")) : null,
      game.status === "finished" ? h("a", { href: `/games/${game.id}/replay` }, t("lobby.replay")) : null,
      playing ? this.soundToggle() : null,
      playing ? this.confirmToggle() : null);
  }

  winnersText() {
    const score = this.game.score;
    if (!score) return null;
    const seats = this.game.summary.seats;
    const first = score.scores.filter((x) => x.place === 1).map((x) => seatName(seats[x.seat] || x, seats));
    return `: ${t(first.length > 1 ? "game.wins_many" : "game.wins_one", { names: listText(first) })}`;
  }

  // The tab's title says when it is your turn; the chime sounds when the turn comes (not for the page's first look).
  turnTold(mine) {
    if (!document.title.startsWith("● ")) this.baseTitle = document.title;
    const title = mine ? t("game.title_turn") : this.baseTitle;
    if (document.title !== title) document.title = title;
    if (mine && this.wasMine === false && soundOn()) this.root.dataset.chimes = String(Number(this.root.dataset.chimes || 0) + chime());
    if (mine !== undefined) this.wasMine = mine;
  }

  soundToggle() {
    const on = soundOn();
    return h("button.sound-toggle", { type: "button", "aria-pressed": String(on), "data-action": "sound",
      title: on ? t("game.chime_on") : t("game.chime_off"),
      onclick: () => {
        setSound(!on);
        if (!on) chime(); // a sample, on the press that turned it on
        this.render();
        this.root.querySelector(".sound-toggle")?.focus();
      } }, on ? t("game.sound_on") : t("game.sound_off"));
  }

  // "Confirm every move": draws and tickets too ask first (a claim or a station always does: gameconfirm.js).
  confirmToggle() {
    const on = confirmAll();
    return h("button.confirm-toggle", { type: "button", "aria-pressed": String(on), "data-action": "confirm-all",
      title: t("game.confirm_all_note"),
      onclick: () => {
        setConfirmAll(!on);
        this.render();
        this.root.querySelector(".confirm-toggle")?.focus();
      } }, t("game.confirm_all"));
  }
}
