import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { boxLabel, frameAt, isShown, overlaysAt } from "../../static/js/lib/cvaa.js";

const quad = (x) => [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]];
const cvaa = (x, confidence, shown) => ({ box: [x, 0, x + 10, 10], quad: quad(x), score: 0.95, confidence, shown });
const placed = (x, source, confidence, m = 2.5) => ({
  source, label: source, quad: quad(x), confidence, uncertainty_px: m * 10, uncertainty_m: m,
});
const frames = [
  { index: 0, time_s: 0, cvaa: cvaa(0, 0.8, true), footprint: placed(100, "control_points", 0.95, 0.4) },
  { index: 1, time_s: 1, cvaa: cvaa(20, 0.1, false), footprint: placed(20, "learned", 0.1, 12) },
  { index: 2, time_s: 2, cvaa: cvaa(40, 0.5, true), footprint: placed(140, "telemetry", 0.8, 5.3) },
  { index: 3, time_s: 3, cvaa: null, footprint: null },
  { index: 4, time_s: 4, cvaa: cvaa(60, 0.9, true), footprint: placed(60, "learned", 0.9, 12) },
];

describe("frameAt", () => {
  it("takes the keyframe nearest t, the earlier one on a tie", () => {
    assert.equal(frameAt(frames, 0).index, 0);
    assert.equal(frameAt(frames, 0.49).index, 0);
    assert.equal(frameAt(frames, 0.5).index, 0);
    assert.equal(frameAt(frames, 0.51).index, 1);
    assert.equal(frameAt(frames, 1.7).index, 2);
    assert.equal(frameAt(frames, 99).index, 4);
    assert.equal(frameAt(frames, -1).index, 0);
  });
  it("has nothing without frames", () => {
    assert.equal(frameAt([], 1), null);
    assert.equal(frameAt(null, 1), null);
  });
});

describe("isShown", () => {
  it("shows a box only when the server says it is significant and confident enough", () => {
    assert.equal(isShown(cvaa(0, 0.9, true)), true);
    assert.equal(isShown(cvaa(0, 0.9, false)), false);
    assert.equal(isShown({ ...cvaa(0, 0.9), shown: undefined }), false);  // a high cosine alone shows nothing
    assert.equal(isShown(null), false);
  });
});

describe("overlaysAt", () => {
  it("draws the shown box and the placement from its own source, each labelled", () => {
    const { box, footprint, note } = overlaysAt(frames, 0.2, 0.5);
    assert.deepEqual(box, { quad: quad(0), label: "CVAA p 0.80", source: "cvaa" });
    assert.deepEqual(footprint, { quad: quad(100), label: "control points ±0.4 m · 0.95", source: "control_points" });
    assert.equal(note, "control_points · ±0.4 m · confidence 0.95");
    assert.equal(overlaysAt(frames, 2, 0.5).footprint.source, "telemetry");
  });
  it("hides a box the server does not show, and a placement below the confidence threshold, saying so", () => {
    assert.deepEqual(overlaysAt(frames, 1, 0.5), { box: null, footprint: null, note: "not placed (low confidence)" });
    assert.equal(overlaysAt(frames, 2, 0.81).footprint, null);
    assert.equal(overlaysAt(frames, 2, 0.81).note, "not placed (low confidence)");
  });
  it("draws a learned placement once: as the box while the box is shown", () => {
    assert.equal(overlaysAt(frames, 4, 0.5).footprint, null);
    const hidden = frames.map((f) => (f.index === 4 ? { ...f, cvaa: cvaa(60, 0.9, false) } : f));
    assert.equal(overlaysAt(hidden, 4, 0.5).footprint.source, "learned");
  });
  it("says a keyframe without a placement is not placed, and nothing without frames", () => {
    assert.deepEqual(overlaysAt(frames, 3, 0), { box: null, footprint: null, note: "not placed" });
    assert.deepEqual(overlaysAt(null, 3, 0), { box: null, footprint: null, note: "" });
  });
  it("labels a box with its calibrated probability to two decimals, or as uncalibrated", () => {
    assert.equal(boxLabel(cvaa(0, 0.456, true)), "CVAA p 0.46");
    assert.equal(boxLabel(cvaa(0, null, true)), "CVAA (uncalibrated)");
  });
});
