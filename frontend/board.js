// The board as SVG from the map data: cities at x/y, each route as its row of coloured spaces (double routes
// side by side, tunnels outlined with dashes, ferries with locomotive spaces), claimed routes in their owner's
// colour, stations on cities. Pans and zooms with pointer, wheel, pinch and buttons.
import { s, h } from "./dom.js";
import { SEAT_FILL, patternDefs } from "./colours.js";

const CAR_WIDTH = 15;
const CITY_RADIUS = 10;
const GAP = 3;

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
  const kind = route.tunnel ? ", tunnel" : route.ferry_locomotives ? `, ferry (${route.ferry_locomotives} locomotive)` : "";
  return `${cities[route.a].name} – ${cities[route.b].name}: ${route.length} ${route.color}${kind}`;
}

function drawRoute(route, cities, offset) {
  const { cars, angle, carLength } = routeGeometry(route, cities, offset);
  const classes = ["route", route.tunnel && "tunnel", route.ferry_locomotives && "ferry"].filter(Boolean).join(".");
  return s(`g.${classes}`, {
    "data-route": route.id, "data-color": route.color, "data-length": route.length,
    "aria-label": routeTitle(route, cities),
  },
  s("title", { text: routeTitle(route, cities) }),
  cars.map((car, i) => s("g", { transform: `translate(${car.x.toFixed(1)} ${car.y.toFixed(1)}) rotate(${angle.toFixed(1)})` },
    s("rect.car", {
      x: -carLength / 2, y: -CAR_WIDTH / 2, width: carLength, height: CAR_WIDTH, rx: 2.5,
      fill: `url(#pat-${route.color})`,
    }),
    i < route.ferry_locomotives ? s("g.loco", {},
      s("circle", { r: 5.2, fill: "#fff", stroke: "#222", "stroke-width": 1 }),
      s("text", { y: 3, "text-anchor": "middle", text: "L" })) : null,
    s("text.owner-mark", { y: 4, "text-anchor": "middle" }),
  )));
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
  const svg = s("svg.board", {
    viewBox: `${home.x} ${home.y} ${home.w} ${home.h}`, role: "group", style: `aspect-ratio: ${home.w} / ${home.h}`,
    "aria-label": `${map.map} board`, "data-map": map.map,
  },
  patternDefs(s),
  s("rect.sea", { x: home.x - 2000, y: home.y - 2000, width: home.w + 4000, height: home.h + 4000 }),
  s("g.routes", {}, map.routes.map((r) => drawRoute(r, cities, offsets[r.id]))),
  s("g.cities", {}, map.cities.map(drawCity)),
  stationLayer);

  const setBox = (next) => {
    const w = Math.min(Math.max(next.w, home.w / 8), home.w * 1.5);
    const h = (w / next.w) * next.h;
    box = { x: next.x + (next.w - w) / 2, y: next.y + (next.h - h) / 2, w, h };
    svg.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`);
  };
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

  const controls = h("div.zoom", { role: "group", "aria-label": "Zoom the board" },
    h("button", { type: "button", "aria-label": "Zoom in", onclick: () => zoom(1 / 1.4) }, "+"),
    h("button", { type: "button", "aria-label": "Zoom out", onclick: () => zoom(1.4) }, "−"),
    h("button", { type: "button", "aria-label": "Show the whole board", onclick: () => setBox(home) }, "⤢"));
  const element = h("div.board-wrap", {}, svg, controls);

  const routeEl = (id) => svg.querySelector(`[data-route="${id}"]`);
  const cityEl = (id) => svg.querySelector(`[data-city="${id}"]`);

  // An element the player may act on: reached with Tab, activated with Enter or Space, named for what it does.
  function clickable(el, label, onActivate) {
    el.classList.add("active");
    el.setAttribute("aria-label", label);
    el.setAttribute("tabindex", "0");
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

  // On a narrow screen the board is shown taller than its width allows: the whole height, panned sideways.
  function fitScreen() {
    const rect = svg.getBoundingClientRect();
    if (!rect.width || rect.width >= 700) return;
    const w = home.h * (rect.width / rect.height);
    setBox({ x: home.x + (home.w - w) / 2, y: home.y, w, h: home.h });
  }

  return {
    element, svg, cities, routes: routesById, hasStations: map.stations_per_player > 0, fitScreen,
    // Owners of routes and stations from a view: {route: seat}, {city: seat}.
    update(routeOwners, stationOwners) {
      for (const g of svg.querySelectorAll(".route")) {
        const owner = routeOwners[g.dataset.route];
        if (owner === undefined) { g.removeAttribute("data-owner"); g.style.removeProperty("--owner"); }
        else {
          g.setAttribute("data-owner", owner);
          g.style.setProperty("--owner", SEAT_FILL[owner]);
        }
        for (const mark of g.querySelectorAll(".owner-mark")) mark.textContent = owner === undefined ? "" : String(Number(owner) + 1);
      }
      stationLayer.replaceChildren(...Object.entries(stationOwners).map(([city, seat]) => {
        const c = cities[city];
        return s("g.station", { "data-station": city, "data-owner": seat, transform: `translate(${c.x + 12} ${c.y + 8}) scale(1.5)` },
          s("title", { text: `Station of seat ${Number(seat) + 1} in ${c.name}` }),
          s("path", { d: "M-7,8V-2L0,-9L7,-2V8Z", fill: SEAT_FILL[seat], stroke: "#fff", "stroke-width": 2 }),
          s("text", { y: 5, "text-anchor": "middle", text: String(Number(seat) + 1) }));
      }));
    },
    // Routes and cities the player may act on now; the rest inert.
    setActive(routeIds, onRoute, cityIds, onCity) {
      for (const g of svg.querySelectorAll(".route")) {
        const title = routeTitle(routesById[g.dataset.route], cities);
        if (routeIds.has(g.dataset.route)) clickable(g, `Claim ${title}`, () => onRoute(g.dataset.route));
        else inert(g, title);
      }
      for (const g of svg.querySelectorAll(".city")) {
        const name = cities[g.dataset.city].name;
        if (cityIds.has(g.dataset.city)) clickable(g, `Build a station in ${name}`, () => onCity(g.dataset.city));
        else inert(g, name);
      }
    },
    select(routeId) {
      for (const g of svg.querySelectorAll(".route.selected")) g.classList.remove("selected");
      if (routeId) routeEl(routeId)?.classList.add("selected");
    },
    highlight(cityIds) {
      for (const g of svg.querySelectorAll(".city.highlight")) g.classList.remove("highlight");
      for (const id of cityIds || []) cityEl(id)?.classList.add("highlight");
    },
  };
}
