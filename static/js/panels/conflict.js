// @ts-check
/* The conflict box in the editor: a save answered 409 because the mark changed somewhere else.
 * It names the mark, lists what differs, and lets the person keep their edit or take theirs. */

import { byId, el } from "../lib/dom.js";

/** @typedef {import("../workspace/state.js").Workspace} Workspace */

const DIFF_FIELDS = ["label", "geometry", "time_start", "time_end", "vertex_times", "facts"];
const short = (/** @type {string} */ s) => (s && s.length > 60 ? s.slice(0, 57) + "…" : s);

/** Show the first conflict waiting in the store, or hide the box. @param {Workspace} ws */
export function showConflicts(ws) {
  const box = byId("conflict");
  const entry = ws.store.conflicts()[0];
  box.classList.toggle("hidden", !entry);
  if (!entry || !entry.current) return;
  box.dataset.markId = String(entry.key);
  const mine = /** @type {Record<string, any>} */ (ws.store.get(entry.key) || {});
  const theirs = /** @type {Record<string, any>} */ (entry.current);
  byId("conflict-text").textContent = entry.op === "delete"
    ? ` You deleted mark #${entry.key}, but it was changed meanwhile (now version ${theirs.version}).`
    : ` Mark #${entry.key} “${theirs.label}” is at version ${theirs.version}; your edit was made on version ${entry.baseVersion}.`;
  const rows = [];
  for (const key of DIFF_FIELDS) {
    if (entry.op === "delete" || !(key in (entry.changes || {}))) continue;
    const a = JSON.stringify(mine[key]), b = JSON.stringify(theirs[key]);
    if (a !== b) rows.push(el("li", {}, el("strong", {}, key + ": "), "mine ", el("code", {}, short(a)), " · theirs ", el("code", {}, short(b))));
  }
  byId("conflict-diff").replaceChildren(...rows);
}

/** The two buttons. `refresh` redraws the editor fields at once rather than on the next
 * animation frame, which a tab in the background may not get for a while: the person just chose
 * what the fields should show.
 * @param {Workspace} ws @param {() => void} refresh */
export function wireConflictButtons(ws, refresh) {
  const markId = () => Number(byId("conflict").dataset.markId);
  byId("conflict-mine").addEventListener("click", () => { ws.store.keepMine(markId()); refresh(); });
  byId("conflict-theirs").addEventListener("click", () => { ws.store.takeTheirs(markId()); refresh(); });
}
