// The board's view: pans and zooms with pointer, wheel, pinch and buttons (in a bar above the board, so they cover
// no city). City names keep a readable size on screen whatever the zoom (`onNameSize` hears it, in board units). A drag
// longer than a few pixels is not a click.
import { h } from "./dom.js";
import { t } from "./i18n.js";

// A city name's size on screen, in CSS pixels: 12.5 on a board this wide or wider, else 11 (a phone's fitted board),
// never below 17 board units when zoomed in. Names that would overlap are hidden until zoomed (boardlabels.js).
const NAME_PX = [11, 12.5];
const WIDE = 600;
const NAME_UNITS = 17;

export class BoardZoom {
  // `home`: the whole map's box (boardgeometry.js's homeBox), where the view starts.
  constructor(svg, home) {
    this.svg = svg;
    this.home = home;
    this.box = { ...home };
    this.dragged = 0;
    if (window.ResizeObserver) new ResizeObserver(() => this.rescale()).observe(svg);
    followPointers(this);
    svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      const p = this.toBoard(e);
      this.zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
    }, { passive: false });
  }

  // Board units per CSS pixel now: city names and halos are sized from it, so they read the same at any zoom.
  rescale() {
    const rect = this.svg.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    const unit = Math.max(this.box.w / rect.width, this.box.h / rect.height);
    const name = Math.max(NAME_PX[rect.width < WIDE ? 0 : 1] * unit, NAME_UNITS);
    this.svg.style.setProperty("--unit", unit.toFixed(3));
    this.svg.style.setProperty("--name", `${name.toFixed(1)}px`);
    this.onNameSize?.(Number(name.toFixed(1)));
  }

  setBox(next) {
    const w = Math.min(Math.max(next.w, this.home.w / 8), this.home.w * 1.5);
    const h = (w / next.w) * next.h;
    this.box = { x: next.x + (next.w - w) / 2, y: next.y + (next.h - h) / 2, w, h };
    this.svg.setAttribute("viewBox", `${this.box.x} ${this.box.y} ${this.box.w} ${this.box.h}`);
    this.rescale();
  }

  zoom(factor, cx = this.box.x + this.box.w / 2, cy = this.box.y + this.box.h / 2) {
    const box = this.box;
    this.setBox({ x: cx - (cx - box.x) * factor, y: cy - (cy - box.y) * factor, w: box.w * factor, h: box.h * factor });
  }

  // The whole board, fitted to the width it is given (on a phone too: one drags and zooms from there).
  fit() {
    this.setBox(this.home);
  }

  // Where a pointer event falls on the board, and the board units per CSS pixel.
  toBoard(event) {
    const rect = this.svg.getBoundingClientRect();
    const scale = Math.max(this.box.w / rect.width, this.box.h / rect.height);
    return { scale, x: this.box.x + (event.clientX - rect.left) * scale, y: this.box.y + (event.clientY - rect.top) * scale };
  }

  // The bar of buttons above the board: in, out, the whole board.
  controls() {
    return h("div.zoom", { role: "group", "aria-label": t("board.zoom") },
      h("span.muted.zoom-hint", {}, t("board.zoom_hint")),
      h("button", { type: "button", "aria-label": t("board.zoom_in"), onclick: () => this.zoom(1 / 1.4) }, "+"),
      h("button", { type: "button", "aria-label": t("board.zoom_out"), onclick: () => this.zoom(1.4) }, "−"),
      h("button", { type: "button", "aria-label": t("board.whole"), onclick: () => this.fit() }, "⤢"));
  }
}

// Pointer pan (one pointer) and pinch zoom (two); a drag longer than a few pixels is not a click.
function followPointers(view) {
  const svg = view.svg;
  const pointers = new Map();
  svg.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 1) view.dragged = 0;
  });
  svg.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    if (pointers.size === 1) pan(view, e, last);
    else if (pointers.size === 2) pinch(view, e, last, [...pointers.entries()].find(([id]) => id !== e.pointerId)[1]);
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
  });
  const release = (e) => pointers.delete(e.pointerId);
  svg.addEventListener("pointerup", release);
  svg.addEventListener("pointercancel", release);
  svg.addEventListener("click", (e) => { if (view.dragged > 6) e.stopPropagation(); }, true);
}

function pan(view, e, last) {
  const { scale } = view.toBoard(e);
  view.dragged += Math.abs(e.clientX - last.x) + Math.abs(e.clientY - last.y);
  if (view.dragged > 6) {
    view.svg.setPointerCapture?.(e.pointerId);
    view.setBox({ ...view.box, x: view.box.x - (e.clientX - last.x) * scale, y: view.box.y - (e.clientY - last.y) * scale });
  }
}

function pinch(view, e, last, other) {
  const before = Math.hypot(last.x - other.x, last.y - other.y);
  const after = Math.hypot(e.clientX - other.x, e.clientY - other.y);
  view.dragged = 100;
  if (before > 0 && after > 0) {
    const mid = view.toBoard({ clientX: (e.clientX + other.x) / 2, clientY: (e.clientY + other.y) / 2 });
    view.zoom(before / after, mid.x, mid.y);
  }
}
