// The board drawn as SVG from the map data: cities at x/y, each route as its row of spaces (double routes side by
// side, tunnels outlined with dashes, ferries with locomotive spaces). A free route is a row of empty spaces: paper
// inside, outlined in its colour, its colour's pattern faint in them. A claimed route is a row of its owner's train
// pieces: solid in a seat colour no card uses, shaded as if lit from above, raised on a shadow, each with the seat's
// mark; so the two never look alike, even at the whole board's size. Under every route lies its halo, shown
// (boardinput.js) when the player may claim it.
import { s } from "./dom.js";
import { EDGE, SEAT_FILL, SEAT_INK, SEAT_MARK, colourName, patternDefs, seatColourName } from "./colours.js";
import { t, tn } from "./i18n.js";
import { CAR_WIDTH, CITY_RADIUS, carTransform, routeGeometry } from "./boardgeometry.js";

export function routeTitle(route, cities) {
  const kind = route.tunnel ? `, ${t("board.tunnel")}` : route.ferry_locomotives ? `, ${tn("board.ferry", route.ferry_locomotives)}` : "";
  return `${cities[route.a].name} – ${cities[route.b].name}: ${t("log.route_kind", { length: route.length, colour: colourName(route.color) })}${kind}`;
}

function drawRoute(route, cities, offset) {
  const { cars, angle, carLength } = routeGeometry(route, cities, offset);
  const classes = ["route", route.tunnel && "tunnel", route.ferry_locomotives && "ferry"].filter(Boolean).join(".");
  return s(`g.${classes}`, {
    "data-route": route.id, "data-color": route.color, "data-length": route.length,
    role: "img", "aria-label": routeTitle(route, cities), style: `--edge: ${EDGE[route.color] || "#333"}`,
  },
  s("title", { text: routeTitle(route, cities) }),
  cars.map((car, i) => {
    const box = { x: -carLength / 2, y: -CAR_WIDTH / 2, width: carLength, height: CAR_WIDTH, rx: 2.5 };
    return s("g", { transform: carTransform(car, angle) },
      s("rect.slot", box),
      s("rect.car", { ...box, fill: `url(#pat-${route.color})` }),
      s("rect.shine", { ...box, fill: "url(#piece-shine)" }),
      i < route.ferry_locomotives ? s("g.loco", {},
        s("circle", { r: 5.2, fill: "#fff", stroke: "#222", "stroke-width": 1 }),
        s("path", { d: "M-1.7 -2.9V2.5H2.3" })) : null, // an L drawn, not written: a claimable route's name holds no text of its own
      s("path.owner-mark", { d: "" }));
  }));
}

// The light on a train piece: bright along its upper side, shaded along its lower one (over the seat's colour).
function pieceShine() {
  return s("linearGradient", { id: "piece-shine", x1: 0, y1: 0, x2: 0, y2: 1 },
    [[0, "#fff", 0.6], [0.3, "#fff", 0.12], [0.55, "#fff", 0], [1, "#000", 0.38]].map(([offset, colour, opacity]) =>
      s("stop", { offset, "stop-color": colour, "stop-opacity": opacity })));
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
  return s("g.city", { "data-city": city.id, role: "img", "aria-label": city.name },
    s("circle.halo", { cx: city.x, cy: city.y, r: CITY_RADIUS + 7 }),
    s("circle.dot", { cx: city.x, cy: city.y, r: CITY_RADIUS }),
    s("text.name", { x: city.x, y: city.y - CITY_RADIUS - 5, "text-anchor": "middle", text: city.name }));
}

// The board's <svg> (`plan`: boardgeometry.js's boardPlan), in its layers: the sea, the halos, the routes, an
// overlay for others to draw on (a better move's ghost: analysis.js), the cities, the stations.
export function drawBoard(map, plan, home, describedBy) {
  const { cities, offsets } = plan;
  const stations = s("g.stations");
  const overlay = s("g.overlay", { "aria-hidden": "true" });
  const svg = s("svg.board", {
    viewBox: `${home.x} ${home.y} ${home.w} ${home.h}`, role: "group", style: `aspect-ratio: ${home.w} / ${home.h}`,
    "aria-label": t(`board.label.${map.map === "usa" ? "usa" : "europe"}`), "data-map": map.map, "aria-describedby": describedBy,
  },
  patternDefs(s),
  s("defs", {}, pieceShine()),
  s("rect.sea", { x: home.x - 2000, y: home.y - 2000, width: home.w + 4000, height: home.h + 4000 }),
  s("g.halos", {}, map.routes.map((r) => drawHalo(r, cities, offsets[r.id]))),
  s("g.routes", {}, map.routes.map((r) => drawRoute(r, cities, offsets[r.id]))),
  overlay,
  s("g.cities", {}, map.cities.map(drawCity)),
  stations);
  return { svg, overlay, stations };
}

// Each route in its owner's trains ({route: seat}; a route not in it free), its title saying whose it is.
export function drawOwners(svg, plan, routeOwners) {
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
    const title = routeTitle(plan.routes[g.dataset.route], plan.cities);
    g.querySelector("title").textContent = owner === undefined ? title : t("board.owned", { title, n: Number(owner) + 1, colour: seatColourName(owner) });
  }
}

// The stations built ({city: seat}), each in its owner's colour and mark, in their layer.
export function drawStations(layer, cities, stationOwners) {
  layer.replaceChildren(...Object.entries(stationOwners).map(([city, seat]) => {
    const c = cities[city];
    return s("g.station", { "data-station": city, "data-owner": seat, transform: `translate(${c.x + 12} ${c.y + 8}) scale(1.5)` },
      s("title", { text: t("board.station", { n: Number(seat) + 1, colour: seatColourName(seat), city: c.name }) }),
      s("path", { d: "M-7,8V-2L0,-9L7,-2V8Z", fill: SEAT_FILL[seat], stroke: "#1f1d1a", "stroke-width": 1.5 }),
      s("path", { d: SEAT_MARK[seat], transform: "translate(0 1.5) scale(.75)", fill: SEAT_INK[seat] }));
  }));
}
