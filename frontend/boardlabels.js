// Where each city's name goes: above its dot, below, right or left, wherever it overlaps no name already placed, no
// other city's dot and no station, and stays inside the whole board's box (so no name is cut at the frame: San
// Francisco's was); of those places, the one over the fewest route spaces (a name hides what lies under it). Names
// are placed in order of importance (the cities marked first, a ticket's, then those with the most routes); a name
// that fits nowhere is hidden until the player zooms in, where names take less of the map (a city's name is still
// its group's aria-label). Sizes in board units; `size` is a name's font size.
import { CITY_RADIUS, routeGeometry } from "./boardgeometry.js";

const PLACES = ["above", "below", "right", "left"];
const GAP = 3; // board units between a dot and its name
let ruler;

// A name's width and its font's ascent and descent, per unit of font size (the font the page's CSS gives names).
function measure(name) {
  ruler ||= document.createElement("canvas").getContext("2d");
  ruler.font = "700 100px Georgia, serif";
  const m = ruler.measureText(name);
  return { width: m.width / 100, ascent: (m.fontBoundingBoxAscent ?? 92) / 100, descent: (m.fontBoundingBoxDescent ?? 23) / 100 };
}

// The name's anchor (x, y: its baseline), its text-anchor and its box, for one place around the city.
function spot(city, place, size, m) {
  const w = m.width * size, up = m.ascent * size, down = m.descent * size, r = CITY_RADIUS + GAP;
  const at = {
    above: { x: city.x, y: city.y - r - down, anchor: "middle" },
    below: { x: city.x, y: city.y + r + up, anchor: "middle" },
    right: { x: city.x + r, y: city.y + (up - down) / 2, anchor: "start" },
    left: { x: city.x - r, y: city.y + (up - down) / 2, anchor: "end" },
  }[place];
  const left = at.anchor === "middle" ? at.x - w / 2 : at.anchor === "start" ? at.x : at.x - w;
  return { ...at, box: { left, right: left + w, top: at.y - up, bottom: at.y + down } };
}

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const covers = (box, p) => p.x > box.left && p.x < box.right && p.y > box.top && p.y < box.bottom;
const inside = (box, home) => box.left >= home.x && box.right <= home.x + home.w && box.top >= home.y
  && box.bottom <= home.y + home.h;

export class CityNames {
  // `svg`: the board; `plan`: boardgeometry.js's; `home`: the whole board's box.
  constructor(svg, plan, home) {
    this.svg = svg;
    this.home = home;
    this.size = 0;
    this.first = [];
    const routes = {};
    for (const r of Object.values(plan.routes)) for (const c of [r.a, r.b]) routes[c] = (routes[c] || 0) + 1;
    this.spaces = Object.values(plan.routes).flatMap((r) => routeGeometry(r, plan.cities, plan.offsets[r.id]).cars);
    this.cities = Object.values(plan.cities).map((city) => ({
      city, routes: routes[city.id] || 0, m: measure(city.name),
      text: svg.querySelector(`[data-city="${city.id}"] .name`),
      dot: { left: city.x - CITY_RADIUS, right: city.x + CITY_RADIUS, top: city.y - CITY_RADIUS, bottom: city.y + CITY_RADIUS },
    }));
  }

  // The names' font size in board units (boardzoom.js, at each zoom): placed again when it changed.
  setSize(size) {
    if (Math.abs(size - this.size) < 0.05) return;
    this.size = size;
    this.place();
  }

  // Cities with a station (drawn at the dot's lower right, boarddraw.js): no name covers one.
  setStations(ids) {
    const boxes = (ids || []).map((id) => this.cities.find((c) => c.city.id === id)?.city).filter(Boolean)
      .map((c) => ({ left: c.x + 1, right: c.x + 23, top: c.y - 6, bottom: c.y + 20 }));
    if (JSON.stringify(boxes) === JSON.stringify(this.stations || [])) return;
    this.stations = boxes;
    if (this.size) this.place();
  }

  // Cities whose names go first (a ticket's, while it is pointed at).
  setFirst(ids) {
    this.first = ids || [];
    if (this.size) this.place();
  }

  place() {
    const order = [...this.cities].sort((a, b) => this.rank(b) - this.rank(a) || a.city.name.localeCompare(b.city.name));
    const taken = [...(this.stations || [])];
    for (const c of order) {
      const others = this.cities.filter((o) => o !== c).map((o) => o.dot);
      const free = PLACES.map((p) => spot(c.city, p, this.size, c.m))
        .filter((s) => inside(s.box, this.home) && !taken.some((b) => overlaps(b, s.box)) && !others.some((d) => overlaps(d, s.box)));
      const under = (s) => this.spaces.filter((p) => covers(s.box, p)).length;
      const fit = free.reduce((best, s) => (best && under(best) <= under(s) ? best : s), null);
      c.text.classList.toggle("hidden", !fit);
      if (!fit) continue;
      taken.push(fit.box);
      c.text.setAttribute("x", fit.x.toFixed(1));
      c.text.setAttribute("y", fit.y.toFixed(1));
      c.text.setAttribute("text-anchor", fit.anchor);
    }
  }

  rank(c) {
    return (this.first.includes(c.city.id) ? 1000 : 0) + c.routes;
  }
}
