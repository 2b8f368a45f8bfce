import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { clampTime, clock, frameIndex, frameStepTime, roundMs } from "../../static/js/lib/time.js";

describe("frameIndex", () => {
  it("gives the frame whose span [k/fps, (k+1)/fps) holds t", () => {
    assert.equal(frameIndex(0, 3), 0);
    assert.equal(frameIndex(0.33, 3), 0);
    assert.equal(frameIndex(2 / 3, 3), 2);
    assert.equal(frameIndex(0.999, 25), 24);
  });
  it("keeps a time set from k/fps on frame k despite rounding", () => {
    // 29/25 * 25 is 28.999999999999996 in floating point
    assert.equal(frameIndex(29 / 25, 25), 29);
  });
});

describe("frameStepTime", () => {
  it("steps from the start of the current frame, never before 0", () => {
    assert.equal(frameStepTime(0, 3, 1), 1 / 3);
    assert.equal(frameStepTime(1.5, 3, 1), 5 / 3);  // frame 4 -> frame 5
    assert.equal(frameStepTime(1.5, 3, -1), 1);
    assert.equal(frameStepTime(0.1, 3, -2), 0);
  });
});

describe("clampTime", () => {
  it("keeps t inside the video", () => {
    assert.equal(clampTime(-2, 10), 0);
    assert.equal(clampTime(12, 10), 10);
    assert.equal(clampTime(4, 10), 4);
    assert.equal(clampTime(40, 0), 40);  // duration unknown
  });
});

describe("roundMs and clock", () => {
  it("rounds to the millisecond", () => {
    assert.equal(roundMs(1.23456), 1.235);
    assert.equal(roundMs(undefined), 0);
  });
  it("prints seconds, with minutes from one minute on", () => {
    assert.equal(clock(5.333), "5.33");
    assert.equal(clock(65.333), "1:05.33");
    assert.equal(clock(600), "10:00.00");
    assert.equal(clock(-3), "0.00");
  });
});
