import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { jobDetailText, jobStateText } from "../../static/js/lib/jobs.js";

describe("jobStateText", () => {
  it("says what a pending job waits for", () => {
    assert.equal(jobStateText({ state: "pending", waiting_for: ["keyframes", "telemetry"] }), "waiting for keyframes, telemetry");
  });
  it("says the state otherwise, even with a stale list", () => {
    assert.equal(jobStateText({ state: "pending", waiting_for: [] }), "pending");
    assert.equal(jobStateText({ state: "pending" }), "pending");
    assert.equal(jobStateText({ state: "running", waiting_for: ["keyframes"] }), "running");
  });
});

describe("jobDetailText", () => {
  it("leaves out a waiting job's detail (the badge says it) and keeps any other's", () => {
    const detail = "waiting for keyframes: it runs when they are done";
    assert.equal(jobDetailText({ state: "pending", detail, waiting_for: ["keyframes"] }), "");
    assert.equal(jobDetailText({ state: "succeeded", detail: "image 3: 10/10 placed" }), "image 3: 10/10 placed");
    assert.equal(jobDetailText({ state: "pending" }), "");
  });
});
