import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { canonicalLabel, factErrors, labelError } from "../../static/js/lib/marks.js";

const LABELS = ["car", "van", "central island", "lamppost", "bus", "truck", "bicycle"];

describe("canonicalLabel", () => {
  it("spells a label as the label set does", () => {
    assert.equal(canonicalLabel("  Central   ISLAND ", LABELS), "central island");
  });
  it("keeps unknown text, trimmed", () => {
    assert.equal(canonicalLabel(" tram ", LABELS), "tram");
  });
});

describe("labelError", () => {
  it("asks for a label when there is none", () => {
    assert.equal(labelError("   ", LABELS), "choose a label from the project's label set first");
  });
  it("refuses a label outside the set, naming a few that are in it", () => {
    assert.equal(labelError("tram", LABELS), "“tram” is not in the project's label set (car, van, central island, lamppost, bus, truck, …)");
  });
  it("accepts a label of the set in any case and spacing, and anything when there is no set", () => {
    assert.equal(labelError("VAN", LABELS), null);
    assert.equal(labelError("central  island", LABELS), null);
    assert.equal(labelError("tram", []), null);
  });
});

describe("factErrors", () => {
  it("wants a whole, non-negative count", () => {
    assert.deepEqual(factErrors({ count: 3 }, 10), {});
    assert.deepEqual(factErrors({ count: 0 }, 10), {});
    assert.equal(factErrors({ count: 1.5 }, 10).facts, "count must be a whole number, 0 or more");
    assert.equal(factErrors({ count: -1 }, 10).facts, "count must be a whole number, 0 or more");
  });
  it("wants first-seen inside the video", () => {
    assert.deepEqual(factErrors({ first_seen_s: 10 }, 10), {});
    assert.equal(factErrors({ first_seen_s: 10.5 }, 10).facts, "first seen at must be a time inside the video");
    assert.equal(factErrors({ first_seen_s: -0.1 }, 10).facts, "first seen at must be a time inside the video");
    assert.deepEqual(factErrors({ first_seen_s: 99 }, 0), {});  // duration unknown
  });
});
