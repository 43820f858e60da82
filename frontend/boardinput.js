// What the player may do on the board: the routes and cities they may act on are activated with a click, Enter or
// Space (a tap: boardtap.js), named for what they do, and are one stop of the Tab key (tabindex 0, the rest -1): the
// arrow keys move among them. A route's halo shows while it may be claimed, and stands out under the pointer and the
// focus. A click on a route not offered (or a tap that reaches none offered) calls the page's refusal, so that it
// can say why.
import { t } from "./i18n.js";
import { routeTitle } from "./boarddraw.js";

const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };

const haloOf = (svg, id) => svg.querySelector(`[data-halo="${id}"]`);
const ACTIONS = new WeakMap(); // an offered element: what acting on it does
const REFUSALS = new WeakMap(); // a board: what a click on a route not offered does

// What acting on an offered route or city does (undefined: it is not offered).
export const actionOf = (el) => ACTIONS.get(el);
// A route not offered was clicked or tapped: the page's refusal, if it gave one.
export const refuse = (svg, routeId) => REFUSALS.get(svg)?.(routeId);
const actives = (svg) => [...svg.querySelectorAll(".route.active, .city.active")];

function clickable(el, label, onActivate) {
  el.classList.add("active");
  el.setAttribute("aria-label", label);
  if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
  el.setAttribute("role", "button");
  el.onclick = onActivate;
  ACTIONS.set(el, onActivate);
  el.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onActivate(); } };
}

function inert(el, label) {
  if (!el.classList.contains("active")) return;
  el.setAttribute("aria-label", label);
  el.classList.remove("active");
  el.removeAttribute("tabindex");
  el.setAttribute("role", "img"); // a named piece of the picture (an aria-label needs a role that allows one)
  el.onclick = el.onkeydown = null;
  ACTIONS.delete(el);
}

// The one Tab stop moves to `to`.
function rove(svg, to) {
  for (const el of svg.querySelectorAll(".active[tabindex='0']")) if (el !== to) el.setAttribute("tabindex", "-1");
  to?.setAttribute("tabindex", "0");
}

// Routes (`routeIds`, a Set) and cities the player may act on now, and what acting on one does; the rest inert.
// `onRefused(routeId)`, optional: a route not offered was clicked or tapped (none offered lay within reach).
export function setActive(svg, plan, routeIds, onRoute, cityIds, onCity, onRefused) {
  if (onRefused) REFUSALS.set(svg, onRefused);
  else REFUSALS.delete(svg);
  for (const g of svg.querySelectorAll(".route")) {
    const title = routeTitle(plan.routes[g.dataset.route], plan.cities);
    const on = routeIds.has(g.dataset.route);
    if (on) clickable(g, t("board.claim", { title }), () => onRoute(g.dataset.route));
    else inert(g, title);
    haloOf(svg, g.dataset.route).classList.toggle("on", on);
  }
  for (const g of svg.querySelectorAll(".city")) {
    const name = plan.cities[g.dataset.city].name;
    if (cityIds.has(g.dataset.city)) clickable(g, t("board.build", { city: name }), () => onCity(g.dataset.city));
    else inert(g, name);
  }
  // One Tab stop for the lot: the one that had it (or the focus) while it is still offered, else the first.
  const kept = svg.querySelector(".active[tabindex='0']");
  rove(svg, kept || actives(svg)[0]);
}

// Where an element stands on the board: a route's middle, a city's centre.
function centre(el, plan) {
  if (el.dataset.city) return plan.cities[el.dataset.city];
  const r = plan.routes[el.dataset.route], a = plan.cities[r.a], b = plan.cities[r.b];
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

// The nearest of `all` from `from` in the arrow's direction, [dx, dy]; undefined when none lies that way.
function nearest(from, all, [dx, dy], plan) {
  const c = centre(from, plan);
  let best = Infinity, to;
  for (const el of all) {
    const p = centre(el, plan), along = (p.x - c.x) * dx + (p.y - c.y) * dy;
    const across = Math.abs((p.x - c.x) * dy - (p.y - c.y) * dx);
    if (el !== from && along > 1 && along + 2 * across < best) { best = along + 2 * across; to = el; }
  }
  return to;
}

// The arrow keys move to the nearest element the player may act on in that direction (Home, End: first, last);
// the Tab stop follows the focus; a click on a route not offered is refused; a route's halo follows the pointer and the focus on it (the halo lies in a layer
// of its own, under the routes).
export function listenKeys(svg, plan) {
  svg.addEventListener("keydown", (e) => {
    const from = e.target.closest?.(".active");
    if (!from || !(e.key in ARROWS || e.key === "Home" || e.key === "End")) return;
    e.preventDefault();
    const all = actives(svg);
    const to = e.key === "Home" ? all[0] : e.key === "End" ? all[all.length - 1] : nearest(from, all, ARROWS[e.key], plan);
    if (to) { rove(svg, to); to.focus(); }
  });
  svg.addEventListener("focusin", (e) => { const el = e.target.closest?.(".active"); if (el) rove(svg, el); });
  svg.addEventListener("click", (e) => {
    const route = e.target.closest?.(".route");
    if (route && !route.classList.contains("active")) refuse(svg, route.dataset.route);
  });
  const hot = (on) => (e) => {
    const g = e.target.closest?.(".route.active");
    if (g) haloOf(svg, g.dataset.route)?.classList.toggle("hot", on);
  };
  svg.addEventListener("focusin", hot(true));
  svg.addEventListener("focusout", hot(false));
  svg.addEventListener("pointerover", hot(true));
  svg.addEventListener("pointerout", hot(false));
}
