// @ts-check
/* What buttons and shortcuts do: one named action each, so the keyboard (keys.js), the toolbar
 * and the panels all go through the same checks. Edits go through the history (undoable). */

import { geometryErrors, shiftedTo, timeErrors } from "../lib/geom.js";

/** @typedef {import("./state.js").Workspace} Workspace */
/** @typedef {import("../lib/types.js").Geometry} Geometry */

/**
 * @typedef {object} Actions
 * @property {() => void} toggle
 * @property {(frames: number) => void} step
 * @property {(seconds: number) => void} jump
 * @property {(tool: string) => void} tool
 * @property {() => void} fit
 * @property {(step: number) => void} nextImage the scene's next (or previous) satellite image
 * @property {() => void} finish
 * @property {() => void} backspace
 * @property {() => void} escape
 * @property {(which: "start"|"end"|"instant") => void} anchor
 * @property {() => void} undo
 * @property {() => void} redo
 * @property {(id?: number|null) => void} remove
 * @property {() => void} copy
 * @property {(kind: string, geometry: Geometry, extra: {vertex_times?: number[]}) => void} createDrawn
 * @property {(id: number, geometry: Geometry) => void} reshape
 * @property {(both: boolean) => void} track track the target set in the video (assist.js)
 */

/** @param {Workspace} ws @param {number|null} id */
export const mayEdit = (ws, id) => ws.editable && id !== null && !!ws.store.get(id) && !ws.isLocked(id);

/** Copy the selected mark to the cursor time, keeping its length. @param {Workspace} ws */
function copy(ws) {
  const m = ws.selectedMark();
  if (!ws.editor || !m) return;
  // A copy would be an ordinary mark: a tracked draft becomes one only through Confirm.
  if (m.draft) { ws.setStatus("error", "Confirm the draft trajectory before copying it"); return; }
  const fields = {
    satellite_image: m.satellite_image, kind: m.kind, geometry: m.geometry, label: m.label, facts: m.facts || {},
    ...shiftedTo(m, ws.cursor.now()),
  };
  const errors = timeErrors(fields, ws.cursor.duration);
  if (Object.keys(errors).length) { ws.editor.showErrors(errors); return; }
  ws.select(ws.history.create(fields));
  ws.setStatus("unsaved", `Copied ${m.kind === "polyline" ? "trajectory" : m.kind} “${m.label}” to ${ws.cursor.now().toFixed(2)} s`);
}

/** A shape was drawn: it becomes a mark with the editor's label, time anchor and facts.
 * @param {Workspace} ws @param {string} kind @param {Geometry} geometry @param {{vertex_times?: number[]}} extra */
function createDrawn(ws, kind, geometry, extra) {
  if (!ws.editor || !ws.map) return;
  const d = ws.editor.draft();
  const fields = {
    satellite_image: ws.imageId, kind, geometry, label: d.label, time_start: d.time_start, time_end: d.time_end,
    vertex_times: /** @type {number[]} */ ([]), facts: d.facts,
  };
  if (kind === "polyline" && extra.vertex_times) {
    const vt = extra.vertex_times;
    Object.assign(fields, { vertex_times: vt, time_start: vt[0], time_end: vt[vt.length - 1] });
  }
  const errors = { ...ws.editor.draftErrors(), ...geometryErrors(kind, geometry, ws.map.w, ws.map.h), ...timeErrors(fields, ws.cursor.duration) };
  if (Object.keys(errors).length) {
    ws.editor.showErrors(errors);
    ws.setStatus("error", "Not saved: " + Object.values(errors)[0]);
    return;
  }
  ws.editor.clearErrors();
  ws.history.create(fields);
  ws.editor.resetFacts();
}

/** The map moved or reshaped a mark. @param {Workspace} ws @param {number} id @param {Geometry} geometry */
function reshape(ws, id, geometry) {
  const mark = ws.store.get(id);
  if (!mark || !ws.map) return;
  const errors = geometryErrors(mark.kind, geometry, ws.map.w, ws.map.h);
  if (Object.keys(errors).length) {
    ws.map.setMark(mark);  // put the shape back as it was
    if (ws.editor) ws.editor.showErrors(errors);
    ws.setStatus("error", "Not saved: " + errors.geometry);
    return;
  }
  ws.history.update(id, { geometry });
}

/** @param {Workspace} ws @returns {Actions} */
export function createActions(ws) {
  const status = /** @type {HTMLElement} */ (document.getElementById("status"));
  // Undo/redo say what they did, without hiding a conflict that still waits for the person.
  const flash = (/** @type {string|null} */ text) => { if (text) ws.setStatus(status.dataset.state === "conflict" ? "conflict" : "unsaved", text); };
  return {
    toggle: () => ws.cursor.toggle(),
    step: (n) => ws.cursor.step(n),
    jump: (s) => ws.cursor.jump(s),
    tool: (t) => ws.setTool(t),
    fit: () => { if (ws.map) ws.map.fit(); },
    nextImage: (step) => {
      const n = ws.images.length;
      if (n < 2) return;
      const at = ws.images.findIndex((i) => i.id === ws.imageId);
      ws.showImage(ws.images[(((at + step) % n) + n) % n].id);
    },
    finish: () => { if (ws.map) ws.map.finishDrawing(); },
    backspace: () => { if (ws.map) ws.map.removeLastPoint(); },
    escape: () => {
      if (ws.map) ws.map.abortDrawing();
      if (ws.tool !== "none") ws.setTool("none"); else ws.select(null);
    },
    anchor: (which) => { if (ws.editable && ws.editor) ws.editor.anchor(which); },
    undo: () => { if (ws.editable) flash(ws.history.undo()); },
    redo: () => { if (ws.editable) flash(ws.history.redo()); },
    remove: (id = ws.selectedId) => {
      if (id === null || id === undefined || !mayEdit(ws, id)) return;
      ws.history.remove(id);
      if (ws.selectedId === id) ws.select(null);
    },
    copy: () => copy(ws),
    createDrawn: (kind, geometry, extra) => createDrawn(ws, kind, geometry, extra),
    reshape: (id, geometry) => reshape(ws, id, geometry),
    track: (both) => { if (ws.assist) ws.assist.track(both); },
  };
}
