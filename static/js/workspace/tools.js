// @ts-check
/* The drawing tools: the toolbar, what the map is told to do while a tool is on, and the
 * trajectory recorder's running commentary under the toolbar. */

import { byId } from "../lib/dom.js";

/** @typedef {import("./state.js").Workspace} Workspace */
/** @typedef {import("../map/map_edit.js").ToolCallbacks} ToolCallbacks */

/** @param {Workspace} ws @param {HTMLElement} recording @returns {ToolCallbacks} */
function toolCallbacks(ws, recording) {
  /** @type {ToolCallbacks} */
  const cb = {
    // The label and facts are checked before the first click, so a shape is never drawn in vain.
    canStart: () => {
      if (!ws.editor) return null;
      const errors = ws.editor.draftErrors();
      const keys = Object.keys(errors);
      if (!keys.length) return null;
      ws.editor.showErrors(errors);
      return errors[keys[0]];
    },
    onEnd: (kind, geometry, extra) => ws.actions.createDrawn(kind, geometry, extra),
    onError: (msg) => {
      ws.setStatus("error", "Not drawn: " + msg);
      if (ws.tool === "polyline") { recording.textContent = msg; recording.classList.add("warn"); }
    },
    onProgress: (n, times) => {
      recording.classList.remove("warn");
      recording.textContent = n
        ? `Recording: ${n} ${n === 1 ? "vertex" : "vertices"} at ${times.map((t) => t.toFixed(2)).join(", ")} s — move the video on and click the next position; Enter finishes, Backspace removes the last, Esc cancels.`
        : "Trajectory: move the video to the first moment and click the target's position; each click takes the video time.";
    },
    now: () => ws.cursor.now(),
  };
  return cb;
}

/** Give ws its setTool() and drawingInProgress(); wire the toolbar. @param {Workspace} ws */
export function setupTools(ws) {
  const recording = byId("recording");
  const buttons = /** @type {HTMLElement[]} */ ([...document.querySelectorAll("#tools [data-tool]")]);
  const callbacks = recording ? toolCallbacks(ws, recording) : null;
  ws.setTool = (tool) => {
    if (!ws.editable || !ws.map || !callbacks) return;
    ws.tool = tool;
    if (tool !== "none" && ws.selectedId !== null) ws.select(null);
    buttons.forEach((b) => {
      b.classList.toggle("active", b.dataset.tool === tool);
      b.setAttribute("aria-pressed", String(b.dataset.tool === tool));
    });
    ws.map.setTool(tool, callbacks);
    recording.classList.toggle("hidden", tool !== "polyline");
    if (tool === "polyline" && callbacks.onProgress) callbacks.onProgress(0, []);
    if (ws.editor) ws.editor.refresh();
  };
  ws.drawingInProgress = () => ws.tool !== "none";
  buttons.forEach((b) => b.addEventListener("click", () => {
    // Clicking the trajectory tool again finishes the trajectory being recorded.
    if (b.dataset.tool === "polyline" && ws.tool === "polyline" && ws.map && ws.map.recording()) ws.map.finishDrawing();
    else ws.setTool(b.dataset.tool || "none");
  }));
}
