// @ts-check
/* Wiring between the parts: what the page does when the store reports a change, and when the
 * person clicks in the marks list, the label filter or a feedback link. */

import { byId } from "../lib/dom.js";
import { mayEdit } from "./actions.js";

/** @typedef {import("./state.js").Workspace} Workspace */

/** @param {Workspace} ws */
function onStore(ws) {
  const { store } = ws;
  store.on("change", (/** @type {number} */ id) => {
    const mark = store.get(id);
    if (ws.map && mark && mark.satellite_image === ws.imageId) ws.map.setMark(mark);
    ws.render();
  });
  store.on("remove", (/** @type {number} */ id) => {
    if (ws.map) ws.map.removeMark(id);
    if (ws.selectedId === id) ws.select(null);
    ws.render();
  });
  store.on("rekey", (/** @type {number} */ oldId, /** @type {number} */ newId) => {
    if (ws.map) ws.map.rekey(oldId, newId);
    if (ws.selectedId === oldId) ws.selectedId = newId;
    ws.render();
  });
  store.on("status", (/** @type {string} */ state, /** @type {string} */ text) => ws.setStatus(state, text));
  store.on("conflict", () => { if (ws.editor) ws.editor.showConflicts(); });
  store.on("invalid", (/** @type {number} */ id, /** @type {Record<string, any>} */ errors) => {
    if (ws.tool === "none" && ws.selectedId !== id) ws.select(id);
    if (ws.editor) ws.editor.showErrors(errors);
  });
  store.on("refused", (/** @type {number} */ id, /** @type {Error} */ err) => ws.fail(err));
}

/** @param {Workspace} ws */
function onHistory(ws) {
  const undo = /** @type {HTMLButtonElement|null} */ (document.getElementById("undo"));
  const redo = /** @type {HTMLButtonElement|null} */ (document.getElementById("redo"));
  if (!undo || !redo) return;
  ws.history.onChange(() => {
    undo.disabled = !ws.history.canUndo;
    redo.disabled = !ws.history.canRedo;
  });
  undo.addEventListener("click", () => ws.actions.undo());
  redo.addEventListener("click", () => ws.actions.redo());
}

/** A click in the marks list: a button of an entry, or the entry itself (select and seek).
 * @param {Workspace} ws @param {MouseEvent} ev */
function onListClick(ws, ev) {
  const target = /** @type {HTMLElement} */ (ev.target);
  const li = /** @type {HTMLElement|null} */ (target.closest("li[data-mark-id]"));
  if (!li) return;
  const id = Number(li.dataset.markId);
  if (!ws.store.get(id)) return;
  const action = /** @type {HTMLElement|null} */ (target.closest("[data-action]"));
  const what = action ? action.dataset.action : null;
  if (what === "pick") {
    if (ws.compose) ws.compose.toggle(id);
  } else if (what === "delete") {
    ws.actions.remove(id);
  } else if (what === "retime" && mayEdit(ws, id) && ws.editor) {
    const d = ws.editor.draft();
    ws.history.update(id, { time_start: d.time_start, time_end: d.time_end });
  } else if (!what) {
    if (ws.tool !== "none") ws.setTool("none");
    ws.select(id, { seek: true });
    if (ws.map) ws.map.reveal(id);
  }
}

/** The "visible?" select of an entry. @param {Workspace} ws @param {Event} ev */
function onListChange(ws, ev) {
  const target = /** @type {HTMLSelectElement} */ (ev.target);
  if (target.dataset.action !== "visible") return;
  const li = /** @type {HTMLElement} */ (target.closest("li[data-mark-id]"));
  const id = Number(li.dataset.markId);
  const mark = ws.store.get(id);
  if (!mark || !mayEdit(ws, id)) return;
  const facts = { ...(mark.facts || {}) };
  if (target.value === "") delete facts.visible; else facts.visible = target.value === "yes";
  ws.history.update(id, { facts });
}

/** @param {Workspace} ws @param {Event} ev */
function onLabelFilter(ws, ev) {
  const box = /** @type {HTMLInputElement} */ (ev.target);
  const label = box.dataset.label;
  if (label === undefined) return;
  if (box.checked) ws.hiddenLabels.delete(label); else ws.hiddenLabels.add(label);
  ws.saveHiddenLabels();
  if (ws.map) ws.map.setHiddenLabels(ws.hiddenLabels);
  ws.render();
}

/** @param {Workspace} ws */
export function wireEvents(ws) {
  onStore(ws);
  onHistory(ws);
  const list = byId("marks-list");
  list.addEventListener("click", (ev) => onListClick(ws, ev));
  list.addEventListener("change", (ev) => onListChange(ws, ev));
  byId("label-filter").addEventListener("change", (ev) => onLabelFilter(ws, ev));
  // "on mark #12" in a rejected item's feedback.
  document.querySelectorAll("[data-focus-mark]").forEach((a) => a.addEventListener("click", (ev) => {
    ev.preventDefault();
    const id = Number(/** @type {HTMLElement} */ (a).dataset.focusMark);
    ws.select(id, { seek: true });
    if (ws.map) ws.map.reveal(id);
  }));
  // "at 4.20 s" in feedback (in the panel and on a mark's entry, which is redrawn): seek there.
  document.addEventListener("click", (ev) => {
    const a = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("[data-seek]"));
    if (!a) return;
    ev.preventDefault();
    ws.cursor.seek(Number(a.dataset.seek));
  });
}
