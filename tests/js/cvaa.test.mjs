import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { boxLabel, frameAt, isShown, overlaysAt } from "../../static/js/lib/cvaa.js";

const quad = (x) => [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]];
const cvaa = (x, confidence, shown) => ({ box: [x, 0, x + 10, 10], quad: quad(x), score: 0.95, confidence, shown });
const frames = [
  { index: 0, time_s: 0, cvaa: cvaa(0, 0.8, true), footprint: { source: "homography", label: "homography (control points)", quad: quad(100) } },
  { index: 1, time_s: 1, cvaa: cvaa(20, 0.1, false), footprint: { source: "cvaa", label: "CVAA retrieval", quad: quad(20), score: 0.95 } },
  { index: 2, time_s: 2, cvaa: cvaa(40, 0.5, true), footprint: { source: "telemetry", label: "telemetry (GPS, altitude, heading)", quad: quad(140) } },
  { index: 3, time_s: 3, cvaa: null, footprint: null },
];

describe("frameAt", () => {
  it("takes the keyframe nearest t, the earlier one on a tie", () => {
    assert.equal(frameAt(frames, 0).index, 0);
    assert.equal(frameAt(frames, 0.49).index, 0);
    assert.equal(frameAt(frames, 0.5).index, 0);
    assert.equal(frameAt(frames, 0.51).index, 1);
    assert.equal(frameAt(frames, 1.7).index, 2);
    assert.equal(frameAt(frames, 99).index, 3);
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
  it("draws the confident box and the footprint from its own source, each labelled", () => {
    const { box, footprint } = overlaysAt(frames, 0.2);
    assert.deepEqual(box, { quad: quad(0), label: "CVAA p 0.80", source: "cvaa" });
    assert.deepEqual(footprint, { quad: quad(100), label: "homography (control points)", source: "homography" });
    assert.equal(overlaysAt(frames, 2).footprint.source, "telemetry");
  });
  it("hides a box the server does not show, and a footprint that is only that box with it", () => {
    assert.deepEqual(overlaysAt(frames, 1), { box: null, footprint: null });
  });
  it("draws nothing for a keyframe without a preview or footprint, or without frames", () => {
    assert.deepEqual(overlaysAt(frames, 3), { box: null, footprint: null });
    assert.deepEqual(overlaysAt(null, 3), { box: null, footprint: null });
  });
  it("labels a box with its calibrated probability to two decimals, or as uncalibrated", () => {
    assert.equal(boxLabel(cvaa(0, 0.456, true)), "CVAA p 0.46");
    assert.equal(boxLabel(cvaa(0, null, true)), "CVAA (uncalibrated)");
  });
});
