// Taps that land: a finger covers several spaces of the fitted board (a car is about 9 by 14 CSS px on a phone), so
// a touch or pen tap does not act on the element under it but on the route or city offered (boardinput.js's
// active ones) whose nearest space or dot lies nearest the tap, within REACH CSS px. When two or more lie about
// equally near (within TIE px of the nearest), a small chooser over the board asks which, naming each; its buttons
// are keyboard stops, Escape closes it. A tap that reaches nothing offered but lands on a route calls the board's
// refusal (boardinput.js) with that route's id. A mouse click is left to the element clicked, as before.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { routeGeometry } from "./boardgeometry.js";
import { actionOf, refuse } from "./boardinput.js";

export const REACH = 24;
export const TIE = 6;

// Where each route's spaces and each city lie, in board units.
function spots(plan) {
  const routes = Object.values(plan.routes).map((r) => ({ id: r.id, at: routeGeometry(r, plan.cities, plan.offsets[r.id]).cars }));
  return { routes, cities: Object.values(plan.cities) };
}

// The offered routes and cities within REACH of `at` ({x, y, scale}: board units, units per CSS px), nearest first,
// each with its distance in CSS px.
function offeredNear(svg, places, at) {
  const px = (p) => Math.hypot(p.x - at.x, p.y - at.y) / at.scale;
  const found = [];
  for (const r of places.routes) {
    const el = svg.querySelector(`.route.active[data-route="${r.id}"]`);
    if (el) found.push({ el, px: Math.min(...r.at.map(px)) });
  }
  for (const c of places.cities) {
    const el = svg.querySelector(`.city.active[data-city="${c.id}"]`);
    if (el) found.push({ el, px: px(c) });
  }
  return found.filter((f) => f.px <= REACH).sort((a, b) => a.px - b.px);
}

// The route a tap lands on, offered or not: the one under the finger, else the nearest space within half a reach.
function routeAt(event, places, at) {
  const under = event.target.closest?.(".route");
  if (under) return under.dataset.route;
  let best = REACH / 2, id = null;
  for (const r of places.routes) {
    for (const p of r.at) {
      const d = Math.hypot(p.x - at.x, p.y - at.y) / at.scale;
      if (d < best) { best = d; id = r.id; }
    }
  }
  return id;
}

// Listens for taps on the board (`view`: boardzoom.js's, for where a tap falls and whether it was a drag). The tap is
// the click that follows a touch or pen's pointerup without a drag; it is taken where the finger lifted, since the
// browser moves a tap's click onto the nearest clickable element it guesses (Chromium's touch adjustment).
export function listenTaps(svg, plan, view) {
  const places = spots(plan);
  let lifted = null;
  svg.addEventListener("pointerup", (e) => {
    lifted = e.pointerType === "mouse" ? null : { clientX: e.clientX, clientY: e.clientY, target: e.target };
  });
  svg.addEventListener("click", (e) => {
    if (e.pointerType !== "touch" && e.pointerType !== "pen") return;
    e.stopPropagation(); // the element under the finger is not the one acted on: the nearest offered one is
    const tap = lifted || e;
    lifted = null;
    if (view.dragged > 6) return;
    const at = view.toBoard(tap);
    const near = offeredNear(svg, places, at);
    if (!near.length) {
      const id = routeAt(tap, places, at);
      if (id) refuse(svg, id);
      return;
    }
    const close = near.filter((n) => n.px - near[0].px <= TIE);
    if (close.length > 1) choose(svg, close.map((n) => n.el), tap);
    else actionOf(near[0].el)?.();
  }, true);
}

// The chooser: "Which route?" (or "Which one?" when a city is among them), a button naming each, and Cancel. It
// opens by the tap, inside the board's frame; the first choice has the focus; Escape, Cancel or a new state that no
// longer offers one of its choices (closeChooser) close it, giving the focus back.
export function choose(svg, els, event) {
  closeChooser(svg);
  const wrap = svg.parentElement;
  const back = document.activeElement;
  const close = () => { box.remove(); if (back?.isConnected) back.focus?.({ preventScroll: true }); };
  const cities = els.some((el) => el.dataset.city);
  const title = h("p.chooser-title", { id: `chooser-${svg.dataset.map}` }, t(cities ? "board.which" : "board.which_route"));
  const box = h("div.board-chooser", { role: "dialog", "aria-labelledby": title.id, "data-chooser": "" },
    title,
    els.map((el) => h("button", { type: "button", "data-choice": el.dataset.route || el.dataset.city,
      onclick: () => { close(); actionOf(el)?.(); } }, el.getAttribute("aria-label"))),
    h("button.cancel", { type: "button", onclick: close }, t("board.cancel")));
  box.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); close(); } });
  wrap.append(box);
  const frame = wrap.getBoundingClientRect(), size = box.getBoundingClientRect();
  const left = Math.min(Math.max(event.clientX - frame.left - size.width / 2, 4), frame.width - size.width - 4);
  const top = event.clientY - frame.top + 16 + size.height < frame.height
    ? event.clientY - frame.top + 16 : Math.max(event.clientY - frame.top - 16 - size.height, 4);
  box.style.left = `${Math.max(left, 4)}px`;
  box.style.top = `${top}px`;
  box.querySelector("button").focus({ preventScroll: true });
}

// `stillOffered(id)`, when given, keeps the chooser open while it holds for every route or city the chooser names.
export function closeChooser(svg, stillOffered) {
  const box = svg.parentElement?.querySelector(":scope > .board-chooser");
  if (!box) return;
  if (stillOffered && [...box.querySelectorAll("[data-choice]")].every((b) => stillOffered(b.dataset.choice))) return;
  box.remove();
}
