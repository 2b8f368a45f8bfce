// @ts-check
/* The marks of one scene as this page sees them, and the queue that saves them.
 *
 * Every edit changes the local copy at once and becomes a queue entry (one per mark: create,
 * update or delete, later edits merged in; queue.js). The queue is kept in localStorage on every
 * change and sent after ~500 ms of quiet, one request at a time, so a reload or a dropped
 * connection loses nothing: the entries are replayed from storage and retried with backoff (store_send.js).
 *
 * Optimistic concurrency: an update or delete carries the version the page held when the edit was
 * made (baseVersion). A 409 with {"current": mark} blocks that entry as a conflict until the person
 * chooses keep mine (resend on top of the current version) or take theirs (drop the edit).
 * Marks not yet created on the server have negative ids; resolve(id) follows them to the real one.
 * Each tab keeps its queue apart and takes over the queues of tabs that are gone (pending.js).
 */

import { api as browserApi, getAll } from "../lib/api.js";
import { uuid4 } from "../lib/uuid.js";
import { enqueue, mergeEntry } from "./queue.js";
import { saveStatus } from "./save_status.js";
import { fail, flush, forked, refetch, send } from "./store_send.js";

/** @typedef {import("../lib/types.js").Mark} Mark */
/** @typedef {import("../lib/api.js").Api} Api */
/** @typedef {import("../lib/api.js").ApiError} ApiError */
/** @typedef {import("./queue.js").Entry} Entry */
/** @typedef {import("./pending.js").PendingBox} PendingBox */

const DEBOUNCE_MS = 500;
// A reloaded tab may start before the page it replaces has let go of its queue: look again soon,
// then now and then for queues of tabs closed meanwhile.
const ADOPT_AGAIN_MS = [3000, 60000];
export const FIELDS = ["geometry", "label", "time_start", "time_end", "vertex_times", "facts"];

/** @template T @param {T} v @returns {T} */
const clone = (v) => JSON.parse(JSON.stringify(v));

/**
 * @typedef {object} StoreOptions
 * @property {string} marksUrl the scene's marks (GET the list, POST a new one)
 * @property {(id: number) => string} markUrl one mark (GET, PATCH, DELETE)
 * @property {PendingBox} box where unsaved edits are kept
 * @property {Api} [api] requests (tests pass a fake)
 * @property {boolean} [online] whether the browser says it is online now
 * @property {EventTarget} [events] where "online"/"offline" arrive (the window)
 */

/**
 * Events, with on(name, fn): change(id), remove(id), rekey(oldId, newId), status(state, text),
 * conflict(id), invalid(id, errors), refused(id, error), forked(originalId, copyId).
 */
export class MarkStore {
  /** @param {StoreOptions} opts */
  constructor(opts) {
    this.marksUrl = opts.marksUrl;
    this.markUrl = opts.markUrl;
    this.box = opts.box;
    this.api = opts.api || browserApi;
    /** @type {Map<number, Mark>} */
    this.marks = new Map();
    /** @type {Entry[]} */
    this.queue = [];
    /** @type {Entry|null} */
    this.inflight = null;
    /** temporary id -> the id it got on the server (or a twin it turned out to be) @type {Map<number, number>} */
    this.aliases = new Map();
    this.seq = 0;
    this.offline = opts.online === undefined ? false : !opts.online;
    this.attempt = 0;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.adoptTimer = undefined;
    /** @type {string|null} */
    this.lastError = null;
    this.savedOnce = false;
    /** @type {Record<string, Function[]>} */
    this.handlers = {};
    const events = opts.events || null;
    if (events) {
      events.addEventListener("online", () => { this.offline = false; this.attempt = 0; this.flush(); });
      events.addEventListener("offline", () => { this.offline = true; this.status(); });
    }
  }

  /** @param {string} name @param {Function} fn */
  on(name, fn) { (this.handlers[name] = this.handlers[name] || []).push(fn); }
  /** @param {string} name @param {...any} args */
  emit(name, ...args) { (this.handlers[name] || []).forEach((fn) => fn(...args)); }

