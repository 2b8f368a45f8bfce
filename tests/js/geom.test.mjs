import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  INSTANT_WINDOW_S, ellipseRing, geometryErrors, isCurrentAt, ringSelfIntersects, shiftedTo,
  timeErrors, trajectoryAt, vertices,
} from "../../static/js/lib/geom.js";

const close = (actual, expected, eps = 1e-9) =>
  actual.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < eps, `${actual} != ${expected}`));

describe("ellipseRing", () => {
  it("starts on the first radius, closes the ring, and turns with the rotation", () => {
    const ring = ellipseRing([100, 50], [20, 10], 0, 4);
    assert.equal(ring.length, 5);
    close(ring[0], [120, 50]);
    close(ring[1], [100, 60]);  // y down: +90° is below the centre
    close(ring[4], ring[0]);
    const turned = ellipseRing([100, 50], [20, 10], 90, 4);
    close(turned[0], [100, 70]);
    close(turned[1], [90, 50]);
  });
});

describe("vertices", () => {
  it("lists every vertex of each shape", () => {
    assert.deepEqual(vertices({ type: "Point", coordinates: [1, 2] }), [[1, 2]]);
    assert.deepEqual(vertices({ type: "LineString", coordinates: [[0, 0], [3, 4]] }), [[0, 0], [3, 4]]);
    assert.deepEqual(vertices({ type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }), [[0, 0], [1, 0], [1, 1], [0, 0]]);
    assert.equal(vertices({ type: "Ellipse", center: [5, 5], radii: [2, 1], rotation: 0 }).length, 33);
    assert.deepEqual(vertices(null), []);
  });
});

