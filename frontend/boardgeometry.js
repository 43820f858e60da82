// Where the board's pieces lie, in board units (the map's x/y): each route's row of spaces (double routes side by
// side), the map's whole box. Arithmetic only: boarddraw.js draws from it, analysis.js draws over it.
export const CAR_WIDTH = 15;
export const CITY_RADIUS = 10;
const GAP = 3;

// The cities and routes by id, and each route's offset from the line between its cities (double routes apart).
export function boardPlan(map) {
  return {
    cities: Object.fromEntries(map.cities.map((c) => [c.id, c])),
    routes: Object.fromEntries(map.routes.map((r) => [r.id, r])),
    offsets: doubleOffsets(map.routes),
  };
}

// The whole map with a margin: the board's first view, and where its "whole board" button goes back to.
export function homeBox(cities) {
  const xs = cities.map((c) => c.x), ys = cities.map((c) => c.y);
  const home = { x: Math.min(...xs) - 60, y: Math.min(...ys) - 50 };
  home.w = Math.max(...xs) + 60 - home.x;
  home.h = Math.max(...ys) + 40 - home.y;
  return home;
}

export function routeGeometry(route, cities, offset) {
  const a = cities[route.a], b = cities[route.b];
  const dx = b.x - a.x, dy = b.y - a.y, d = Math.hypot(dx, dy);
  const ux = dx / d, uy = dy / d, nx = -uy, ny = ux;
  const usable = d - 2 * (CITY_RADIUS + 2);
  const step = usable / route.length;
  // A piece is the same shape either way round: turned so that its upper side faces up the screen, it is lit
  // from above wherever it lies (boarddraw.js's shine), and a ferry's L stands upright.
  const raw = (Math.atan2(dy, dx) * 180) / Math.PI;
  const angle = raw > 90 ? raw - 180 : raw <= -90 ? raw + 180 : raw;
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

export const carTransform = (car, angle) => `translate(${car.x.toFixed(1)} ${car.y.toFixed(1)}) rotate(${angle.toFixed(1)})`;
