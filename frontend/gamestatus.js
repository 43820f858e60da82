// The game page's status bar. Whose turn it is reads at a glance: a banner at the top of the page (whose move, what
// to do, the clock; it stays in view while the page scrolls) over a line of smaller facts (the map, the time
// control, online or not, the last round, watching, the replay's link, the chime's switch); the turn told once
// aloud for screen readers, the tab's title ("● Your turn — Ticket to Ride") and a short chime (chime.js).
import { h, mount } from "./dom.js";
import { listText, mapName, seatName, timeControlText, timeLeftText } from "./words.js";
import { t } from "./i18n.js";
import { chime, setSound, soundOn } from "./chime.js";

const PHASES = ["setup_tickets", "turn", "second_card", "tunnel_payment", "keep_tickets", "finished", "open"];
const phaseText = (phase) => (PHASES.includes(phase) ? t(`game.phase.${phase}`) : phase);

const clockText = (deadline) => t("game.clock", { time: timeLeftText(deadline) });

// What the banner asks of the player, by the phase of the game.
const MINE = { setup_tickets: "tickets", keep_tickets: "tickets", turn: "turn", second_card: "second_card", tunnel_payment: "tunnel_payment" };

// Every clock under `root` told again (each second): the banner's, and the players' table's short ones.
export function tickClocks(root) {
  for (const clock of root.querySelectorAll("[data-deadline]")) {
    clock.textContent = clock.dataset.format === "short" ? timeLeftText(clock.dataset.deadline) : clockText(clock.dataset.deadline);
  }
}

export class StatusBar {
  // `game`: the GameState; `root`: the page's element, where the chimes sounded are counted (data-chimes).
  constructor(game, root) {
    this.game = game;
    this.root = root;
    this.element = h("div.status-bar");
    this.news = h("p.visually-hidden", { "aria-live": "polite" }); // whose move, told once per change
  }

  render() {
    const v = this.game.view;
    const seats = this.game.summary.seats;
    const deciding = v ? (v.deciding_seats || [v.current_seat]).filter((x) => x !== null && x !== undefined) : [];
    const mine = Boolean(v && v.phase !== "finished" && deciding.includes(this.game.mySeat));
    const others = listText(deciding.filter((x) => x !== this.game.mySeat).map((x) => seatName(seats[x], seats)));
    mount(this.element, this.banner(v, mine, deciding, others), this.facts(v));
    const news = !v ? "" : v.phase === "finished" ? t("game.news_over") : mine ? t("game.news_mine") : t("game.news_others", { names: others || t("game.nobody") });
    if (this.news.textContent !== news) this.news.textContent = news;
    this.turnTold(v ? mine : undefined);
  }

  // Whose move, what to do, the clock (none before the game's view is read).
  banner(v, mine, deciding, others) {
    if (!v) return null;
    const phase = v.phase;
    const clock = v.deadline && v.phase !== "finished" ? h("span.clock", { "data-deadline": v.deadline }, clockText(v.deadline)) : null;
    if (v.phase === "finished") {
      return h("div.turn-banner.over", {}, h("span", {}, h("strong.game-over", {}, t("game.game_over")), this.winnersText()));
    }
    if (mine) {
      return h("div.turn-banner.mine", { "data-turn": this.game.mySeat }, // told aloud once by the news, not each redraw
        h("span", {}, h("strong.turn-now", {}, t("game.your_move_now")), `: ${MINE[phase] ? t(`game.mine.${MINE[phase]}`) : phaseText(phase)}`), clock);
    }
    return h("div.turn-banner", { "data-turn": deciding[0] ?? "" },
      h("span", {}, others ? t("game.to_play", { names: others }) : t("game.waiting"), ` (${phaseText(phase)})`), clock);
  }

  facts(v) {
    const game = this.game, summary = game.summary;
    return h("div.status-meta", {},
      h("strong", {}, mapName(summary.map)),
      h("span.time-control", {}, timeControlText(summary), summary.private ? ` · ${t("game.private")}` : ""),
      game.closed ? null : h(`span.conn${game.online ? "" : ".offline"}`, { "data-online": String(game.online), role: "status" },
        game.online ? t("game.live") : t("game.offline")),
      v && v.last_round && v.phase !== "finished" ? h("span.error", {}, t("game.last_round")) : null,
      game.mySeat === null && v ? h("span.muted", {}, t("game.watching")) : null,
      game.status === "finished" ? h("a", { href: `/games/${game.id}/replay` }, t("lobby.replay")) : null,
      game.mySeat !== null && v && v.phase !== "finished" ? this.soundToggle() : null);
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
        this.element.querySelector(".sound-toggle")?.focus();
      } }, on ? t("game.sound_on") : t("game.sound_off"));
  }
}
