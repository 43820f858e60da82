// Card and seat colours, each with a pattern and a name so that colour is never the only cue.
import { t, tn } from "./i18n.js";

export const CARD_COLOURS = ["purple", "blue", "orange", "white", "green", "yellow", "black", "red", "locomotive"];

export const FILL = {
  purple: "#8e4fb0", blue: "#2f6fd0", orange: "#ee8a23", white: "#f5f3ee", green: "#3f9b45",
  yellow: "#f1cf2c", black: "#2a2a2a", red: "#d4392f", gray: "#a9a59c", locomotive: "#c9a227",
};

// The mark each colour's pattern carries (drawn over the fill): tells colours apart without seeing hue.
const MARK = {
  purple: "dots", blue: "hlines", orange: "slash", white: "none", green: "backslash",
  yellow: "cross", black: "none", red: "vlines", gray: "none", locomotive: "rainbow",
};

// Seat colours: a claimed route is a row of its owner's pieces in one of these, so they must stay apart from each
// other and from every colour a free route or a card shows (the card colours above and the grey route; the
// locomotive is drawn as stripes of those card colours), for normal sight and for each colour-vision deficiency.
// tests/server/test_palette.py reads these values and holds, after the Machado et al. (2009) simulation at severity
// 1.0 in linear RGB (none, deuteranopia, protanopia, tritanopia), CIEDE2000 >= 18 between every two seats and
// >= 12 between every seat and every card colour (the card colours themselves come within 5.4 of each other under
// deuteranopia: blue and purple, red and green). It also holds every two seats at least 8 apart in lightness L*
// (told apart with no hue at all: achromatopsia, a small piece seen from afar), each seat's L* within 22..72 (never
// pale like an empty space, never black), at most one seat below L* 38 (the old maroon, teal and indigo were three
// near-blacks, alike at the whole board's size) and chroma >= 25 (no seat reads as a grey route). Each seat also
// has a mark of its own (drawn on its trains and stations and beside its name), so a seat is told apart without
// seeing hue. SEAT_INK is the mark's colour on that fill. Seats 0 and 1 (every table has them) lie farthest apart.
export const SEAT_FILL = ["#0a2896", "#3fc875", "#9f3952", "#9a8fed", "#ad7590"];
// A seat's colour and mark in words, in the reader's language (colour.seat.N, colour.mark.N: navy, circle...).
export const seatColourName = (seat) => t(`colour.seat.${seat}`);
export const seatMarkName = (seat) => t(`colour.mark.${seat}`);
export const SEAT_INK = ["#fff", "#1f1d1a", "#fff", "#1f1d1a", "#1f1d1a"];
export const SEAT_MARK = [
  "M0,-4.2A4.2,4.2 0 1 1 0,4.2A4.2,4.2 0 1 1 0,-4.2Z",
  "M0,-4.8L4.8,3.8H-4.8Z",
  "M-3.8,-3.8H3.8V3.8H-3.8Z",
  "M0,-5.2L5.2,0L0,5.2L-5.2,0Z",
  "M-1.7,-5H1.7V-1.7H5V1.7H1.7V5H-1.7V1.7H-5V-1.7H-1.7Z",
];

// The outline of a free route's empty spaces: its colour, darkened where the colour alone would vanish on the map.
export const EDGE = {
  purple: "#6a3487", blue: "#1f4f9e", orange: "#b5620c", white: "#8a857a", green: "#2b7431",
  yellow: "#a88a06", black: "#111", red: "#9e2219", gray: "#6f6b63", locomotive: "#8a6d0f",
};

function markPath(kind) {
  switch (kind) {
    case "dots": return "M2,2h1.6v1.6h-1.6zM6,6h1.6v1.6h-1.6z";
    case "hlines": return "M0,2h8M0,6h8";
    case "vlines": return "M2,0v8M6,0v8";
    case "slash": return "M0,8L8,0M-2,2L2,-2M6,10L10,6";
    case "backslash": return "M0,0L8,8M-2,6L2,10M6,-2L10,2";
    case "cross": return "M0,4h8M4,0v8";
    default: return "";
  }
}

// <defs> with one <pattern id="pat-COLOUR"> per colour (the fill, then its mark in a contrasting ink).
export function patternDefs(s) {
  const patterns = Object.keys(FILL).map((colour) => {
    const ink = ["black", "purple", "blue", "red", "green"].includes(colour) ? "rgba(255,255,255,.55)" : "rgba(0,0,0,.4)";
    const kind = MARK[colour];
    const children = [s("rect", { width: 8, height: 8, fill: FILL[colour] })];
    if (kind === "rainbow") {
      ["#d4392f", "#ee8a23", "#f1cf2c", "#3f9b45", "#2f6fd0", "#8e4fb0"].forEach((c, i) =>
        children.push(s("rect", { x: 0, y: i * (8 / 6), width: 8, height: 8 / 6, fill: c })));
    } else if (kind !== "none") {
      children.push(s("path", { d: markPath(kind), stroke: ink, fill: ink, "stroke-width": 1.1 }));
    }
    return s("pattern", { id: `pat-${colour}`, width: 8, height: 8, patternUnits: "userSpaceOnUse" }, children);
  });
  return s("defs", {}, patterns);
}

// A colour's name ("red", "locomotive"), as cards and texts show it; "a red", "an orange" as the object of a draw.
export const colourName = (colour) => t(`colour.${colour}`);
export const aCard = (colour) => (colour ? t(`colour.card.${colour}`) : t("colour.a_card"));
// "3 red", "2 locomotives": the colour counted, in the reader's plural forms.
export const colourCount = (colour, n) => tn(`colour.count.${colour}`, n);

// "3 red + 1 locomotive" from {red: 3, locomotive: 1} or [["red", 3], ...].
export function cardsText(cards) {
  const pairs = Array.isArray(cards) ? cards : Object.entries(cards || {});
  const parts = pairs.filter(([, n]) => n > 0).map(([c, n]) => colourCount(c, n));
  return parts.length ? parts.join(" + ") : t("colour.nothing");
}

// The card's CSS background: its colour and the same mark as its pattern on the board.
export function cardBackground(colour) {
  const ink = ["black", "purple", "blue", "red", "green"].includes(colour) ? "rgba(255,255,255,.5)" : "rgba(0,0,0,.35)";
  const base = FILL[colour];
  switch (MARK[colour]) {
    case "dots": return `radial-gradient(${ink} 22%, transparent 24%) 0 0 / 8px 8px, ${base}`;
    case "hlines": return `repeating-linear-gradient(0deg, ${ink} 0 1.5px, transparent 1.5px 5px), ${base}`;
    case "vlines": return `repeating-linear-gradient(90deg, ${ink} 0 1.5px, transparent 1.5px 5px), ${base}`;
    case "slash": return `repeating-linear-gradient(45deg, ${ink} 0 1.5px, transparent 1.5px 6px), ${base}`;
    case "backslash": return `repeating-linear-gradient(-45deg, ${ink} 0 1.5px, transparent 1.5px 6px), ${base}`;
    case "cross": return `repeating-linear-gradient(0deg, ${ink} 0 1.5px, transparent 1.5px 7px), repeating-linear-gradient(90deg, ${ink} 0 1.5px, transparent 1.5px 7px), ${base}`;
    case "rainbow": return "linear-gradient(#d4392f, #ee8a23, #f1cf2c, #3f9b45, #2f6fd0, #8e4fb0)";
    default: return base;
  }
}
