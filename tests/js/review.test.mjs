import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { elapsedSeconds, reviewKeyAction } from "../../static/js/review/keys.js";
import { drawShape, overlayScale } from "../../static/js/review/overlay.js";

const key = (k, mods = {}) => ({ key: k, ...mods });

describe("reviewKeyAction", () => {
  it("picks options 1-8 while blind, within the item's options", () => {
    assert.deepEqual(reviewKeyAction(key("1"), "blind", 4, false), { type: "choose", index: 0 });
    assert.deepEqual(reviewKeyAction(key("4"), "blind", 4, false), { type: "choose", index: 3 });
    assert.equal(reviewKeyAction(key("5"), "blind", 4, false), null);
    assert.equal(reviewKeyAction(key("9"), "blind", 8, false), null);
    assert.deepEqual(reviewKeyAction(key("Enter"), "blind", 2, false), { type: "answer" });
  });
  it("approves with A and rejects with R only once the key is shown", () => {
    assert.deepEqual(reviewKeyAction(key("a"), "decide", 2, false), { type: "approve" });
    assert.deepEqual(reviewKeyAction(key("R"), "decide", 2, false), { type: "reject" });
    assert.equal(reviewKeyAction(key("a"), "blind", 2, false), null);
    assert.equal(reviewKeyAction(key("a"), "decided", 2, false), null);
    assert.equal(reviewKeyAction(key("1"), "decide", 2, false), null);
  });
  it("goes to the next item with N at every stage", () => {
    for (const stage of ["blind", "decide", "decided"]) assert.deepEqual(reviewKeyAction(key("n"), stage, 2, false), { type: "next" });
  });
  it("leaves typing alone, except Enter committing a blind number", () => {
    assert.equal(reviewKeyAction(key("a"), "decide", 2, true), null);
    assert.equal(reviewKeyAction(key("n"), "decide", 0, true), null);
    assert.deepEqual(reviewKeyAction(key("Enter"), "blind", 0, true), { type: "answer" });
    assert.equal(reviewKeyAction(key("Enter"), "decide", 0, true), null);
  });
  it("ignores keys with modifiers (browser shortcuts)", () => {
    assert.equal(reviewKeyAction(key("r", { ctrlKey: true }), "decide", 2, false), null);
    assert.equal(reviewKeyAction(key("n", { metaKey: true }), "blind", 2, false), null);
  });
});

describe("elapsedSeconds", () => {
  it("rounds to milliseconds and never goes below zero", () => {
    assert.equal(elapsedSeconds(1000, 13500.4), 12.5);
    assert.equal(elapsedSeconds(5, 1), 0);
  });
});

describe("drawShape", () => {
  it("closes polygons and names them at their top vertex", () => {
    const drawn = drawShape({ name: "A", geometry: { type: "Polygon", coordinates: [[[10, 40], [60, 10], [60, 40], [10, 40]]] } });
    assert.equal(drawn.d, "M10 40 L60 10 L60 40 L10 40 Z");
    assert.deepEqual(drawn.label, [60, 10]);
    assert.equal(drawn.closed, true);
    assert.equal(drawn.point, false);
  });
  it("leaves tracks open and marks points as points", () => {
    assert.equal(drawShape({ name: "t", geometry: { type: "LineString", coordinates: [[0, 0], [3, 4]] } }).d, "M0 0 L3 4");
    const point = drawShape({ name: "p", geometry: { type: "Point", coordinates: [5, 6] } });
    assert.equal(point.point, true);
    assert.deepEqual(point.label, [5, 6]);
  });
  it("draws ellipses as closed rings and skips empty geometry", () => {
    const drawn = drawShape({ name: "e", geometry: { type: "Ellipse", center: [100, 50], radii: [20, 10], rotation: 0 } });
    assert.ok(drawn.d.startsWith("M120 50") && drawn.d.endsWith(" Z"));
    assert.equal(drawn.label[1], 40);
    assert.equal(drawShape({ name: "x", geometry: null }), null);
  });
});

describe("overlayScale", () => {
  it("grows names with the image and keeps them readable on small ones", () => {
    assert.deepEqual(overlayScale(1920, 1080), { font: 48, radius: 13 });
    assert.deepEqual(overlayScale(200, 100), { font: 12, radius: 4 });
  });
});
