// @ts-check
/* The keyboard shortcuts as data, and which key press means which action. Pure: the events and
 * elements are plain objects here, so node tests can check every binding. keys.js listens. */

/**
 * The parts of a KeyboardEvent a shortcut looks at.
 * @typedef {{key: string, ctrlKey?: boolean, metaKey?: boolean, altKey?: boolean, shiftKey?: boolean}} KeyPress
 */
/**
 * [keys shown in help (null: a second binding of the row above), what it does, matcher, action, argument]
 * @typedef {[string|null, string|null, (e: KeyPress) => boolean, string, any?]} Shortcut
 */

const plain = (/** @type {KeyPress} */ e) => !e.ctrlKey && !e.metaKey && !e.altKey;
const letter = (/** @type {string} */ k) => (/** @type {KeyPress} */ e) => plain(e) && e.key.toLowerCase() === k;
const ctrl = (/** @type {KeyPress} */ e) => !!(e.ctrlKey || e.metaKey);

/** @type {Shortcut[]} */
export const SHORTCUTS = [
  ["Space", "Play / pause", (e) => plain(e) && e.key === " ", "toggle"],
  [",  /  .", "One frame back / forward", (e) => plain(e) && e.key === ",", "step", -1],
  [null, null, (e) => plain(e) && e.key === ".", "step", 1],
  ["Shift + ←  /  →", "1 s back / forward", (e) => !!e.shiftKey && !ctrl(e) && !e.altKey && e.key === "ArrowLeft", "jump", -1],
  [null, null, (e) => !!e.shiftKey && !ctrl(e) && !e.altKey && e.key === "ArrowRight", "jump", 1],
  ["Alt/Ctrl + ←  /  →", "5 s back / forward", (e) => (!!e.altKey || ctrl(e)) && e.key === "ArrowLeft", "jump", -5],
  [null, null, (e) => (!!e.altKey || ctrl(e)) && e.key === "ArrowRight", "jump", 5],
  ["E", "Ellipse tool (target instance)", letter("e"), "tool", "ellipse"],
  ["P", "Point tool (key location)", letter("p"), "tool", "point"],
  ["G", "Polygon tool (region)", letter("g"), "tool", "polygon"],
  ["T", "Trajectory tool (each click = vertex at the video time)", letter("t"), "tool", "polyline"],
  ["K  /  Shift + K", "Track the target Shift+clicked in the video (Shift+K: backward too)", (e) => plain(e) && !e.shiftKey && e.key.toLowerCase() === "k", "track", false],
  [null, null, (e) => plain(e) && !!e.shiftKey && e.key.toLowerCase() === "k", "track", true],
  ["V  /  Esc", "Select tool (Esc also cancels the shape being drawn)", letter("v"), "tool", "none"],
  [null, null, (e) => e.key === "Escape", "escape"],
  ["Enter", "Finish the polygon or trajectory being drawn", (e) => plain(e) && e.key === "Enter", "finish"],
  ["Backspace", "Remove the last corner / vertex while drawing", (e) => plain(e) && e.key === "Backspace", "backspace"],
  ["Delete", "Delete the selected mark", (e) => plain(e) && e.key === "Delete", "remove"],
  ["Ctrl + Z", "Undo", (e) => ctrl(e) && !e.shiftKey && e.key.toLowerCase() === "z", "undo"],
  ["Ctrl + Shift + Z  /  Ctrl + Y", "Redo", (e) => ctrl(e) && ((!!e.shiftKey && e.key.toLowerCase() === "z") || e.key.toLowerCase() === "y"), "redo"],
  ["C", "Copy the selected mark to the cursor time", letter("c"), "copy"],
  ["[", "Time anchor: start = now", (e) => !ctrl(e) && e.key === "[", "anchor", "start"],
  ["]", "Time anchor: end = now", (e) => !ctrl(e) && e.key === "]", "anchor", "end"],
  ["I", "Time anchor: instant at now", letter("i"), "anchor", "instant"],
  ["F", "Fit the whole image", letter("f"), "fit"],
  ["M", "Next satellite image (a scene with several)", letter("m"), "nextImage", 1],
  ["?", "This help", (e) => e.key === "?", "help"],
];

/** The action a key press asks for, or null. @param {KeyPress} e @returns {{action: string, arg: any}|null} */
export function shortcutFor(e) {
  const hit = SHORTCUTS.find((s) => s[2](e));
  return hit ? { action: hit[3], arg: hit[4] } : null;
}

// Inputs of these types take no text: a key pressed on them may still be a shortcut.
const NOT_TEXT = ["button", "checkbox", "radio", "range", "submit", "reset"];

/**
 * Whether keys typed now go into a field (a text or number input, a select, a text area, editable
 * content), where a letter is text and not a shortcut.
 * @param {{tagName?: string, type?: string, isContentEditable?: boolean}|null|undefined} node the focused element
 */
export function isTextEntry(node) {
  if (!node || !node.tagName) return false;
  const tag = node.tagName.toUpperCase();
  if (node.isContentEditable || tag === "TEXTAREA" || tag === "SELECT") return true;
  return tag === "INPUT" && !NOT_TEXT.includes(String(node.type || "text"));
}
