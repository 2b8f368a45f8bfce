import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Selection, canAct, filterItems, summary } from "../../static/js/panels/bulk.js";

const item = (id, state, extra = {}) => ({ id, uid: "skm-" + String(id).padStart(6, "0"), task: "target_visibility", state, ...extra });
const ITEMS = [
  item(1, "draft"),
  item(2, "draft", { stale: true }),
  item(3, "rejected"),
  item(4, "rejected", { stale: true }),
  item(5, "in_review"),
  item(6, "draft", { revision: 2 }),
  item(7, "rejected", { replaced_by: 9 }),
  item(8, "approved"),
];
const ids = (list) => list.map((it) => it.id);

describe("the Items panel's filter", () => {
  it("shows what each filter names, replaced items only under all and their state", () => {
    assert.deepEqual(ids(filterItems(ITEMS, "all")), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.deepEqual(ids(filterItems(ITEMS, "open")), [1, 2, 3, 4, 6]);
    assert.deepEqual(ids(filterItems(ITEMS, "stale")), [2, 4]);
    assert.deepEqual(ids(filterItems(ITEMS, "rejected")), [3, 4, 7]);
    assert.deepEqual(ids(filterItems(ITEMS, "in_review")), [5]);
    assert.deepEqual(ids(filterItems(ITEMS, "no such filter")), ids(ITEMS));
  });
});

describe("which items an action applies to", () => {
  it("submits fresh drafts, recompiles stale open items, revises rejected items, withdraws rejected items and draft revisions", () => {
    const can = (action) => ITEMS.filter((it) => canAct(it, action)).map((it) => it.id);
    assert.deepEqual(can("submit"), [1, 6]);
    assert.deepEqual(can("recompile"), [2, 4]);
    assert.deepEqual(can("revise"), [3, 4]);  // not 7: a replaced item has its next revision already
    assert.deepEqual(can("withdraw"), [3, 4, 6]);
  });
});

describe("Selection", () => {
  it("toggles, selects all shown, and says whether all, some or none of the shown are selected", () => {
    const sel = new Selection();
    const shown = ids(filterItems(ITEMS, "open"));
    assert.equal(sel.state(shown), "none");
    sel.toggle(2);
    assert.equal(sel.state(shown), "some");
    sel.setAll(shown, true);
    assert.equal(sel.state(shown), "all");
    assert.equal(sel.size, 5);
    sel.toggle(2);
    assert.equal(sel.has(2), false);
    sel.setAll(shown, false);
    assert.equal(sel.size, 0);
  });

  it("forgets items no longer shown and offers each action only the selected items it applies to", () => {
    const sel = new Selection();
    sel.setAll([1, 2, 3, 5, 8], true);
    sel.keepOnly(ids(filterItems(ITEMS, "open")));
    assert.deepEqual([...sel.ids].sort(), [1, 2, 3]);
    assert.deepEqual(sel.actionable(ITEMS, "submit"), [1]);
    assert.deepEqual(sel.actionable(ITEMS, "recompile"), [2]);
    assert.deepEqual(sel.actionable(ITEMS, "withdraw"), [3]);
  });
});

describe("the summary of a bulk answer", () => {
  const uidOf = (id) => "skm-" + String(id).padStart(6, "0");
  it("counts what was done and names each refusal with its reason", () => {
    const results = [
      { id: 1, ok: true, error: "", item: item(1, "in_review") },
      { id: 6, ok: true, error: "", item: item(6, "in_review") },
      { id: 2, ok: false, error: "a mark of this item changed after it was compiled; compile it again before it goes on", item: null },
    ];
    assert.equal(summary("submit", results, uidOf),
      "Submitted 2 items for review; 1 item refused — skm-000002: a mark of this item changed after it was compiled; compile it again before it goes on.");
  });
  it("says so when all went through, or none did", () => {
    assert.equal(summary("recompile", [{ id: 2, ok: true, error: "", item: null }], uidOf), "Compiled 1 item again from the current marks.");
    assert.equal(summary("withdraw", [{ id: 1, ok: false, error: "the item is draft; only rejected items and their draft revisions can be withdrawn", item: null }], uidOf),
      "None withdrawn; 1 item refused — skm-000001: the item is draft; only rejected items and their draft revisions can be withdrawn.");
  });
});
