// A small element builder: h("button.primary", {onclick}, "text", child...).
const SVG = "http://www.w3.org/2000/svg";

function build(ns, spec, attrs, children) {
  const [tag, ...classes] = spec.split(".");
  const el = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  if (classes.length) el.setAttribute("class", classes.join(" "));
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export const h = (spec, attrs, ...children) => build(null, spec, attrs, children);
export const s = (spec, attrs, ...children) => build(SVG, spec, attrs, children);

export function mount(parent, ...children) {
  parent.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return parent;
}

// A button's name holds the words it shows (WCAG 2.5.3, label in name: a person using speech says what they see),
// then its full meaning when that does not already hold them as whole words: "My move: My previous move", "Turn" in "Previous turn".
export function labelInName(shown, full) {
  const letters = (text) => text.replace(/[^\p{L}\p{N}\s]/gu, "").replace(/\s+/g, " ").trim();
  const need = letters(shown).toLowerCase();
  return !need || ` ${letters(full).toLowerCase()} `.includes(` ${need} `) ? full : `${letters(shown)}: ${full}`;
}
