// @ts-check
/* The timeline's transport row (play, frame and second steps, rate) and the video element's own
 * clicks; the keyboard reaches the same cursor through keys.js. */

import { byId } from "../lib/dom.js";

/** @typedef {import("./state.js").Workspace} Workspace */

/** @param {Workspace} ws */
export function setupTransport(ws) {
  const { cursor } = ws;
  const video = byId("video");
  byId("play").addEventListener("click", () => cursor.toggle());
  byId("frame-prev").addEventListener("click", () => cursor.step(-1));
  byId("frame-next").addEventListener("click", () => cursor.step(1));
  /** @type {[string, number][]} */
  const jumps = [["jump-back-5", -5], ["jump-back-1", -1], ["jump-fwd-1", 1], ["jump-fwd-5", 5]];
  jumps.forEach(([id, s]) => byId(id).addEventListener("click", () => cursor.jump(s)));
  /** @type {HTMLSelectElement} */
  const rate = byId("rate");
  rate.addEventListener("change", () => cursor.setRate(Number(rate.value)));
  video.addEventListener("loadedmetadata", () => {
    byId("duration").textContent = cursor.duration.toFixed(2);
    ws.timeline.layout();
  });
  // Shift+click sets the target to track (assist.js), it does not play.
  video.addEventListener("click", (ev) => { if (!ev.shiftKey) cursor.toggle(); });
}
