import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  elementPixel, isDone, jobText, lostText, medianUncertainty, outliers, sourcesOf, targetOf, toCheck, trackRequest,
  uncertaintyCircles, videoPixel, videoRect, withoutVertices,
} from "../../static/js/lib/assist.js";

describe("videoPixel", () => {
  it("maps through the letterbox of a contained video and back", () => {
    // a 1920x1080 video in a 960x1000 element: 960x540 picture, 230 px bands above and below
    const box = { width: 960, height: 1000 };
    assert.deepEqual(videoRect(box, 1920, 1080), { left: 0, top: 230, width: 960, height: 540, scale: 0.5 });
    assert.deepEqual(videoPixel(480, 500, box, 1920, 1080), [960, 540]);
    assert.deepEqual(elementPixel([960, 540], box, 1920, 1080), [480, 500]);
  });
  it("is null in the bands", () => {
    assert.equal(videoPixel(10, 100, { width: 960, height: 1000 }, 1920, 1080), null);
  });
});

describe("targetOf", () => {
  it("reads a short drag as a click and a real one as a box", () => {
    assert.deepEqual(targetOf([100, 50], [103, 52]), { point: [100, 50] });
    assert.deepEqual(targetOf([100, 50], [140, 80]), { box: [120, 65, 40, 30] });
    assert.deepEqual(targetOf([140, 80], [100, 50]), { box: [120, 65, 40, 30] });
  });
});

describe("trackRequest", () => {
  it("asks forward unless both ways are wanted, never before 0 s", () => {
    const body = trackRequest({ imageId: 3, label: "car", time: 1.23456, target: { point: [1, 2] } });
    assert.deepEqual(body, { satellite_image: 3, label: "car", time_s: 1.235, direction: "forward", duration_s: 10, point: [1, 2] });
    assert.equal(trackRequest({ imageId: 3, label: "car", time: -0.01, target: { box: [1, 2, 3, 4] }, both: true }).direction, "both");
    assert.equal(trackRequest({ imageId: 3, label: "car", time: -0.01, target: { box: [1, 2, 3, 4] } }).time_s, 0);
  });
});

const v = (t, x, source = "control_points", u = 0.2) => ({ t, x, y: x === null ? null : 5, source, uncertainty_m: x === null ? null : u, uncertainty_px: x === null ? null : u * 10, score: 0.9 });

describe("jobText", () => {
  it("says what a job is doing and what the draft is made of", () => {
    assert.equal(jobText({ id: 1, state: "running", progress: 40, error: "", detail: "", vertices: [], mark: null }), "Tracking… 40 %");
    assert.match(jobText({ id: 1, state: "failed", progress: 0, error: "lost", detail: "", vertices: [], mark: null }), /failed: lost/);
    const vs = [v(0, 1), v(0.1, 2, "chaining", 0.6), v(0.2, null, "lost"), v(0.3, 3, "control_points+chaining", 0.4)];
    const text = jobText({ id: 1, state: "succeeded", progress: 100, error: "", detail: "", vertices: vs, mark: 4 });
    assert.equal(text, "Draft trajectory: 3 of 4 frames on the map, 1 lost in the video · via control points, chained frames · ±0.40 m · check it, then Confirm");
  });
  it("claims no metres where the image has no scale", () => {
    assert.equal(medianUncertainty([{ ...v(0, 1), uncertainty_m: null }]), null);
    assert.deepEqual(sourcesOf([v(0, null, "lost")]), []);
  });
  it("knows when a job is over", () => {
    assert.deepEqual(["pending", "running", "succeeded", "failed", "cancelled"].map(isDone), [false, false, true, true, true]);
  });
});

