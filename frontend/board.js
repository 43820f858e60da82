// The board as SVG from the map data: cities at x/y, each route as its row of spaces (double routes side by side,
// tunnels outlined with dashes, ferries with locomotive spaces). A free route's spaces are pale and outlined in its
// colour; a claimed route is a row of its owner's trains: solid, in a seat colour no card uses, each with the
// seat's mark. Routes the player may claim wear a black-and-white halo that no route colour hides. City names keep
// a readable size on screen whatever the zoom. Pans and zooms with pointer, wheel, pinch and buttons (in a bar
// above the board, so they cover no city); on a narrow screen the board starts fitted to its width. The routes
// and cities the player may act on are one stop of the Tab key: the arrow keys move among them.
import { s, h } from "./dom.js";
import { EDGE, SEAT_FILL, SEAT_INK, SEAT_MARK, colourName, patternDefs, seatColourName } from "./colours.js";
import { t, tn } from "./i18n.js";

const CAR_WIDTH = 15;
const CITY_RADIUS = 10;
const GAP = 3;
const NAME_PX = 12.5; // a city name's size on screen, in CSS pixels ...
const NAME_UNITS = [17, 34]; // ... within these sizes in board units (larger ones would overlap their neighbours)

function routeGeometry(route, cities, offset) {
  const a = cities[route.a], b = cities[route.b];
  const dx = b.x - a.x, dy = b.y - a.y, d = Math.hypot(dx, dy);
  const ux = dx / d, uy = dy / d, nx = -uy, ny = ux;
  const usable = d - 2 * (CITY_RADIUS + 2);
  const step = usable / route.length;
  const angle = (Math.atan2(dy, dx) * 180) / Math.PI;
  const cars = [];
  for (let i = 0; i < route.length; i++) {
    const along = CITY_RADIUS + 2 + step * (i + 0.5);
    cars.push({ x: a.x + ux * along + nx * offset, y: a.y + uy * along + ny * offset });
  }
  return { cars, angle, carLength: Math.max(step - GAP, 4) };
}

