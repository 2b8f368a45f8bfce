import assert from "node:assert/strict";
import { test } from "node:test";

import { scenePoints } from "../../static/js/project_dashboard/points.js";

test("scene points keep finite positions on the globe and pad their extent", () => {
  const { points, extent } = scenePoints([
    { id: 1, name: "a", lat: 50.8, lon: -0.1 },
    { id: 2, name: "b", lat: 51.0, lon: 0.2 },
    { id: 3, name: "bad", lat: Number.NaN, lon: 0 },
    { id: 4, name: "off", lat: 95, lon: 0 },
  ]);
  assert.deepEqual(points.map((p) => p.id), [1, 2]);
  assert.deepEqual(extent?.map((v) => Math.round(v * 1000) / 1000), [-0.11, 50.79, 0.21, 51.01]);
});

test("no points gives no extent, whatever the input", () => {
  assert.deepEqual(scenePoints(null), { points: [], extent: null });
  assert.deepEqual(scenePoints([]), { points: [], extent: null });
});
