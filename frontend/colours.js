// Card and seat colours, each with a pattern and a name so that colour is never the only cue.
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

export const SEAT_FILL = ["#c8302b", "#2a62c9", "#2f8a3a", "#e0b81c", "#3a3a3a"];
export const SEAT_NAME = ["red", "blue", "green", "yellow", "black"];

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

// "3 red + 1 locomotive" from {red: 3, locomotive: 1} or [["red", 3], ...].
export function cardsText(cards) {
  const pairs = Array.isArray(cards) ? cards : Object.entries(cards || {});
  const parts = pairs.filter(([, n]) => n > 0).map(([c, n]) => `${n} ${c === "locomotive" ? (n > 1 ? "locomotives" : "locomotive") : c}`);
  return parts.length ? parts.join(" + ") : "nothing";
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
