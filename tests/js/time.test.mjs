import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { clampTime, clock, frameIndex, frameLabel, frameStepTime, roundMs } from "../../static/js/lib/time.js";

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
  it("keeps a time stored to the millisecond on the frame it was set on", () => {
    assert.equal(frameIndex(roundMs(1 / 3), 3), 1);  // 0.333
    assert.equal(frameIndex(roundMs(2 / 3), 3), 2);  // 0.667
    assert.equal(frameIndex(0.332, 3), 0);
  });
});

describe("frameLabel", () => {
  // A 10 s video at 3 fps has 30 frames; frame index k spans [k/3, (k+1)/3).
  it("counts from 1 at the start", () => {
    assert.equal(frameLabel(0, 3, 30), "frame 1 of 30");
    assert.equal(frameLabel(0.332, 3, 30), "frame 1 of 30");
    assert.equal(frameLabel(0.333, 3, 30), "frame 2 of 30");  // 1/3 s as marks store it
    assert.equal(frameLabel(1 / 3, 3, 30), "frame 2 of 30");
  });
  it("names frame 13 at 4.00 s, also when the video reports a hair below 4 s", () => {
    assert.equal(frameLabel(4, 3, 30), "frame 13 of 30");
    assert.equal(frameLabel(3.9996, 3, 30), "frame 13 of 30");  // the clock prints 4.00
    assert.equal(frameLabel(3.99, 3, 30), "frame 12 of 30");
  });
  it("reaches the last frame at duration - 1/fps and stays on it at the very end", () => {
    assert.equal(frameLabel(10 - 1 / 3 - 0.01, 3, 30), "frame 29 of 30");
    assert.equal(frameLabel(10 - 1 / 3, 3, 30), "frame 30 of 30");
    assert.equal(frameLabel(10, 3, 30), "frame 30 of 30");
  });
  it("leaves out the total when the video is not probed", () => {
    assert.equal(frameLabel(4, 3, 0), "frame 13");
    assert.equal(frameLabel(0, 25, undefined), "frame 1");
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
