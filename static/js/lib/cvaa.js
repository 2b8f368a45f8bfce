// @ts-check
/* CVAA retrieval previews, pure logic: which keyframe's preview belongs to a video time, whether its
 * box is confident enough to show, and what the map draws (the predicted box and the keyframe's stored
 * placement, each with its label). The data is GET api-scene-cvaa-previews. */

import { placementView } from "./placement.js";

/** @typedef {import("./types.js").XY} XY */
/** @typedef {import("./placement.js").Placement} Placement */

/**
 * The retriever's answer for one keyframe: best box first.
 * @typedef {object} CvaaBox
 * @property {number[]} box [x1, y1, x2, y2] in API pixels
 * @property {XY[]} quad the frame's corners TL, TR, BR, BL as placed
 * @property {number} score cosine similarity of the best window (raw: not a confidence)
 * @property {number|null} [confidence] calibrated probability that the box hits the true footprint
 * @property {boolean} [shown] the server's decision: a significant margin and enough confidence
 * @property {string} [label]
 */

/** @typedef {{index: number, time_s: number, cvaa: CvaaBox|null, footprint: Placement|null}} CvaaFrame */

/** @typedef {{quad: XY[], label: string, source: string}} Overlay */

/** The keyframe nearest t (the earlier one on a tie), or null. Frames are in time order.
 * @param {CvaaFrame[]|null|undefined} frames @param {number} t @returns {CvaaFrame|null} */
export function frameAt(frames, t) {
  if (!Array.isArray(frames) || !frames.length) return null;
  let lo = 0, hi = frames.length - 1;
  while (lo < hi) {  // first frame at or after t
    const mid = (lo + hi) >> 1;
    if (frames[mid].time_s < t) lo = mid + 1; else hi = mid;
  }
  const after = frames[lo];
  if (lo === 0 || after.time_s < t) return after;  // t before the first frame, or after the last
  const before = frames[lo - 1];
  return t - before.time_s <= after.time_s - t ? before : after;
}

/** Whether a box may be drawn: the server says so only when the top window stands out significantly
 * from the rest of the map and its calibrated probability of a hit reaches the setting
 * (annotator/processing/cvaa/selectors.py, box_shown); otherwise the retriever is guessing.
 * @param {CvaaBox|null|undefined} cvaa */
export function isShown(cvaa) {
  return !!cvaa && cvaa.shown === true;
}

/** "CVAA p 0.71": the box's label on the map, with its calibrated probability of a hit (a raw cosine
 * score would mean nothing); "CVAA (uncalibrated)" for a checkpoint without calibration.
 * @param {CvaaBox} cvaa */
export function boxLabel(cvaa) {
  return typeof cvaa.confidence === "number" && Number.isFinite(cvaa.confidence)
    ? `CVAA p ${cvaa.confidence.toFixed(2)}` : "CVAA (uncalibrated)";
}

/** What the map shows at time t: the predicted box (null unless the server shows it), the keyframe's
 * placement (null below minConfidence: no box is drawn then) and the line said about the placement. A
 * learned placement is the retriever's own window: while the box is drawn it is not drawn a second time.
 * @param {CvaaFrame[]|null|undefined} frames @param {number} t @param {number} minConfidence
 * @returns {{box: Overlay|null, footprint: Overlay|null, note: string}} */
export function overlaysAt(frames, t, minConfidence) {
  const frame = frameAt(frames, t);
  if (!frame) return { box: null, footprint: null, note: "" };
  const box = frame.cvaa && isShown(frame.cvaa)
    ? { quad: frame.cvaa.quad, label: boxLabel(frame.cvaa), source: "cvaa" }
    : null;
  const shown = placementView(frame.footprint, true, minConfidence);
  const footprint = shown.overlay && !(box && shown.overlay.source === "learned") ? shown.overlay : null;
  return { box, footprint, note: shown.note };
}
