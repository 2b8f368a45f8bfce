// Stand-ins for what the browser gives the workspace modules: Storage, Web Locks, and a server
// that answers the marks API the way annotator/apis.py does (versions, 409 with the current mark).

import { ApiError } from "../../static/js/lib/api.js";

/** The Storage API over a Map (localStorage / sessionStorage). */
export class MemoryStorage {
  constructor() { this.map = new Map(); }
  get length() { return this.map.size; }
  key(i) { return [...this.map.keys()][i] ?? null; }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) { this.map.set(k, String(v)); }
  removeItem(k) { this.map.delete(k); }
  clear() { this.map.clear(); }
}

/** Web Locks with `ifAvailable`: a lock is held until its callback's promise settles. */
export class FakeLocks {
  constructor() { this.held = new Set(); }
  async request(name, opts, cb) {
    if (this.held.has(name)) return cb(null);
    this.held.add(name);
    const result = cb({ name, mode: "exclusive" });
    Promise.resolve(result).then(() => this.held.delete(name), () => this.held.delete(name));
    return result;
  }
  async query() { return { held: [...this.held].map((name) => ({ name })), pending: [] }; }
  /** A tab closing: the browser lets go of its locks. */
  drop(name) { this.held.delete(name); }
}

/** Marks API: GET/POST /marks/, GET/PATCH/DELETE /marks/<id>/ with optimistic versions. */
export class FakeServer {
  constructor(marks = []) {
    this.marks = new Map(marks.map((m) => [m.id, { ...m }]));
    this.nextId = Math.max(100, ...marks.map((m) => m.id)) + 1;
    this.calls = [];
    /** status -> answer the next request with this error instead (one shot) */
    this.failNext = null;
    /** status -> apply the next request, then answer it with this error: its answer is lost (one shot) */
    this.loseNextAnswer = null;
    this.api = {
      get: (url) => this.handle("GET", url),
      post: (url, data) => this.handle("POST", url, data),
      patch: (url, data) => this.handle("PATCH", url, data),
      del: (url, data) => this.handle("DELETE", url, data),
    };
  }

  /** A change made by someone else: the version moves on. */
  touch(id, changes) {
    const m = this.marks.get(id);
    Object.assign(m, changes, { version: m.version + 1 });
  }

  async handle(method, url, data) {
    const lost = this.loseNextAnswer;
    this.loseNextAnswer = null;
    const answer = await this.apply(method, url, data);
    if (lost) throw new ApiError(lost.status, lost.body);
    return answer;
  }

  async apply(method, url, data) {
    this.calls.push([method, url, data]);
    if (this.failNext) {
      const { status, body } = this.failNext;
      this.failNext = null;
      throw new ApiError(status, body);
    }
    const [path, query] = url.split("?");
    const hit = /\/marks\/(-?\d+)\/$/.exec(path);
    if (!hit) {
      if (method === "GET") return [...this.marks.values()].map((m) => ({ ...m }));
      // a create sent again with its key returns the mark the first one made
      const earlier = data.client_key && [...this.marks.values()].find((m) => m.client_key === data.client_key);
      if (earlier) return { ...earlier };
      const mark = { ...data, id: this.nextId++, version: 1 };
      this.marks.set(mark.id, mark);
      return { ...mark };
    }
    const mark = this.marks.get(Number(hit[1]));
    if (!mark) throw new ApiError(404, { detail: "Not found." });
    if (method === "GET") return { ...mark };
    const version = method === "DELETE" ? Number(new URLSearchParams(query).get("version")) : data.version;
    if (version !== mark.version) throw new ApiError(409, { detail: "stale", current: { ...mark } });
    if (method === "DELETE") { this.marks.delete(mark.id); return null; }
    const { version: _, ...changes } = data;
    if (mark.locked && mark.copy_on_edit) {
      // copy on write: the edit goes to a new mark; the original stays as it was
      const copy = { ...mark, ...changes, id: this.nextId++, version: 1, locked: false, copy_on_edit: false, copied_from: mark.id };
      this.marks.set(copy.id, copy);
      mark.copy_on_edit = false;
      return { ...copy };
    }
    Object.assign(mark, changes, { version: mark.version + 1 });
    return { ...mark };
  }
}

/** Let queued promise callbacks run (a send, its answer, the next send). */
export async function settle(rounds = 20) {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}
