// @ts-check
/* Keyboard shortcuts for every frequent action (shortcuts.js), and the help overlay (`?`) that
 * lists them. Nothing fires while the person types in a field; Esc leaves the field. */

import { byId, el } from "../lib/dom.js";
import { SHORTCUTS, isTextEntry, shortcutFor } from "./shortcuts.js";

/** @typedef {import("./state.js").Workspace} Workspace */
/** @typedef {{readonly open: boolean, show: () => void, hide: () => void, toggle: () => void}} Help */

/** "Ctrl + Shift + Z  /  Ctrl + Y" as <kbd> keys with the separators between them. @param {string} keys */
function keyCaps(keys) {
  return keys.split(/(\s+\/\s+|\s+\+\s+)/).map((part) =>
    /^\s+[/+]\s+$/.test(part) ? el("span", { class: "muted" }, " " + part.trim() + " ") : el("kbd", {}, part));
}

/** @returns {Help} */
function setupHelp() {
  const overlay = byId("help-overlay");
  byId("help-keys").replaceChildren(...SHORTCUTS.filter((s) => s[0]).map(([keys, desc]) =>
    el("div", { class: "ws-key" }, el("span", {}, ...keyCaps(keys || "")), el("span", {}, desc))));
  /** @type {Help} */
  const help = {
    get open() { return !overlay.classList.contains("hidden"); },
    show() { overlay.classList.remove("hidden"); byId("help-close").focus(); },
    hide() { overlay.classList.add("hidden"); },
    toggle() { if (help.open) help.hide(); else help.show(); },
  };
  byId("help-open").addEventListener("click", () => help.toggle());
  byId("help-close").addEventListener("click", () => help.hide());
  overlay.addEventListener("click", (ev) => { if (ev.target === overlay) help.hide(); });
  return help;
}

/** @param {Workspace} ws @param {Help} help @param {KeyboardEvent} ev */
function onKey(ws, help, ev) {
  if (ev.defaultPrevented || ev.isComposing) return;
  const active = /** @type {HTMLElement|null} */ (document.activeElement);
  if (isTextEntry(active)) {
    if (ev.key === "Escape" && active) active.blur();
    return;
  }
  if (help.open && (ev.key === "Escape" || ev.key === "?")) { ev.preventDefault(); help.hide(); return; }
  // The item preview is a dialog: no tool starts behind it; Esc closes it.
  if (ws.compose && ws.compose.previewOpen) {
    if (ev.key === "Escape") { ev.preventDefault(); ws.compose.closePreview(); }
    return;
  }
  const hit = shortcutFor(ev);
  if (!hit) return;
  if (hit.action === "help") { ev.preventDefault(); help.toggle(); return; }
  const run = /** @type {Record<string, (arg?: any) => void>} */ (/** @type {unknown} */ (ws.actions))[hit.action];
  if (!run) return;
  // Enter and Backspace only mean something while drawing; elsewhere (a focused button, say)
  // leave them to the browser.
  if ((hit.action === "backspace" || hit.action === "finish") && !ws.drawingInProgress()) return;
  ev.preventDefault();
  run(hit.arg);
}

/** @param {Workspace} ws */
export function setupKeys(ws) {
  const help = setupHelp();
  ws.help = help;
  document.addEventListener("keydown", (ev) => onKey(ws, help, ev));
}
