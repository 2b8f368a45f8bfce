import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { History } from "../../static/js/workspace/history.js";
import { MarkStore } from "../../static/js/workspace/store.js";
import { FakeServer } from "./fakes.mjs";

/** A store that is never flushed: history works on the local copy; saving is the store's job. */
function setup(marks = []) {
  const server = new FakeServer(marks);
  const box = { key: null, stop() {}, write() {} };
  const store = new MarkStore({ marksUrl: "/m/", markUrl: (id) => `/m/${id}/`, box, api: server.api });
  store.flushSoon = () => {};  // keep every edit local
  for (const m of marks) store.marks.set(m.id, { ...m });
  const clock = { t: 0 };
  return { store, history: new History(store, { now: () => clock.t }), clock };
}
const region = { satellite_image: 1, kind: "polygon", geometry: { type: "Polygon", coordinates: [[[0, 0], [5, 0], [5, 5], [0, 0]]] },
  label: "central island", time_start: 2, time_end: 6, vertex_times: [], facts: { visible: true } };

describe("History", () => {
  it("undoes and redoes a create; the re-created mark is found under its first id", () => {
    const { store, history } = setup();
    const id = history.create(region);
    assert.equal(history.undo(), "Undid creating a polygon");
    assert.equal(store.all().length, 0);
    assert.equal(history.redo(), "Redid creating a polygon");
    const [again] = store.all();
    assert.notEqual(again.id, id);
    assert.equal(history.id(id), again.id);
    assert.equal(again.label, "central island");
    assert.equal(history.canRedo, false);
  });

  it("undoes an update field by field, and a delete by re-creating the mark", () => {
    const { store, history } = setup([{ id: 4, version: 1, ...region }]);
    history.update(4, { label: "van", time_end: null });
    assert.deepEqual([store.get(4).label, store.get(4).time_end], ["van", null]);
    assert.equal(history.undo(), "Undid an edit of label, time_end");
    assert.deepEqual([store.get(4).label, store.get(4).time_end], ["central island", 6]);
    history.remove(4);
    assert.equal(store.get(4), undefined);
    history.undo();
    const [back] = store.all();
    assert.deepEqual([back.label, back.time_start, back.facts], ["central island", 2, { visible: true }]);
  });

  it("folds keystrokes in one field into one step, but not after a pause", () => {
    const { store, history, clock } = setup([{ id: 4, version: 1, ...region }]);
    for (const [t, label] of [[0, "v"], [400, "va"], [800, "van"]]) { clock.t = t; history.update(4, { label }, { typing: true }); }
    clock.t = 5000;
    history.update(4, { label: "vans" }, { typing: true });
    assert.equal(history.done.length, 2);
    history.undo();
    assert.equal(store.get(4).label, "van");
    history.undo();
    assert.equal(store.get(4).label, "central island");
    assert.equal(history.canUndo, false);
  });

  it("forgets what can be redone once something new is done", () => {
    const { history } = setup([{ id: 4, version: 1, ...region }]);
    history.update(4, { label: "van" });
    history.undo();
    assert.equal(history.canRedo, true);
    history.update(4, { time_start: 3 });
    assert.equal(history.canRedo, false);
    assert.equal(history.redo(), null);
  });

  it("tells listeners whenever undo or redo become possible or not", () => {
    const { history } = setup([{ id: 4, version: 1, ...region }]);
    const seen = [];
    history.onChange(() => seen.push([history.canUndo, history.canRedo]));
    history.update(4, { label: "van" });
    history.undo();
    history.redo();
    assert.deepEqual(seen, [[true, false], [false, true], [true, false]]);
  });
});
