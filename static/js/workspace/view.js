// @ts-check
/* What the page shows of the marks: the list, the label filter, the timeline spans, the selection,
 * and what follows the time cursor (clock, play button, dimmed entries, the map). */

import { byId } from "../lib/dom.js";
import { labelFilter, markEntry } from "../panels/lists.js";
import { imageName, renderImageCounts } from "./images.js";

/** @typedef {import("./state.js").Workspace} Workspace */
/** @typedef {import("../lib/types.js").Mark} Mark */

/** The list entries, as elements with data-mark-id. @returns {HTMLElement[]} */
const entries = () => /** @type {HTMLElement[]} */ ([...byId("marks-list").children]);

/** The control of the marks list that has the focus, as "which mark, which control", or null.
 * @param {HTMLElement} list */
function focusedControl(list) {
  const active = /** @type {HTMLElement|null} */ (document.activeElement);
  const li = active && list.contains(active) ? /** @type {HTMLElement|null} */ (active.closest("li[data-mark-id]")) : null;
  return li && active && active.dataset.action ? { markId: li.dataset.markId, action: active.dataset.action } : null;
}

/** Draw the marks everywhere but the map (which draws each mark as it changes). @param {Workspace} ws */
function renderMarks(ws) {
  const list = byId("marks-list");
  const order = (/** @type {Mark} */ m) => (m.id > 0 ? m.id : 1e12 - m.id);  // unsaved marks last, in drawing order
  const marks = ws.store.all().sort((a, b) => order(a) - order(b));
  // Redrawing replaces the entries. A control that had the focus (the "visible?" select someone is
  // changing with the keyboard) gets it back; otherwise the focus falls to the page and the next
  // letter typed for the select would start a tool.
  const focused = focusedControl(list);
  const labelOf = (/** @type {number} */ id) => { const other = ws.store.get(id); return other ? other.label : undefined; };
  const several = ws.images.length > 1;
  list.replaceChildren(...marks.map((m) => markEntry(m, {
    image: several ? imageName(ws, m.satellite_image) : "", onImage: !several || m.satellite_image === ws.imageId,
    editable: ws.editable, showFacts: ws.showFacts, pick: ws.compose ? ws.compose.position(m.id) : -1, current: ws.isCurrent(m), selected: m.id === ws.selectedId,
    locked: ws.isLocked(m.id), pending: ws.store.isPending(m.id), hidden: ws.hiddenLabels.has(m.label),
    highlighted: ws.highlighted.has(m.id), feedback: ws.feedback.get(m.id), labelOf,
  })));
  if (focused) {
    const again = /** @type {HTMLElement|null} */ (list.querySelector(`li[data-mark-id="${focused.markId}"] [data-action="${focused.action}"]`));
    if (again) again.focus({ preventScroll: true });
  }
  renderImageCounts(ws);
  byId("marks-count").textContent = String(marks.length);
  byId("marks-empty").classList.toggle("hidden", marks.length > 0);
  /** @type {Map<string, number>} */
  const counts = new Map();
  marks.forEach((m) => counts.set(m.label, (counts.get(m.label) || 0) + 1));
  byId("label-filter").replaceChildren(...(counts.size > 1 || ws.hiddenLabels.size ? labelFilter(counts, ws.hiddenLabels) : []));
  ws.timeline.renderMarks(marks, {
    selectedId: ws.selectedId, highlighted: ws.highlighted, flagged: ws.feedback, hidden: (m) => ws.hiddenLabels.has(m.label),
  });
  if (ws.editor) ws.editor.refresh();
  if (ws.assist) ws.assist.refresh();
}

/** Follow the time cursor. @param {Workspace} ws @param {number} t */
function onTime(ws, t) {
  byId("current-time").textContent = t.toFixed(2);
  byId("frame-no").textContent = ws.cursor.frameLabel();
  byId("play").textContent = ws.cursor.paused ? "▶ Play" : "❚❚ Pause";
  if (ws.map) ws.map.refresh(t);
  ws.timeline.update(t);
  for (const li of entries()) {
    const mark = ws.store.get(Number(li.dataset.markId));
    if (!mark) continue;
    const cur = ws.isCurrent(mark);
    li.classList.toggle("current", cur);
    li.classList.toggle("dim", !cur);
  }
}

/** Select a mark (or nothing, with null) in the list, on the map and in the editor.
 * @param {Workspace} ws @param {number|null|undefined} id @param {{seek?: boolean}} [opts] seek: move the video to it */
function select(ws, id, { seek } = {}) {
  id = id === null || id === undefined ? null : ws.store.resolve(id);
  if (id !== null && !ws.store.get(id)) id = null;
  // A mark is drawn on its own image: selecting one of another image shows that image first.
  const wanted = id === null ? null : ws.store.get(id);
  if (wanted && wanted.satellite_image !== null && wanted.satellite_image !== ws.imageId) ws.showImage(wanted.satellite_image);
  ws.selectedId = id;
  if (ws.map) ws.map.select(id);
  for (const li of entries()) li.classList.toggle("selected", Number(li.dataset.markId) === id);
  const mark = ws.selectedMark();
  if (ws.editor) { ws.editor.clearErrors(); ws.editor.refresh(); }
  ws.render();
  if (!mark) return;
  if (seek) ws.cursor.seek(mark.time_start);
  const li = byId("marks-list").querySelector(`li[data-mark-id="${id}"]`);
  if (li) li.scrollIntoView({ block: "nearest" });
}

/** Give ws its render(), renderNow() and select(). @param {Workspace} ws */
export function setupView(ws) {
  let renderQueued = false;
  ws.renderNow = () => renderMarks(ws);
  // Many changes arrive together (a save answer, a reload): draw once per animation frame.
  ws.render = () => {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => { renderQueued = false; renderMarks(ws); });
  };
  ws.select = (id, opts) => select(ws, id, opts);
}

/** Follow the cursor from now on (called once the other parts exist). @param {Workspace} ws */
export function followCursor(ws) {
  ws.cursor.subscribe((t) => onTime(ws, t));
}