function doubleOffsets(routes) {
  const groups = new Map();
  for (const r of routes) {
    const key = [r.a, r.b].sort().join("|");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const offsets = {};
  for (const group of groups.values()) {
    group.forEach((r, i) => {
      const flip = r.a > r.b ? -1 : 1; // same side whichever way the pair is written
      offsets[r.id] = group.length === 1 ? 0 : flip * (i - (group.length - 1) / 2) * (CAR_WIDTH + 3);
    });
  }
  return offsets;
}

function routeTitle(route, cities) {
  const kind = route.tunnel ? `, ${t("board.tunnel")}` : route.ferry_locomotives ? `, ${tn("board.ferry", route.ferry_locomotives)}` : "";
  return `${cities[route.a].name} – ${cities[route.b].name}: ${t("log.route_kind", { length: route.length, colour: colourName(route.color) })}${kind}`;
}

export const carTransform = (car, angle) => `translate(${car.x.toFixed(1)} ${car.y.toFixed(1)}) rotate(${angle.toFixed(1)})`;

function drawRoute(route, cities, offset) {
  const { cars, angle, carLength } = routeGeometry(route, cities, offset);
  const classes = ["route", route.tunnel && "tunnel", route.ferry_locomotives && "ferry"].filter(Boolean).join(".");
  return s(`g.${classes}`, {
    "data-route": route.id, "data-color": route.color, "data-length": route.length,
    "aria-label": routeTitle(route, cities), style: `--edge: ${EDGE[route.color] || "#333"}`,
  },
  s("title", { text: routeTitle(route, cities) }),
  cars.map((car, i) => s("g", { transform: carTransform(car, angle) },
    s("rect.car", {
      x: -carLength / 2, y: -CAR_WIDTH / 2, width: carLength, height: CAR_WIDTH, rx: 2.5,
      fill: `url(#pat-${route.color})`,
    }),
    i < route.ferry_locomotives ? s("g.loco", {},
      s("circle", { r: 5.2, fill: "#fff", stroke: "#222", "stroke-width": 1 }),
      s("text", { y: 3, "text-anchor": "middle", text: "L" })) : null,
    s("path.owner-mark", { d: "" }),
  )));
}

// The halo of a route the player may claim: drawn under every route (so it never covers a neighbour's spaces), a
// black ring around a white one, which shows on every route colour and on the map.
function drawHalo(route, cities, offset) {
  const { cars, angle, carLength } = routeGeometry(route, cities, offset);
  const box = { x: -carLength / 2, y: -CAR_WIDTH / 2, width: carLength, height: CAR_WIDTH, rx: 2.5 };
  return s("g.halo", { "data-halo": route.id },
    cars.map((car) => s("g", { transform: carTransform(car, angle) }, s("rect.outer", box), s("rect.inner", box))));
}

function drawCity(city) {
  return s("g.city", { "data-city": city.id, "aria-label": city.name },
    s("circle.halo", { cx: city.x, cy: city.y, r: CITY_RADIUS + 7 }),
    s("circle.dot", { cx: city.x, cy: city.y, r: CITY_RADIUS }),
    s("text.name", { x: city.x, y: city.y - CITY_RADIUS - 5, "text-anchor": "middle", text: city.name }));
}

export function createBoard(map) {
  const cities = Object.fromEntries(map.cities.map((c) => [c.id, c]));
  const routesById = Object.fromEntries(map.routes.map((r) => [r.id, r]));
  const offsets = doubleOffsets(map.routes);
  const xs = map.cities.map((c) => c.x), ys = map.cities.map((c) => c.y);
  const home = { x: Math.min(...xs) - 60, y: Math.min(...ys) - 50 };
  home.w = Math.max(...xs) + 60 - home.x;
  home.h = Math.max(...ys) + 40 - home.y;
  let box = { ...home };

  const stationLayer = s("g.stations");
  const overlay = s("g.overlay", { "aria-hidden": "true" }); // drawn by others: a better move's ghost (analysis.js)
  const keysHint = h("p.visually-hidden", { id: `board-keys-${map.map}` },
    t("board.keys"));
  const svg = s("svg.board", {
    viewBox: `${home.x} ${home.y} ${home.w} ${home.h}`, role: "group", style: `aspect-ratio: ${home.w} / ${home.h}`,
    "aria-label": t(`board.label.${map.map === "usa" ? "usa" : "europe"}`), "data-map": map.map, "aria-describedby": keysHint.id,
  },
  patternDefs(s),
  s("rect.sea", { x: home.x - 2000, y: home.y - 2000, width: home.w + 4000, height: home.h + 4000 }),
  s("g.halos", {}, map.routes.map((r) => drawHalo(r, cities, offsets[r.id]))),
  s("g.routes", {}, map.routes.map((r) => drawRoute(r, cities, offsets[r.id]))),
  overlay,
  s("g.cities", {}, map.cities.map(drawCity)),
  stationLayer);

  // Board units per CSS pixel now: city names and halos are sized from it, so they read the same at any zoom.
  const rescale = () => {
    const rect = svg.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    const unit = Math.max(box.w / rect.width, box.h / rect.height);
    const name = Math.min(Math.max(NAME_PX * unit, NAME_UNITS[0]), NAME_UNITS[1]);
    svg.style.setProperty("--unit", unit.toFixed(3));
    svg.style.setProperty("--name", `${name.toFixed(1)}px`);
  };
  const setBox = (next) => {
    const w = Math.min(Math.max(next.w, home.w / 8), home.w * 1.5);
    const h = (w / next.w) * next.h;
    box = { x: next.x + (next.w - w) / 2, y: next.y + (next.h - h) / 2, w, h };
    svg.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`);
    rescale();
  };
  if (window.ResizeObserver) new ResizeObserver(rescale).observe(svg);
  const zoom = (factor, cx = box.x + box.w / 2, cy = box.y + box.h / 2) =>
    setBox({ x: cx - (cx - box.x) * factor, y: cy - (cy - box.y) * factor, w: box.w * factor, h: box.h * factor });
  const toBoard = (event) => {
    const rect = svg.getBoundingClientRect();
    const scale = Math.max(box.w / rect.width, box.h / rect.height);
    return { scale, x: box.x + (event.clientX - rect.left) * scale, y: box.y + (event.clientY - rect.top) * scale };
  };

  // Pointer pan and pinch zoom; a drag longer than a few pixels is not a click.
  const pointers = new Map();
  let dragged = 0;
  svg.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 1) dragged = 0;
  });
  svg.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    const { scale } = toBoard(e);
    if (pointers.size === 1) {
      dragged += Math.abs(e.clientX - last.x) + Math.abs(e.clientY - last.y);
      if (dragged > 6) {
        svg.setPointerCapture?.(e.pointerId);
        setBox({ ...box, x: box.x - (e.clientX - last.x) * scale, y: box.y - (e.clientY - last.y) * scale });
      }
    } else if (pointers.size === 2) {
      const other = [...pointers.entries()].find(([id]) => id !== e.pointerId)[1];
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(e.clientX - other.x, e.clientY - other.y);
      dragged = 100;
      if (before > 0 && after > 0) {
        const mid = toBoard({ clientX: (e.clientX + other.x) / 2, clientY: (e.clientY + other.y) / 2 });
        zoom(before / after, mid.x, mid.y);
      }
    }
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
  });
  const release = (e) => pointers.delete(e.pointerId);
  svg.addEventListener("pointerup", release);
  svg.addEventListener("pointercancel", release);
  svg.addEventListener("click", (e) => { if (dragged > 6) e.stopPropagation(); }, true);
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = toBoard(e);
    zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
  }, { passive: false });

  const controls = h("div.zoom", { role: "group", "aria-label": t("board.zoom") },
    h("span.muted.zoom-hint", {}, t("board.zoom_hint")),
    h("button", { type: "button", "aria-label": t("board.zoom_in"), onclick: () => zoom(1 / 1.4) }, "+"),
    h("button", { type: "button", "aria-label": t("board.zoom_out"), onclick: () => zoom(1.4) }, "−"),
    h("button", { type: "button", "aria-label": t("board.whole"), onclick: () => setBox(home) }, "⤢"));
  const element = h("div.board-wrap", {}, controls, svg, keysHint);

  const routeEl = (id) => svg.querySelector(`[data-route="${id}"]`);
  const cityEl = (id) => svg.querySelector(`[data-city="${id}"]`);
  const haloEl = (id) => svg.querySelector(`[data-halo="${id}"]`);

  // An element the player may act on: activated with a click, Enter or Space, named for what it does. Only one
  // of them at a time is in the Tab order (tabindex 0, the rest -1): the arrow keys move among them (see below).
  function clickable(el, label, onActivate) {
    el.classList.add("active");
    el.setAttribute("aria-label", label);
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
    el.setAttribute("role", "button");
    el.onclick = onActivate;
    el.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onActivate(); } };
  }
  function inert(el, label) {
    if (!el.classList.contains("active")) return;
    el.setAttribute("aria-label", label);
    el.classList.remove("active");
    el.removeAttribute("tabindex");
    el.removeAttribute("role");
    el.onclick = el.onkeydown = null;
  }
  const actives = () => [...svg.querySelectorAll(".route.active, .city.active")];
  function rove(to) {
    for (const el of svg.querySelectorAll(".active[tabindex='0']")) if (el !== to) el.setAttribute("tabindex", "-1");
    to?.setAttribute("tabindex", "0");
  }
  // Where an element stands on the board: a route's middle, a city's centre.
  function centre(el) {
    if (el.dataset.city) return cities[el.dataset.city];
    const r = routesById[el.dataset.route], a = cities[r.a], b = cities[r.b];
    return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }
  // The arrow keys move to the nearest element the player may act on in that direction (Home, End: first, last).
  const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
  svg.addEventListener("keydown", (e) => {
    const from = e.target.closest?.(".active");
    if (!from || !(e.key in ARROWS || e.key === "Home" || e.key === "End")) return;
    e.preventDefault();
    const all = actives();
    let to = e.key === "Home" ? all[0] : e.key === "End" ? all[all.length - 1] : null;
    if (!to) {
      const [dx, dy] = ARROWS[e.key], c = centre(from);
      let best = Infinity;
      for (const el of all) {
        const p = centre(el), along = (p.x - c.x) * dx + (p.y - c.y) * dy;
        const across = Math.abs((p.x - c.x) * dy - (p.y - c.y) * dx);
        if (el !== from && along > 1 && along + 2 * across < best) { best = along + 2 * across; to = el; }
      }
    }
    if (to) { rove(to); to.focus(); }
  });
  svg.addEventListener("focusin", (e) => { const el = e.target.closest?.(".active"); if (el) rove(el); });
  // A route's halo follows the pointer and the focus on it (the halo lies in a layer of its own, under the routes).
  const hot = (on) => (e) => {
    const g = e.target.closest?.(".route.active");
    if (g) haloEl(g.dataset.route)?.classList.toggle("hot", on);
  };
  svg.addEventListener("focusin", hot(true));
  svg.addEventListener("focusout", hot(false));
  svg.addEventListener("pointerover", hot(true));
  svg.addEventListener("pointerout", hot(false));

  // The whole board, fitted to the width it is given (on a phone too: one drags and zooms from there).
  function fitScreen() {
    setBox(home);
  }

  return {
    element, svg, cities, routes: routesById, hasStations: map.stations_per_player > 0, fitScreen, overlay,
    // Where a route's spaces lie ({cars: [{x, y}], angle, carLength}): to draw over them (analysis.js).
    geometry: (id) => (routesById[id] ? routeGeometry(routesById[id], cities, offsets[id]) : null),
    carWidth: CAR_WIDTH,
    // Owners of routes and stations from a view: {route: seat}, {city: seat}.
    update(routeOwners, stationOwners) {
      for (const g of svg.querySelectorAll(".route")) {
        const owner = routeOwners[g.dataset.route];
        if (String(owner ?? "") === (g.dataset.owner ?? "")) continue;
        if (owner === undefined) {
          g.removeAttribute("data-owner");
          g.style.removeProperty("--owner");
          g.style.removeProperty("--owner-ink");
        } else {
          g.setAttribute("data-owner", owner);
          g.style.setProperty("--owner", SEAT_FILL[owner]);
          g.style.setProperty("--owner-ink", SEAT_INK[owner]);
        }
        for (const mark of g.querySelectorAll(".owner-mark")) mark.setAttribute("d", owner === undefined ? "" : SEAT_MARK[owner]);
        const title = routeTitle(routesById[g.dataset.route], cities);
        g.querySelector("title").textContent = owner === undefined ? title : t("board.owned", { title, n: Number(owner) + 1, colour: seatColourName(owner) });
      }
      stationLayer.replaceChildren(...Object.entries(stationOwners).map(([city, seat]) => {
        const c = cities[city];
        return s("g.station", { "data-station": city, "data-owner": seat, transform: `translate(${c.x + 12} ${c.y + 8}) scale(1.5)` },
          s("title", { text: t("board.station", { n: Number(seat) + 1, colour: seatColourName(seat), city: c.name }) }),
          s("path", { d: "M-7,8V-2L0,-9L7,-2V8Z", fill: SEAT_FILL[seat], stroke: "#1f1d1a", "stroke-width": 1.5 }),
          s("path", { d: SEAT_MARK[seat], transform: "translate(0 1.5) scale(.75)", fill: SEAT_INK[seat] }));
      }));
    },
    // Routes and cities the player may act on now; the rest inert.
    setActive(routeIds, onRoute, cityIds, onCity) {
      for (const g of svg.querySelectorAll(".route")) {
        const title = routeTitle(routesById[g.dataset.route], cities);
        const on = routeIds.has(g.dataset.route);
        if (on) clickable(g, t("board.claim", { title }), () => onRoute(g.dataset.route));
        else inert(g, title);
        haloEl(g.dataset.route).classList.toggle("on", on);
      }
      for (const g of svg.querySelectorAll(".city")) {
        const name = cities[g.dataset.city].name;
        if (cityIds.has(g.dataset.city)) clickable(g, t("board.build", { city: name }), () => onCity(g.dataset.city));
        else inert(g, name);
      }
      // One Tab stop for the lot: the one that had it (or the focus) while it is still offered, else the first.
      const kept = svg.querySelector(".active[tabindex='0']");
      rove(kept || actives()[0]);
    },
    select(routeId) {
      for (const g of svg.querySelectorAll(".route.selected, .halo.selected")) g.classList.remove("selected");
      if (routeId) {
        routeEl(routeId)?.classList.add("selected");
        haloEl(routeId)?.classList.add("selected");
      }
    },
    highlight(cityIds) {
      for (const g of svg.querySelectorAll(".city.highlight")) g.classList.remove("highlight");
      for (const id of cityIds || []) cityEl(id)?.classList.add("highlight");
    },
  };
}