  /** @param {number} id */
  resolve(id) {
    let seen = 0;
    while (this.aliases.has(id) && seen++ < 100) id = /** @type {number} */ (this.aliases.get(id));
    return id;
  }
  /** @param {number} id */
  get(id) { return this.marks.get(this.resolve(id)); }
  all() { return [...this.marks.values()]; }
  /** The queue entry waiting for this mark, if any (conflict or invalid state lives there).
   * @param {number} id */
  entryFor(id) { id = this.resolve(id); return this.queue.find((e) => e.key === id) || null; }
  /** @param {number} id */
  isPending(id) {
    id = this.resolve(id);
    return id < 0 || !!this.entryFor(id) || (!!this.inflight && this.inflight.key === id);
  }
  get pendingCount() { return this.queue.length + (this.inflight ? 1 : 0); }

  /** Stop the timers (sending, looking for orphaned queues). A page never needs to; tests do. */
  stop() {
    clearTimeout(this.timer);
    clearTimeout(this.adoptTimer);
    this.adoptTimer = undefined;
    this.box.stop();
  }

  // ---- loading -------------------------------------------------------------------------
  /** Fetch the server's marks, then replay edits this tab, or a tab that is gone, had not saved.
   * @param {{adoptLater?: boolean}} [opts] adoptLater: keep looking for queues of closed tabs
   * @returns {Promise<number>} how many marks the server has */
  async load({ adoptLater = true } = {}) {
    const [list] = await Promise.all([getAll(this.api, this.marksUrl), this.box.claim()]);
    this.marks = new Map(list.map((/** @type {Mark} */ m) => [m.id, m]));
    const saved = this.box.read();
    this.seq = Math.max(this.seq, saved.seq || 0);
    for (const entry of saved.queue || []) this.replay(entry, list);
    await this.adoptOrphans(list);
    this.persist();
    if (this.queue.length) this.flushSoon(50);
    this.status();
    if (adoptLater) this.adoptLater(0);
    return list.length;
  }

  /** Read which marks the server has locked (an item of theirs went to review) without touching
   * anything this tab has not saved yet. */
  async refreshLocks() {
    const list = await getAll(this.api, this.marksUrl);
    for (const m of /** @type {Mark[]} */ (list)) {
      const mine = this.marks.get(m.id);
      if (mine) { mine.locked = Boolean(m.locked); mine.copy_on_edit = Boolean(m.copy_on_edit); }
    }
  }

  /** Replay the queues of tabs that are gone; their new marks get ids of this page.
   * @param {Mark[]} list the server's marks */
  async adoptOrphans(list) {
    const orphans = await this.box.adopt();
    for (const data of orphans) {
      for (const entry of data.queue || []) {
        if (entry.op === "create") entry.key = -(++this.seq);
        this.replay(entry, list);
      }
    }
    return orphans.length;
  }

  /** @param {number} step */
  adoptLater(step) {
    this.adoptTimer = setTimeout(async () => {
      try {
        if (await this.box.hasOrphans() && await this.adoptOrphans(await getAll(this.api, this.marksUrl))) {
          this.persist();
          for (const m of this.all()) this.emit("change", m.id);
          this.flushSoon(50);
        }
      } catch (err) { /* offline: the queues stay where they are until the next look */ }
      if (this.adoptTimer !== undefined) this.adoptLater(step + 1);
    }, ADOPT_AGAIN_MS[Math.min(step, ADOPT_AGAIN_MS.length - 1)]);
  }

  /** Apply a kept entry to the server's marks and queue it again.
   * @param {Entry} entry @param {Mark[]} serverList */
  replay(entry, serverList) {
    if (entry.op === "create") {
      const p = /** @type {Record<string, any>} */ (entry.payload);
      // A create that reached the server just before the page went away is already there: adopt it.
      const twin = serverList.find((m) => (p.client_key && m.client_key === p.client_key) || (m.kind === p.kind
        && m.label === p.label && m.time_start === p.time_start && JSON.stringify(m.geometry) === JSON.stringify(p.geometry)));
      if (twin) { this.aliases.set(entry.key, twin.id); return; }
      this.marks.set(entry.key, /** @type {Mark} */ ({ ...clone(p), id: entry.key, version: null }));
      this.queue.push(entry);
      return;
    }
    entry.key = this.resolve(entry.key);
    const mark = this.marks.get(entry.key);
    if (!mark) return;  // deleted elsewhere meanwhile: nothing left to apply the edit to
    if (entry.op === "update") this.marks.set(entry.key, { ...mark, ...clone(entry.changes) });
    else this.marks.delete(entry.key);
    // One entry per mark: an adopted edit of a mark this tab edited too folds into this tab's.
    const prev = this.queue.find((e) => e.key === entry.key);
    if (prev) mergeEntry(this.queue, prev, entry, false);
    else this.queue.push(entry);
  }

