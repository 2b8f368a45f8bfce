import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";

import { PendingBox } from "../../static/js/workspace/pending.js";
import { MarkStore } from "../../static/js/workspace/store.js";
import { FakeLocks, FakeServer, MemoryStorage, settle } from "./fakes.mjs";

const point = (x, label = "car") => ({ satellite_image: 1, kind: "point", geometry: { type: "Point", coordinates: [x, 10] },
  label, time_start: 1, time_end: null, vertex_times: [], facts: {} });
const onServer = (id, version, fields) => ({ id, version, ...fields });

const stores = [];
afterEach(() => { stores.splice(0).forEach((s) => s.stop()); });

/** A page of the workspace: its store over `server`, in a browser whose localStorage is `local`. */
async function page(server, local = new MemoryStorage(), locks = new FakeLocks()) {
  const box = new PendingBox("skymark:pending:1:1", { local, session: new MemoryStorage(), locks, now: () => 0 });
  const store = new MarkStore({ marksUrl: "/api/scenes/1/marks/", markUrl: (id) => `/api/marks/${id}/`, box, api: server.api });
  stores.push(store);
  const events = [];
  for (const name of ["change", "remove", "rekey", "status", "conflict", "invalid", "refused"]) {
    store.on(name, (...args) => events.push([name, ...args]));
  }
  await store.load({ adoptLater: false });
  return { store, events, local, locks, box };
}

