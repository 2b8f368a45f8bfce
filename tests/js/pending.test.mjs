import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { PendingBox } from "../../static/js/workspace/pending.js";
import { FakeLocks, MemoryStorage } from "./fakes.mjs";

const BASE = "skymark:pending:3:7";

/** A browser: localStorage shared by its tabs, one lock manager, a clock. */
function browser({ locks = true } = {}) {
  const clock = { t: 1_000_000 };
  return { local: new MemoryStorage(), locks: locks ? new FakeLocks() : null, clock };
}
/** A tab of that browser (its own sessionStorage, or a copy of another's when duplicated). */
function tab(b, session = new MemoryStorage()) {
  return new PendingBox(BASE, { local: b.local, session, locks: b.locks, now: () => b.clock.t });
}

describe("PendingBox", () => {
  it("keeps this tab's queue under its own key and removes it when empty", async () => {
    const b = browser();
    const box = tab(b);
    await box.claim();
    assert.match(box.key, /^skymark:pending:3:7:[0-9a-z]+$/);
    box.write({ seq: 2, queue: [{ key: -1, op: "create", payload: {} }] });
    assert.deepEqual(box.read(), { seq: 2, queue: [{ key: -1, op: "create", payload: {} }], beat: 1_000_000 });
    box.write({ seq: 2, queue: [] });
    assert.equal(b.local.getItem(box.key), null);
  });

  it("gets its old key back after a reload, but a duplicated tab gets its own", async () => {
    const b = browser();
    const session = new MemoryStorage();
    const first = tab(b, session);
    await first.claim();
    b.locks.drop(`skymark:tab:${first.key.split(":").pop()}`);  // the page is reloaded: its lock goes
    const reloaded = tab(b, session);
    await reloaded.claim();
    assert.equal(reloaded.key, first.key);
    const copy = new MemoryStorage();
    copy.setItem("skymark:tab", session.getItem("skymark:tab"));
    const duplicate = tab(b, copy);
    await duplicate.claim();
    assert.notEqual(duplicate.key, reloaded.key);
  });

  it("adopts the queue of a closed tab, never one of an open tab", async () => {
    const b = browser();
    const open = tab(b), closed = tab(b), me = tab(b);
    for (const box of [open, closed, me]) await box.claim();
    open.write({ seq: 1, queue: [{ key: 1, op: "delete", baseVersion: 1 }] });
    closed.write({ seq: 4, queue: [{ key: -4, op: "create", payload: { label: "van" } }] });
    assert.equal(await me.hasOrphans(), false);
    b.locks.drop(`skymark:tab:${closed.key.split(":").pop()}`);
    assert.equal(await me.hasOrphans(), true);
    const adopted = await me.adopt();
    assert.deepEqual(adopted.map((d) => d.queue), [[{ key: -4, op: "create", payload: { label: "van" } }]]);
    assert.equal(b.local.getItem(closed.key), null);
    assert.notEqual(b.local.getItem(open.key), null);
    assert.deepEqual(await me.adopt(), []);
  });

  it("adopts a queue written before queues were kept per tab", async () => {
    const b = browser();
    b.local.setItem(BASE, JSON.stringify({ seq: 1, queue: [{ key: 2, op: "delete" }] }));
    b.local.setItem("skymark:pending:3:8:other-user", "{}");
    const me = tab(b);
    await me.claim();
    assert.deepEqual(await me.adopt(), [{ seq: 1, queue: [{ key: 2, op: "delete" }] }]);
    assert.equal(b.local.getItem(BASE), null);
    assert.notEqual(b.local.getItem("skymark:pending:3:8:other-user"), null);
  });

  it("without Web Locks, adopts only queues quiet for ten minutes", async () => {
    const b = browser({ locks: false });
    const other = tab(b), me = tab(b);
    await other.claim();
    await me.claim();
    other.write({ seq: 1, queue: [{ key: 3, op: "delete" }] });
    other.stop();  // its tab is gone: no more heartbeats
    b.clock.t += 9 * 60 * 1000;
    assert.deepEqual(await me.adopt(), []);
    b.clock.t += 2 * 60 * 1000;
    assert.deepEqual((await me.adopt()).map((d) => d.seq), [1]);
  });
});
