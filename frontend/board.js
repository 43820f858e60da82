// The board: the map drawn as SVG (boarddraw.js, from the geometry of boardgeometry.js), its view panned and zoomed
// (boardzoom.js; on a narrow screen it starts fitted to its width), its city names placed where they fit
// (boardlabels.js), and what the player may act on (boardinput.js: the routes and cities offered are one stop of the
// Tab key, the arrow keys move among them; boardtap.js: a tap acts on the nearest one offered, or asks which).
// Pages hold the object createBoard answers: they show owners, offer moves, mark the route chosen and a ticket's
// cities.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { CAR_WIDTH, boardPlan, homeBox, routeGeometry } from "./boardgeometry.js";
import { drawBoard, drawOwners, drawStations } from "./boarddraw.js";
import { BoardZoom } from "./boardzoom.js";
import { CityNames } from "./boardlabels.js";
import { listenKeys, setActive } from "./boardinput.js";
import { closeChooser, listenTaps } from "./boardtap.js";

export function createBoard(map) {
  const plan = boardPlan(map);
  const home = homeBox(map.cities);
  const keysHint = h("p.visually-hidden", { id: `board-keys-${map.map}` },
    t("board.keys"));
  const { svg, overlay, stations } = drawBoard(map, plan, home, keysHint.id);
  const view = new BoardZoom(svg, home);
  const names = new CityNames(svg, plan, home);
  view.onNameSize = (size) => names.setSize(size);
  const element = h("div.board-wrap", {}, view.controls(), svg, keysHint);
  listenKeys(svg, plan);
  listenTaps(svg, plan, view);

  return {
    element, svg, cities: plan.cities, routes: plan.routes, hasStations: map.stations_per_player > 0,
    fitScreen: () => view.fit(), overlay,
    // Where a route's spaces lie ({cars: [{x, y}], angle, carLength}): to draw over them (analysis.js).
    geometry: (id) => (plan.routes[id] ? routeGeometry(plan.routes[id], plan.cities, plan.offsets[id]) : null),
    carWidth: CAR_WIDTH,
    // Owners of routes and stations from a view: {route: seat}, {city: seat}.
    update(routeOwners, stationOwners) {
      drawOwners(svg, plan, routeOwners);
      drawStations(stations, plan.cities, stationOwners);
      names.setStations(Object.keys(stationOwners));
    },
    // Routes and cities the player may act on now (Sets of ids), and what acting on one does (onRoute(id),
    // onCity(id)); the rest inert. A click, or a touch tap that reaches nothing offered within about 24 px, on a
    // route not offered calls onRefused(routeId) when given (optional), so the page can say why. A tap acts on the
    // nearest offered route or city, or asks which when two lie about as near (boardtap.js).
    setActive(routeIds, onRoute, cityIds, onCity, onRefused) {
      // An open "Which route?" stays through a state that still offers all it names (a clock's tick, a presence).
      closeChooser(svg, (id) => routeIds.has(id) || cityIds.has(id));
      setActive(svg, plan, routeIds, onRoute, cityIds, onCity, onRefused);
    },
    // The route chosen for a move, marked with its halo (null: none).
    select(routeId) {
      for (const g of svg.querySelectorAll(".route.selected, .halo.selected")) g.classList.remove("selected");
      if (routeId) {
        svg.querySelector(`[data-route="${routeId}"]`)?.classList.add("selected");
        svg.querySelector(`[data-halo="${routeId}"]`)?.classList.add("selected");
      }
    },
    // Cities marked (a ticket's, while it is pointed at or focused).
    highlight(cityIds) {
      for (const g of svg.querySelectorAll(".city.highlight")) g.classList.remove("highlight");
      for (const id of cityIds || []) svg.querySelector(`[data-city="${id}"]`)?.classList.add("highlight");
      names.setFirst(cityIds);
    },
  };
}
