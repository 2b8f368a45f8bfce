import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  LOW_CONFIDENCE, NOT_PLACED, errorDigits, isPlaced, labelAnchor, placementLabel, placementView, spanAt, uncertaintyText,
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
    assert.equal(uncertaintyText(p({ uncertainty_m: 9.96 })), "±10.0 m");
    assert.equal(uncertaintyText(p({ uncertainty_m: 0.1 })), "±0.1 m");
  });
  it("keeps a sub-decimetre error in hundredths, not rounded to a claim of zero", () => {
    assert.equal(uncertaintyText(p({ uncertainty_m: 0.047, relative_to_map: true })), "±0.05 m on the map");
    assert.equal(uncertaintyText(p({ uncertainty_m: 0.099 })), "±0.10 m");
    assert.equal(uncertaintyText(p({ uncertainty_m: 0.004 })), "±<0.01 m");
    assert.equal(uncertaintyText(p({ uncertainty_m: null, uncertainty_px: 0.042 })), "±0.04 px");
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

describe("errorDigits", () => {
  it("changes precision at 10 and at 0.1, at the boundaries", () => {
    assert.deepEqual([10, 9.99, 0.1, 0.0999, 0.005, 0.0049].map(errorDigits), ["10", "10.0", "0.1", "0.10", "0.01", "<0.01"]);
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

describe("labelAnchor", () => {
  // map coordinates, y up: a view 1000 wide and 600 high, 40 kept clear at the top and 50 at each side
  const view = [0, 0, 1000, 600];
  const inset = { top: 40, side: 50 };
  const square = (x0, y0, x1, y1) => [[x0, y1], [x1, y1], [x1, y0], [x0, y0]];

  it("keeps the middle of the top when it shows clear of the top band and the sides", () => {
    assert.deepEqual(labelAnchor(square(200, 100, 400, 500), view, inset), [300, 500]);
    // a rotated quad: the middle of its bounding box's top, as the label always sat
    assert.deepEqual(labelAnchor([[300, 550], [500, 350], [300, 150], [100, 350]], view, inset), [300, 550]);
  });

  it("comes down below the top band when the quad's top is above the view or in the band", () => {
    assert.deepEqual(labelAnchor(square(200, 100, 400, 900), view, inset), [300, 560]);
    assert.deepEqual(labelAnchor(square(200, 100, 400, 580), view, inset), [300, 560]);
  });

  it("sits in the middle of a rotated quad's width at that height", () => {
    // a diamond whose top vertex (300, 800) is hidden: at y 560 its outline runs from 60 to 540
    const diamond = [[300, 800], [540, 560], [300, 320], [60, 560]];
    assert.deepEqual(spanAt(diamond, 560), [60, 540]);
    assert.deepEqual(labelAnchor(diamond, view, inset), [300, 560]);
    const tilted = [[700, 900], [900, 700], [500, 300], [300, 500]];
    const [x, y] = labelAnchor(tilted, view, inset);
    assert.equal(y, 560);
    const [a, b] = spanAt(tilted, 560);
    assert.ok(x > a && x < b && x === (a + b) / 2);
  });

  it("stops at the quad's lowest vertex when all of it lies in the top band", () => {
    assert.deepEqual(labelAnchor(square(200, 570, 400, 700), view, inset), [300, 570]);
  });

  it("keeps x away from the sides where the quad reaches that far in", () => {
    assert.deepEqual(labelAnchor(square(-600, 100, 100, 500), view, inset), [50, 500]);
    assert.deepEqual(labelAnchor(square(950, 100, 1500, 900), view, inset), [950, 560]);  // not past its own edge
    assert.deepEqual(labelAnchor(square(-600, 100, 1600, 900), view, inset), [500, 560]);
  });

  it("leaves a quad wholly out of view at its top middle", () => {
    assert.deepEqual(labelAnchor(square(200, 700, 400, 900), view, inset), [300, 900]);
    assert.deepEqual(labelAnchor(square(-400, 100, -200, 300), view, inset), [-300, 300]);
  });
});