describe("ringSelfIntersects", () => {
  it("accepts a square, open or closed", () => {
    assert.equal(ringSelfIntersects([[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]), false);
    assert.equal(ringSelfIntersects([[0, 0], [10, 0], [10, 10], [0, 10]]), false);
  });
  it("finds a bow tie and an edge that touches another", () => {
    assert.equal(ringSelfIntersects([[0, 0], [10, 10], [10, 0], [0, 10], [0, 0]]), true);
    assert.equal(ringSelfIntersects([[0, 0], [10, 0], [5, 0], [5, 5], [0, 0]]), true);
  });
  it("sees a corner lying on another edge despite floating-point error", () => {
    // (0.1, 0.3) is on the edge (0, 0)-(0.3, 0.9); the cross product comes out as 1.4e-17, not 0
    assert.equal(ringSelfIntersects([[0, 0], [0.3, 0.9], [0.6, 0], [0.1, 0.3]]), true);
  });
});

describe("geometryErrors", () => {
  const square = { type: "Polygon", coordinates: [[[10, 10], [50, 10], [50, 50], [10, 50], [10, 10]]] };
  it("passes a valid shape of each kind", () => {
    assert.deepEqual(geometryErrors("polygon", square, 100, 100), {});
    assert.deepEqual(geometryErrors("point", { type: "Point", coordinates: [100, 0] }, 100, 100), {});  // the edge is inside
    assert.deepEqual(geometryErrors("polyline", { type: "LineString", coordinates: [[1, 1], [2, 2]] }, 100, 100), {});
    assert.deepEqual(geometryErrors("ellipse", { type: "Ellipse", center: [50, 50], radii: [10, 5], rotation: 30 }, 100, 100), {});
  });
  it("names the first vertex outside the image", () => {
    const errors = geometryErrors("point", { type: "Point", coordinates: [120.4, 7] }, 100, 80);
    assert.equal(errors.geometry, "a vertex (120, 7) is outside the 100×80 px image");
  });
  it("refuses degenerate and crossing regions, short trajectories and flat ellipses", () => {
    const flat = { type: "Polygon", coordinates: [[[1, 1], [2, 2], [1, 1], [2, 2]]] };
    assert.match(geometryErrors("polygon", flat, 100, 100).geometry, /at least 3 distinct corners/);
    const bowtie = { type: "Polygon", coordinates: [[[0, 0], [10, 10], [10, 0], [0, 10], [0, 0]]] };
    assert.match(geometryErrors("polygon", bowtie, 100, 100).geometry, /self-intersecting/);
    assert.match(geometryErrors("polyline", { type: "LineString", coordinates: [[1, 1]] }, 100, 100).geometry, /at least 2 vertices/);
    assert.match(geometryErrors("ellipse", { type: "Ellipse", center: [5, 5], radii: [0, 3] }, 100, 100).geometry, /needs a size/);
  });
  it("checks an ellipse's outline, not only its centre", () => {
    const big = { type: "Ellipse", center: [50, 50], radii: [60, 5], rotation: 0 };
    assert.match(geometryErrors("ellipse", big, 100, 100).geometry, /outside/);
  });
});

describe("timeErrors", () => {
  it("accepts an instant and an interval inside the video", () => {
    assert.deepEqual(timeErrors({ time_start: 0, time_end: null }, 10), {});
    assert.deepEqual(timeErrors({ time_start: 2, time_end: 4, vertex_times: [2, 3, 4] }, 10), {});
  });
  it("refuses negative starts, backwards intervals and vertex times, and times past the end", () => {
    assert.equal(timeErrors({ time_start: -1, time_end: null }, 10).time_start, "the start must be 0 s or later");
    assert.equal(timeErrors({ time_start: 5, time_end: 4 }, 10).time_end, "the interval ends (4.00 s) before it starts (5.00 s)");
    assert.equal(timeErrors({ time_start: 11, time_end: null }, 10).time_start, "11.00 s is past the end of the video");
    assert.equal(timeErrors({ time_start: 1, time_end: 12 }, 10).time_end, "12.00 s is past the end of the video");
    assert.equal(timeErrors({ time_start: 1, time_end: 3, vertex_times: [1, 3, 2] }, 10).vertex_times, "vertex times must not go backwards");
  });
  it("does not check the end when the duration is unknown", () => {
    assert.deepEqual(timeErrors({ time_start: 99, time_end: null }, 0), {});
  });
});

describe("isCurrentAt", () => {
  it("treats an instant as current within the window around it", () => {
    const mark = { time_start: 3, time_end: null };
    assert.equal(isCurrentAt(mark, 3 + INSTANT_WINDOW_S), true);
    assert.equal(isCurrentAt(mark, 3 - INSTANT_WINDOW_S - 0.01), false);
  });
  it("treats an interval as current between its ends, inclusive", () => {
    const mark = { time_start: 2, time_end: 4 };
    assert.equal(isCurrentAt(mark, 2), true);
    assert.equal(isCurrentAt(mark, 4), true);
    assert.equal(isCurrentAt(mark, 4.01), false);
  });
});

describe("trajectoryAt", () => {
  const track = { kind: "polyline", geometry: { type: "LineString", coordinates: [[0, 0], [100, 0], [100, 50]] }, vertex_times: [1, 3, 4] };
  it("interpolates between the vertices around t", () => {
    close(trajectoryAt(track, 2), [50, 0]);
    close(trajectoryAt(track, 3.5), [100, 25]);
    close(trajectoryAt(track, 4), [100, 50]);
  });
  it("is null outside the vertex times or without per-vertex times", () => {
    assert.equal(trajectoryAt(track, 0.5), null);
    assert.equal(trajectoryAt(track, 4.5), null);
    assert.equal(trajectoryAt({ ...track, vertex_times: [] }, 2), null);
    assert.equal(trajectoryAt({ ...track, kind: "polygon" }, 2), null);
  });
});

describe("shiftedTo", () => {
  it("moves an interval and its vertex times, keeping their spacing", () => {
    assert.deepEqual(shiftedTo({ time_start: 2, time_end: 4, vertex_times: [2, 3, 4] }, 6.1234),
      { time_start: 6.123, time_end: 8.123, vertex_times: [6.123, 7.123, 8.123] });
    assert.deepEqual(shiftedTo({ time_start: 2, time_end: null }, 1), { time_start: 1, time_end: null, vertex_times: [] });
  });
});