describe("MarkStore", () => {
  it("creates a mark at once, then on the server, and follows its new id", async () => {
    const server = new FakeServer();
    const { store, events } = await page(server);
    const id = store.create(point(5));
    assert.ok(id < 0);
    assert.equal(store.get(id).label, "car");
    assert.equal(store.isPending(id), true);
    await store.flush();
    await settle();
    const [created] = [...server.marks.values()];
    assert.equal(store.resolve(id), created.id);
    assert.equal(store.get(id).version, 1);
    assert.equal(store.isPending(id), false);
    assert.deepEqual(events.find((e) => e[0] === "rekey"), ["rekey", id, created.id]);
    assert.deepEqual(events.at(-1), ["status", "saved", "All changes saved"]);
  });

  it("follows a copy made on write and shows the original again as the server keeps it", async () => {
    const server = new FakeServer([{ ...onServer(7, 3, point(5)), locked: true, copy_on_edit: true }]);
    const { store, events } = await page(server);
    store.update(7, { facts: { visible: false } });
    await store.flush();
    await settle();
    const copy = [...server.marks.values()].find((m) => m.copied_from === 7);
    assert.deepEqual(events.find((e) => e[0] === "rekey"), ["rekey", 7, copy.id]);
    assert.deepEqual(store.get(copy.id).facts, { visible: false });
    assert.equal(store.get(copy.id).version, 1);
    assert.deepEqual(store.get(7).facts, {});  // refetched: the locking items keep it unchanged
    assert.equal(store.get(7).copy_on_edit, false);
    // a later edit goes to the copy, on its version
    store.update(copy.id, { label: "van" });
    await store.flush();
    await settle();
    assert.deepEqual(server.calls.at(-1), ["PATCH", `/api/marks/${copy.id}/`, { version: 1, label: "van" }]);
    assert.equal(server.marks.get(7).label, "car");
  });

  it("reads the locks the server set without touching unsaved edits", async () => {
    const server = new FakeServer([onServer(7, 1, point(5)), onServer(8, 1, point(6))]);
    const { store } = await page(server);
    store.update(8, { label: "van" });  // not sent yet
    server.marks.get(7).locked = true;  // an item using mark 7 went to review
    await store.refreshLocks();
    assert.equal(store.get(7).locked, true);
    assert.equal(Boolean(store.get(8).locked), false);
    assert.equal(store.get(8).label, "van");
    assert.equal(store.isPending(8), true);
  });

  it("sends an edit made while the create was on its way once the mark has its id", async () => {
    const server = new FakeServer();
    const { store } = await page(server);
    const id = store.create(point(5));
    const sending = store.flush();
    store.update(id, { label: "van" });
    await sending;
    await settle();
    const [mark] = [...server.marks.values()];
    assert.deepEqual([mark.label, mark.version], ["van", 2]);
    assert.deepEqual(server.calls.map((c) => c[0]), ["GET", "POST", "PATCH"]);
    assert.equal(server.calls[2][2].version, 1);
  });

  it("blocks a stale edit as a conflict; keep mine resends it on the current version", async () => {
    const server = new FakeServer([onServer(10, 3, point(5))]);
    const { store, events } = await page(server);
    store.update(10, { label: "van" });
    server.touch(10, { label: "bus" });
    await store.flush();
    await settle();
    assert.deepEqual(events.filter((e) => e[0] === "conflict"), [["conflict", 10]]);
    assert.equal(store.entryFor(10).current.label, "bus");
    assert.deepEqual(events.at(-1), ["status", "conflict", "Conflict: mark #10 changed elsewhere"]);
    assert.equal(server.marks.get(10).label, "bus");  // nothing was overwritten
    store.keepMine(10);
    await settle();
    assert.deepEqual([server.marks.get(10).label, server.marks.get(10).version], ["van", 5]);
    assert.equal(store.conflicts().length, 0);
  });

  it("take theirs drops the edit and shows the server's mark", async () => {
    const server = new FakeServer([onServer(10, 3, point(5))]);
    const { store } = await page(server);
    store.update(10, { label: "van" });
    server.touch(10, { label: "bus" });
    await store.flush();
    await settle();
    store.takeTheirs(10);
    await settle();
    assert.equal(store.get(10).label, "bus");
    assert.equal(store.pendingCount, 0);
    assert.equal(server.calls.filter((c) => c[0] === "PATCH").length, 1);
  });

  it("keeps an edit the server could not take and retries it", async () => {
    const server = new FakeServer([onServer(10, 1, point(5))]);
    const { store, events } = await page(server);
    store.update(10, { label: "van" });
    server.failNext = { status: 503, body: { detail: "HTTP 503" } };
    await store.flush();
    assert.equal(store.pendingCount, 1);
    assert.deepEqual(events.at(-1), ["status", "error", "Error: HTTP 503 — 1 edit kept, retrying"]);
    server.failNext = { status: 0, body: { detail: "network error" } };
    await store.flush();
    assert.equal(store.offline, true);
    await store.flush();
    await settle();
    assert.equal(server.marks.get(10).label, "van");
    assert.deepEqual(events.at(-1), ["status", "saved", "All changes saved"]);
  });

  it("sends a create whose answer was lost again with its key, and the server makes one mark", async () => {
    const server = new FakeServer();
    const { store, events } = await page(server);
    const id = store.create(point(5));
    // the server stores the mark, but the answer never arrives (the database restarted meanwhile)
    server.loseNextAnswer = { status: 503, body: { detail: "The database cannot be reached for a moment" } };
    await store.flush();
    assert.equal(store.pendingCount, 1);
    await store.flush();
    await settle();
    const posts = server.calls.filter((c) => c[0] === "POST");
    assert.equal(posts.length, 2);
    assert.match(posts[0][2].client_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(posts[1][2].client_key, posts[0][2].client_key);
    assert.equal(server.marks.size, 1);
    assert.equal(store.resolve(id), [...server.marks.keys()][0]);
    assert.deepEqual(events.at(-1), ["status", "saved", "All changes saved"]);
  });

  it("marks an edit the server refuses as invalid until the person changes it", async () => {
    const server = new FakeServer([onServer(10, 1, point(5))]);
    const { store, events } = await page(server);
    store.update(10, { label: "tram" });
    server.failNext = { status: 400, body: { label: ["not in the label set"] } };
    await store.flush();
    assert.deepEqual(events.find((e) => e[0] === "invalid"), ["invalid", 10, { label: ["not in the label set"] }]);
    await store.flush();
    assert.equal(server.calls.filter((c) => c[0] === "PATCH").length, 1);  // blocked: not sent again
    store.update(10, { label: "van" });
    await store.flush();
    await settle();
    assert.equal(server.marks.get(10).label, "van");
  });

  it("replays edits kept in the browser after a reload, without creating a mark twice", async () => {
    const server = new FakeServer([onServer(10, 1, point(5))]);
    const local = new MemoryStorage(), locks = new FakeLocks();
    const first = await page(server, local, locks);
    first.store.create(point(7, "van"));
    first.store.create(point(8, "bus"));
    first.store.update(10, { label: "lamppost" });
    // The page goes away before anything is sent; the first create did reach the server.
    await server.api.post("/api/scenes/1/marks/", point(7, "van"));
    first.store.stop();
    locks.held.clear();
    const second = await page(server, local, locks);
    assert.deepEqual(second.store.all().map((m) => m.label).sort(), ["bus", "lamppost", "van"]);
    await second.store.flush();
    await settle();
    assert.deepEqual([...server.marks.values()].map((m) => m.label).sort(), ["bus", "lamppost", "van"]);
    assert.equal(second.store.pendingCount, 0);
  });

  it("shows the server's mark when an edit is not allowed", async () => {
    const server = new FakeServer([onServer(10, 1, point(5))]);
    const { store, events } = await page(server);
    store.update(10, { label: "van" });
    server.failNext = { status: 409, body: { detail: "locked by an item in review" } };
    await store.flush();
    await settle();
    assert.equal(events.find((e) => e[0] === "refused")[1], 10);
    assert.equal(store.get(10).label, "car");
  });

  it("keeps a mark just drawn when the server refuses it, until the person deletes it", async () => {
    const server = new FakeServer();
    const { store, events, local } = await page(server);
    const id = store.create(point(5, "van"));
    server.failNext = { status: 403, body: { detail: "this scene is not assigned to you" } };
    await store.flush();
    await settle();
    // the shape is still there, kept in the browser, and says why it is not saved
    assert.equal(store.get(id).label, "van");
    assert.equal(store.isPending(id), true);
    assert.ok([...local.map.keys()].some((k) => k.startsWith("skymark:pending")));
    assert.deepEqual(events.find((e) => e[0] === "invalid"), ["invalid", id, { detail: "this scene is not assigned to you" }]);
    assert.equal(events.filter((e) => e[0] === "remove").length, 0);
    await store.flush();
    assert.equal(server.calls.filter((c) => c[0] === "POST").length, 1);  // blocked: not sent again
    store.remove(id);
    assert.equal(store.get(id), undefined);
  });
});
