import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { batchSummary, livePicks, refusalLines, movePick, taskStatus, togglePick, unsavedPicks, viewsPending } from "../../static/js/panels/item_pick.js";

describe("picking marks for an item", () => {
  it("keeps the order marks were picked in, and a second pick takes one out", () => {
    let picked = togglePick([], 7);
    picked = togglePick(picked, 3);
    picked = togglePick(picked, 9);
    assert.deepEqual(picked, [7, 3, 9]);
    assert.deepEqual(togglePick(picked, 3), [7, 9]);
  });

  it("moves a mark earlier or later, never past the ends", () => {
    assert.deepEqual(movePick([7, 3, 9], 9, -1), [7, 9, 3]);
    assert.deepEqual(movePick([7, 3, 9], 7, -1), [7, 3, 9]);
    assert.deepEqual(movePick([7, 3, 9], 3, 1), [7, 9, 3]);
  });

  it("follows a new mark to its saved id and drops deleted ones", () => {
    const ids = { [-1]: 12 };
    const live = livePicks([-1, 5, 8], (id) => ids[id] ?? id, (id) => id !== 8);
    assert.deepEqual(live, [12, 5]);
    assert.deepEqual(unsavedPicks([-2, 4]), [-2]);
  });
});

describe("the tasks list", () => {
  const check = { task: "relative_direction", label: "Relative Direction", dimension: "relation", answer_format: "multiple_choice",
    derives: "", needs: ["the target", "a region"], ok: false,
    missing: [{ field: "facts.at_s", message: "set the fact 'at_s' on the car" }, { field: "marks", message: "other" }] };

  it("says what a task needs when nothing is picked, else what is missing", () => {
    assert.deepEqual(taskStatus(check, 0), { ready: false, text: "needs the target; a region" });
    assert.deepEqual(taskStatus(check, 2), { ready: false, text: "set the fact 'at_s' on the car (+1 more)" });
    assert.deepEqual(taskStatus({ ...check, ok: true, missing: [] }, 2), { ready: true, text: "ready" });
  });

  it("sums up compiling all", () => {
    const body = { items: [{}, {}, {}], truncated: false, tasks: [
      { task: "target_visibility", created: 2, existing: 1, refused: 0 },
      { task: "zone_counting", created: 1, existing: 0, refused: 3 },
      { task: "region_interaction", created: 0, existing: 0, refused: 1 }] };
    assert.equal(batchSummary(body, { target_visibility: "Target Visibility", zone_counting: "Zone Counting" }),
      "Compiled 3 items (Target Visibility 2, Zone Counting 1); 1 already had an item; 4 combinations the templates refused (listed below)");
  });

  it("lists each refused combination with its marks' names and the template's reason", () => {
    const body = { items: [], truncated: false, tasks: [
      { task: "target_visibility", created: 0, existing: 0, refused: 0, refusals: [] },
      { task: "zone_counting", created: 0, existing: 0, refused: 1, refusals: [
        { marks: [{ id: 4, kind: "polygon", name: "lake" }], field: "facts.count_class", reason: "set the fact 'count_class' on the lake" }] },
      { task: "relative_direction", created: 0, existing: 0, refused: 1, refusals: [
        { marks: [{ id: 7, kind: "ellipse", name: "car" }, { id: 2, kind: "polygon", name: "parking lot" }], field: "facts.at_s", reason: "set the time" }] }] };
    assert.deepEqual(refusalLines(body, { zone_counting: "Zone Counting" }), [
      { task: "zone_counting", marks: [4], text: "Zone Counting: lake (#4) — set the fact 'count_class' on the lake" },
      { task: "relative_direction", marks: [7, 2], text: "relative_direction: car (#7), parking lot (#2) — set the time" },
    ]);
  });

  it("lists the items whose model view is still being drawn", () => {
    const items = [{ id: 1, model_view: { state: "pending" } }, { id: 2, model_view: { state: "succeeded" } }, { id: 3, model_view: null }];
    assert.deepEqual(viewsPending(items), [1]);
  });
});
