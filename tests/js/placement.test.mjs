import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  LOW_CONFIDENCE, NOT_PLACED, isPlaced, placementLabel, placementView, uncertaintyText,
} from "../../static/js/lib/placement.js";

const quad = [[0, 0], [10, 0], [10, 10], [0, 10]];
const p = (over = {}) => ({
  source: "matching", label: "Feature matching on the image", quad, confidence: 0.87,
  uncertainty_px: 37.2, uncertainty_m: 3.2, ...over,
});

describe("uncertaintyText", () => {
  it("says metres where known, to a tenth under 10 m and whole metres above", () => {
    assert.equal(uncertaintyText(p()), "±3.2 m");
    assert.equal(uncertaintyText(p({ uncertainty_m: 14.46 })), "±14 m");
  });
  it("falls back to pixels without a ground resolution, and says exact for no error", () => {
    assert.equal(uncertaintyText(p({ uncertainty_m: null })), "±37 px");
    assert.equal(uncertaintyText(p({ uncertainty_m: null, uncertainty_px: 0.42 })), "±0.4 px");
    assert.equal(uncertaintyText(p({ uncertainty_m: null, uncertainty_px: 0 })), "exact");
    assert.equal(uncertaintyText(p({ uncertainty_m: 0 })), "exact");
  });
  it("says the metres are on the map where the map's own georeference error is unknown", () => {
    assert.equal(uncertaintyText(p({ uncertainty_m: 0.24, relative_to_map: true })), "±0.2 m on the map");
    assert.equal(uncertaintyText(p({ uncertainty_m: 0, relative_to_map: true })), "exact on the map");
    assert.equal(uncertaintyText(p({ uncertainty_m: null, relative_to_map: true })), "±37 px");
    assert.equal(placementLabel(p({ relative_to_map: true })), "matching ±3.2 m on the map · 0.87");
  });
});

describe("placementLabel", () => {
  it("names the source, the error and the confidence", () => {
    assert.equal(placementLabel(p()), "matching ±3.2 m · 0.87");
    assert.equal(placementLabel(p({ source: "chaining", confidence: 0.6 })), "chained ±3.2 m · 0.60");
    assert.equal(placementLabel(p({ source: "something_new" })), "something_new ±3.2 m · 0.87");
  });
});

describe("isPlaced / placementView", () => {
  it("draws at or above the threshold only", () => {
    assert.equal(isPlaced(p({ confidence: 0.5 }), 0.5), true);
    assert.equal(isPlaced(p({ confidence: 0.49 }), 0.5), false);
    assert.equal(isPlaced(p({ confidence: NaN }), 0), false);
    assert.equal(isPlaced(p({ quad: [[0, 0]] }), 0), false);
    assert.equal(isPlaced(null, 0), false);
  });
  it("gives the overlay and its line, or the reason there is none", () => {
    assert.deepEqual(placementView(p(), true, 0.5), {
      overlay: { quad, label: "matching ±3.2 m · 0.87", source: "matching" },
      note: "Feature matching on the image · ±3.2 m · confidence 0.87",
    });
    assert.deepEqual(placementView(p({ confidence: 0.2 }), true, 0.5), { overlay: null, note: LOW_CONFIDENCE });
    assert.equal(LOW_CONFIDENCE, "not placed (low confidence)");
    assert.deepEqual(placementView(null, true, 0.5), { overlay: null, note: NOT_PLACED });
    assert.deepEqual(placementView(null, false, 0.5), { overlay: null, note: "" });
  });
});
