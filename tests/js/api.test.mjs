// getAll: every row of a paginated list API, following `next` (annotator/pagination.py).
import { test } from "node:test";
import assert from "node:assert/strict";

import { api, getAll } from "../../static/js/lib/api.js";

/** A list API of `total` rows answering pages of at most `max` rows, as DRF's limit/offset does. */
function pagedServer(total, max) {
  const calls = [];
  return {
    calls,
    get: async (url) => {
      calls.push(url);
      const q = new URL(url, "http://test").searchParams;
      const limit = Math.min(Number(q.get("limit") || 100), max);
      const offset = Number(q.get("offset") || 0);
      const results = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({ id: offset + i + 1 }));
      const next = offset + limit < total ? `http://test/api/items/?scene=3&limit=${limit}&offset=${offset + limit}` : null;
      return { count: total, next, previous: null, results };
    },
  };
}

test("getAll follows next until the last page and keeps the rows in order", async () => {
  const server = pagedServer(1203, 500);
  const rows = await getAll(server, "/api/items/?scene=3");
  assert.equal(rows.length, 1203);
  assert.deepEqual(rows.slice(0, 2).concat(rows.slice(-1)), [{ id: 1 }, { id: 2 }, { id: 1203 }]);
  assert.equal(server.calls.length, 3);
  assert.equal(server.calls[0], "/api/items/?scene=3&limit=500");
});

test("getAll reads one page when everything fits, and an empty list as empty", async () => {
  const one = pagedServer(7, 500);
  assert.equal((await getAll(one, "/api/scenes/1/marks/")).length, 7);
  assert.deepEqual(one.calls, ["/api/scenes/1/marks/?limit=500"]);
  assert.deepEqual(await getAll(pagedServer(0, 500), "/api/scenes/1/marks/"), []);
});

test("getAll passes a bare list through", async () => {
  const bare = { get: async () => [{ id: 4 }] };
  assert.deepEqual(await getAll(/** @type {any} */ (bare), "/x/"), [{ id: 4 }]);
});

/** A server for one URL that tags its answer (as the scene's marks do) and answers 304 while the
 * client names the current tag; records the If-None-Match of each request. */
function taggingServer() {
  const state = { version: 1, seen: /** @type {(string|null)[]} */ ([]) };
  state.fetch = async (/** @type {string} */ url, /** @type {any} */ opts) => {
    const asked = opts.headers["If-None-Match"] || null;
    state.seen.push(asked);
    const tag = `"v${state.version}"`;
    if (asked === tag) return new Response(null, { status: 304, headers: { ETag: tag } });
    const body = JSON.stringify({ results: [{ id: 1, label: "car", version: state.version }] });
    return new Response(body, { status: 200, headers: { "Content-Type": "application/json", ETag: tag } });
  };
  return state;
}

test("a GET the server tagged is asked again conditionally; a 304 gives the kept body, as a fresh copy", async () => {
  const server = taggingServer();
  globalThis.fetch = /** @type {any} */ (server.fetch);
  const first = await api.get("/api/scenes/1/marks/?limit=500");
  first.results[0].label = "changed by the page";  // the store edits what it got
  const second = await api.get("/api/scenes/1/marks/?limit=500");
  assert.deepEqual(server.seen, [null, '"v1"']);
  assert.equal(second.results[0].label, "car");
  assert.notEqual(second, first);

  // a change on the server: a 200 with another tag, which is what is asked for next
  server.version = 2;
  assert.equal((await api.get("/api/scenes/1/marks/?limit=500")).results[0].version, 2);
  await api.get("/api/scenes/1/marks/?limit=500");
  assert.deepEqual(server.seen.slice(2), ['"v1"', '"v2"']);
});