  persist() {
    if (!this.box.key) return;  // load() persists once the tab's entry is known
    this.box.write({ seq: this.seq, queue: (this.inflight ? [this.inflight] : []).concat(this.queue) });
  }

  // ---- edits ---------------------------------------------------------------------------
  /** Add a mark; returns its (temporary, negative) id. @param {Record<string, any>} fields */
  create(fields) {
    const id = -(++this.seq);
    /** @type {Record<string, any>} */
    // The key goes with every retry of this create, so a create whose answer was lost (the
    // connection dropped, the database restarted) makes no second mark on the server.
    const payload = { ...clone(fields), client_key: uuid4() };
    this.marks.set(id, /** @type {Mark} */ ({ ...clone(payload), id, version: null }));
    this.add({ key: id, op: "create", payload });
    this.emit("change", id);
    return id;
  }

  /** @param {number} id @param {Record<string, any>} changes */
  update(id, changes) {
    id = this.resolve(id);
    const mark = this.marks.get(id);
    if (!mark) return;
    changes = clone(changes);
    this.marks.set(id, { ...mark, ...changes });
    this.add({ key: id, op: "update", changes, baseVersion: mark.version });
    this.emit("change", id);
  }

  /** @param {number} id */
  remove(id) {
    id = this.resolve(id);
    const mark = this.marks.get(id);
    if (!mark) return;
    this.marks.delete(id);
    this.add({ key: id, op: "delete", baseVersion: mark.version });
    this.emit("remove", id);
  }

  /** @param {Entry} next */
  add(next) {
    enqueue(this.queue, next);
    this.persist();
    this.flushSoon();
  }

  // ---- conflicts -----------------------------------------------------------------------
  conflicts() { return this.queue.filter((e) => e.blocked === "conflict"); }

  /** Keep my edit: resend it on top of the version the server has now. @param {number} id */
  keepMine(id) {
    const entry = this.entryFor(id);
    if (!entry || entry.blocked !== "conflict" || !entry.current) return;
    entry.baseVersion = entry.current.version;
    const mark = this.marks.get(entry.key);
    if (mark) this.marks.set(entry.key, { ...mark, version: entry.current.version });
    delete entry.blocked;
    delete entry.current;
    this.persist();
    this.emit("change", entry.key);
    this.flush();
  }

  /** Take theirs: drop my edit and show the mark as the server has it. @param {number} id */
  takeTheirs(id) {
    const entry = this.entryFor(id);
    if (!entry || entry.blocked !== "conflict" || !entry.current) return;
    this.queue.splice(this.queue.indexOf(entry), 1);
    this.marks.set(entry.key, entry.current);
    this.persist();
    this.emit("change", entry.key);
    this.status();
    this.flush();
  }

  // ---- sending -------------------------------------------------------------------------
  flushSoon(ms = DEBOUNCE_MS) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
    this.status();
  }

  /** Send queued entries one at a time, in order, until the queue is empty or one fails (store_send.js). */
  flush() { return flush(this); }
  /** @param {Entry} entry */
  send(entry) { return send(this, entry); }
  /** @param {number} original @param {Mark} copy */
  forked(original, copy) { forked(this, original, copy); }

  /** The server's mark, with edits still queued for it on top. @param {Mark} mark */
  showServer(mark) {
    const later = this.queue.find((e) => e.key === mark.id);
    if (later && later.op === "delete") return;
    this.marks.set(mark.id, later && later.op === "update" ? { ...mark, ...clone(later.changes) } : mark);
    this.emit("change", mark.id);
  }

  /** @param {Entry} entry @param {ApiError} err */
  fail(entry, err) { fail(this, entry, err); }
  /** @param {number} id */
  refetch(id) { return refetch(this, id); }

  /** Report the save state (save_status.js) to the "status" handlers. */
  status() {
    const { state, text } = saveStatus(this);
    this.emit("status", state, text);
  }
}