describe("outliers and dropping vertices", () => {
  const line = [[0, 0], [10, 0], [20, 0], [30, 40], [40, 0], [50, 0], [60, 0]];
  it("flags a vertex that jumps off its neighbours, never the ends", () => {
    assert.deepEqual(outliers(line), [3]);
    assert.deepEqual(outliers(line.slice(0, 4)), []);
    // a car turning steadily through a roundabout has none
    const arc = [...Array(12).keys()].map((i) => [100 * Math.cos(i / 4), 100 * Math.sin(i / 4)]);
    assert.deepEqual(outliers(arc), []);
  });
  it("drops vertices with their times and keeps the anchor on the rest", () => {
    const times = [0, 1, 2, 3, 4, 5, 6];
    const out = withoutVertices(line, times, [0, 3]);
    assert.deepEqual(out?.vertex_times, [1, 2, 4, 5, 6]);
    assert.deepEqual(out?.geometry.coordinates, [[10, 0], [20, 0], [40, 0], [50, 0], [60, 0]]);
    assert.equal(out?.time_start, 1);
    assert.equal(withoutVertices(line.slice(0, 2), [0, 1], [0]), null);
  });
  it("matches the job's uncertainty to the vertices left, by time", () => {
    const circles = uncertaintyCircles([[1, 5], [9, 9]], [0.1, 7], [v(0.1, 1, "chaining", 0.6)]);
    assert.deepEqual(circles, [
      { x: 1, y: 5, r: 6, source: "chaining", check: false }, { x: 9, y: 9, r: 0, source: "edited", check: false },
    ]);
  });
});

describe("the tracker's own doubt", () => {
  const doubted = (t, fb) => ({ ...v(t, 1), fb_px: fb, why: "" });
  const lost = (t, why) => ({ ...v(t, null, "lost"), fb_px: null, why });
  it("flags the vertices whose back-check landed 2 px or more off, and only found ones", () => {
    const circles = uncertaintyCircles([[1, 5], [2, 5]], [0, 1], [doubted(0, 0.4), doubted(1, 9.5)]);
    assert.deepEqual(circles.map((c) => c.check), [false, true]);
    assert.equal(toCheck(doubted(0, 2)), true);
    assert.equal(toCheck({ ...lost(0, "back-check"), fb_px: 40 }), false);
    assert.equal(toCheck(v(0, 1)), false); // a job from before the back-check was kept
  });
  it("says why frames were lost and how many vertices to check", () => {
    const vs = [doubted(0, 0.3), doubted(1, 6), lost(2, "back-check"), lost(3, "back-check"), lost(4, "jump")];
    assert.equal(lostText(vs), "3 lost in the video (2 failed the back-check, 1 jumped off the motion)");
    assert.equal(lostText([lost(0, "")]), "1 lost in the video");
    assert.equal(lostText([doubted(0, 0)]), "");
    const job = { id: 1, state: "succeeded", progress: 100, error: "", detail: "", vertices: vs, mark: 3 };
    assert.match(jobText(job), /^Draft trajectory: 2 of 5 frames on the map, 3 lost in the video \(2 failed the back-check, 1 jumped off the motion\)/);
    assert.match(jobText(job), / · 1 vertex the tracker doubts \(red\) · check it, then Confirm$/);
  });
});

describe("batches", () => {
  it("take a clip around the cursor inside the video", async () => {
    const { clipAround } = await import("../../static/js/lib/assist.js");
    assert.deepEqual(clipAround(2, 10), { start_s: 0, end_s: 7 });
    assert.deepEqual(clipAround(8, 10), { start_s: 3, end_s: 10 });
  });
  it("say how far they are and what came of them", async () => {
    const { batchText } = await import("../../static/js/lib/assist.js");
    const job = (state, progress = 0, error = "") => ({ id: 1, state, progress, error, detail: "", vertices: [], mark: null });
    assert.equal(batchText([job("running", 50), job("succeeded", 100)]), "Tracking 2 targets… 75 %");
    assert.equal(batchText([job("succeeded"), job("failed", 0, "lost")]), "1 draft trajectory made, 1 failed (lost) · check each, then Confirm");
    assert.equal(batchText([]), "No targets to track");
    assert.equal(batchText([job("succeeded"), job("cancelled"), job("cancelled")]), "1 draft trajectory made, 2 cancelled · check each, then Confirm");
  });
  it("cancel the jobs not over yet and take the cancel answers in place", async () => {
    const { toCancel, withAnswers } = await import("../../static/js/lib/assist.js");
    const job = (id, state) => ({ id, state, progress: 0, error: "", detail: "", vertices: [], mark: null });
    const jobs = [job(1, "succeeded"), job(2, "running"), job(3, "pending"), job(4, "failed")];
    assert.deepEqual(toCancel(jobs), [2, 3]);
    assert.deepEqual(toCancel([job(1, "cancelled")]), []);
    const after = withAnswers(jobs, [job(2, "cancelled"), job(3, "running")]);
    assert.deepEqual(after.map((j) => j.state), ["succeeded", "cancelled", "running", "failed"]);
  });
});
