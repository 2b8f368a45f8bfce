import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { enqueue, mergeEntry, nextToSend, rekey, requeue } from "../../static/js/workspace/queue.js";
import { saveStatus } from "../../static/js/workspace/save_status.js";

describe("enqueue", () => {
  it("keeps one entry per mark, later changes on top", () => {
    const q = [];
    enqueue(q, { key: 5, op: "update", changes: { label: "car" }, baseVersion: 2 });
    enqueue(q, { key: 6, op: "update", changes: { label: "van" }, baseVersion: 1 });
    enqueue(q, { key: 5, op: "update", changes: { label: "bus", time_start: 3 }, baseVersion: 2 });
    assert.deepEqual(q, [
      { key: 5, op: "update", changes: { label: "bus", time_start: 3 }, baseVersion: 2 },
      { key: 6, op: "update", changes: { label: "van" }, baseVersion: 1 },
    ]);
  });
  it("folds edits of an unsaved mark into its create", () => {
    const q = [];
    enqueue(q, { key: -1, op: "create", payload: { kind: "point", label: "car" } });
    enqueue(q, { key: -1, op: "update", changes: { label: "van" } });
    assert.deepEqual(q, [{ key: -1, op: "create", payload: { kind: "point", label: "van" } }]);
  });
  it("drops a create that is deleted before it was sent", () => {
    const q = [{ key: -1, op: "create", payload: { kind: "point" } }];
    enqueue(q, { key: -1, op: "delete", baseVersion: null });
    assert.deepEqual(q, []);
  });
  it("turns an update followed by a delete into the delete, on the first edit's version", () => {
    const q = [{ key: 4, op: "update", changes: { label: "x" }, baseVersion: 7 }];
    enqueue(q, { key: 4, op: "delete", baseVersion: 7 });
    assert.deepEqual(q, [{ key: 4, op: "delete", baseVersion: 7 }]);
    enqueue(q, { key: 4, op: "update", changes: { label: "y" }, baseVersion: 7 });
    assert.deepEqual(q, [{ key: 4, op: "delete", baseVersion: 7 }]);  // nothing to edit any more
  });
  it("gives a refused shape another chance once the person edits it, but not a conflict", () => {
    const q = [{ key: 4, op: "update", changes: { label: "x" }, baseVersion: 1, blocked: "invalid", errors: { label: ["bad"] } }];
    enqueue(q, { key: 4, op: "update", changes: { label: "car" }, baseVersion: 1 });
    assert.deepEqual(q, [{ key: 4, op: "update", changes: { label: "car" }, baseVersion: 1 }]);
    const c = [{ key: 4, op: "update", changes: {}, baseVersion: 1, blocked: "conflict" }];
    enqueue(c, { key: 4, op: "update", changes: { label: "car" }, baseVersion: 1 });
    assert.equal(c[0].blocked, "conflict");
  });
  it("keeps an invalid entry blocked when merged by a replay, not an edit", () => {
    const q = [{ key: 4, op: "update", changes: { label: "x" }, blocked: "invalid", errors: {} }];
    mergeEntry(q, q[0], { key: 4, op: "update", changes: { label: "y" } }, false);
    assert.equal(q[0].blocked, "invalid");
  });
});

describe("requeue", () => {
  it("puts a failed entry first and folds in what was edited while it was in flight", () => {
    const q = [{ key: 9, op: "update", changes: { label: "b" } }, { key: 4, op: "update", changes: { time_start: 2 } }];
    requeue(q, { key: 4, op: "update", changes: { label: "a" }, baseVersion: 3 });
    assert.deepEqual(q, [
      { key: 4, op: "update", changes: { label: "a", time_start: 2 }, baseVersion: 3 },
      { key: 9, op: "update", changes: { label: "b" } },
    ]);
  });
  it("leaves nothing of a create whose mark was deleted meanwhile", () => {
    const q = [{ key: -2, op: "delete", baseVersion: null }];
    requeue(q, { key: -2, op: "create", payload: { kind: "point" } });
    assert.deepEqual(q, []);
  });
});

describe("nextToSend", () => {
  it("skips blocked entries and edits of marks the server has not created yet", () => {
    const q = [
      { key: 3, op: "update", changes: {}, blocked: "conflict" },
      { key: -1, op: "update", changes: {} },
      { key: -2, op: "create", payload: {} },
      { key: 5, op: "delete" },
    ];
    assert.equal(nextToSend(q), q[2]);
    assert.equal(nextToSend(q.slice(0, 2)), null);
  });
});

describe("rekey", () => {
  it("points later entries at the created mark and its version", () => {
    const q = [{ key: -1, op: "update", changes: { label: "x" }, baseVersion: null }, { key: 7, op: "delete", baseVersion: 2 }];
    rekey(q, -1, { id: 42, version: 1 });
    assert.deepEqual(q[0], { key: 42, op: "update", changes: { label: "x" }, baseVersion: 1 });
    assert.deepEqual(q[1], { key: 7, op: "delete", baseVersion: 2 });
  });
});

describe("saveStatus", () => {
  const base = { queue: [], inflight: null, offline: false, attempt: 0, lastError: null, savedOnce: false };
  const edit = { key: 3, op: "update", changes: {} };
  it("says idle, saved, unsaved and saving", () => {
    assert.deepEqual(saveStatus(base), { state: "idle", text: "No unsaved changes" });
    assert.deepEqual(saveStatus({ ...base, savedOnce: true }), { state: "saved", text: "All changes saved" });
    assert.deepEqual(saveStatus({ ...base, queue: [edit, { ...edit, key: 4 }] }), { state: "unsaved", text: "Unsaved — 2 edits" });
    assert.deepEqual(saveStatus({ ...base, queue: [edit], inflight: edit }), { state: "saving", text: "Saving…" });
  });
  it("puts a conflict before everything, then being offline, then retrying", () => {
    const conflict = { ...edit, key: 8, blocked: "conflict" };
    assert.deepEqual(saveStatus({ ...base, queue: [edit, conflict], offline: true }), { state: "conflict", text: "Conflict: mark #8 changed elsewhere" });
    assert.deepEqual(saveStatus({ ...base, queue: [edit], offline: true }), { state: "offline", text: "Offline — 1 edit kept in this browser, will retry" });
    assert.deepEqual(saveStatus({ ...base, offline: true }), { state: "offline", text: "Offline" });
    assert.deepEqual(saveStatus({ ...base, queue: [edit], attempt: 2, lastError: "HTTP 502" }), { state: "error", text: "Error: HTTP 502 — 1 edit kept, retrying" });
  });
  it("says why the server refused an edit", () => {
    const invalid = { ...edit, blocked: "invalid", errors: { label: ["not in the label set"] } };
    assert.deepEqual(saveStatus({ ...base, queue: [invalid] }), { state: "error", text: "Not saved: label: not in the label set" });
  });
});
