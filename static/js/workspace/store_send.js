// @ts-check
/* Sending the store's queue (store.js): one entry at a time, in order; what the server answers
 * (saved, forked to a copy, a conflict, refused, no answer) and the retries with backoff. Each function
 * takes the MarkStore and is called through its method of the same name. */

import { nextToSend, rekey, requeue } from "./queue.js";

/** @typedef {import("../lib/types.js").Mark} Mark */
/** @typedef {import("../lib/api.js").ApiError} ApiError */
/** @typedef {import("./queue.js").Entry} Entry */
/** @typedef {import("./store.js").MarkStore} MarkStore */

const BACKOFF_MS = [1000, 2000, 4000, 8000, 16000, 30000];

/** Send queued entries one at a time, in order, until the queue is empty or one fails. @param {MarkStore} store */
export async function flush(store) {
  clearTimeout(store.timer);
  if (store.inflight) return;
  const entry = nextToSend(store.queue);
  if (!entry) { store.status(); return; }
  store.queue.splice(store.queue.indexOf(entry), 1);
  store.inflight = entry;
  store.status();
  try {
    await store.send(entry);
    store.inflight = null;
    store.offline = false;
    store.attempt = 0;
    store.lastError = null;
    store.savedOnce = true;
    store.persist();
    store.flush();
  } catch (err) {
    store.inflight = null;
    store.fail(entry, /** @type {ApiError} */ (err));
    store.persist();
    store.status();
  }
}

/** @param {Entry} entry @param {MarkStore} store */
export async function send(store, entry) {
  if (entry.op === "create") {
    const mark = await store.api.post(store.marksUrl, entry.payload);
    store.aliases.set(entry.key, mark.id);
    store.marks.delete(entry.key);
    rekey(store.queue, entry.key, mark);
    store.emit("rekey", entry.key, mark.id);
    store.showServer(mark);
  } else if (entry.op === "update") {
    const mark = await store.api.patch(store.markUrl(entry.key), { version: entry.baseVersion, ...entry.changes });
    if (mark.id !== entry.key) { store.forked(entry.key, mark); return; }
    for (const e of store.queue) if (e.key === entry.key && e.baseVersion === entry.baseVersion) e.baseVersion = mark.version;
    store.showServer(mark);
  } else {
    await store.api.del(store.markUrl(entry.key) + "?version=" + entry.baseVersion);
  }
}

/** Copy on write: the edit of a shared locked mark went to a copy (another id) that the author's
 * drafts and rejected items moved to; the original stays as it was for the items that lock it.
 * Later edits of the original follow the copy, the selection too ("rekey"), and the original is
 * shown again as the server keeps it. @param {number} original @param {Mark} copy @param {MarkStore} store */
export function forked(store, original, copy) {
  for (const e of store.queue) {
    if (e.key !== original) continue;
    e.key = copy.id;
    e.baseVersion = copy.version;
  }
  store.emit("rekey", original, copy.id);
  store.showServer(copy);
  store.refetch(original);
  store.emit("forked", original, copy.id);
}

/** @param {Entry} entry @param {ApiError} err @param {MarkStore} store */
export function fail(store, entry, err) {
  const status = err.status || 0;
  store.lastError = err.message;
  if (status === 0 || status >= 500) {
    // No answer, or the server is in trouble: keep the edit and try again later.
    if (status === 0) store.offline = true;
    requeue(store.queue, entry);
    const delay = BACKOFF_MS[Math.min(store.attempt++, BACKOFF_MS.length - 1)];
    clearTimeout(store.timer);
    store.timer = setTimeout(() => store.flush(), delay);
    return;
  }
  if (status === 409 && err.body && err.body.current) {
    entry.blocked = "conflict";
    entry.current = err.body.current;
    requeue(store.queue, entry);
    store.emit("conflict", entry.key);
    return;
  }
  // A 400, or a new mark the server refuses (403 when the scene was unassigned meanwhile): the
  // edit waits, blocked, for the person. A mark just drawn is never thrown away by an error; it
  // goes only when the person deletes it.
  if (status === 400 || (entry.op === "create" && entry.key < 0)) {
    entry.blocked = "invalid";
    entry.errors = status === 400 && err.body ? err.body : { detail: err.message };
    requeue(store.queue, entry);
    store.emit("invalid", entry.key, entry.errors);
    if (status !== 400) store.emit("refused", entry.key, err);
    return;
  }
  // 403, 404, or a 409 that is not a stale version (e.g. the mark is locked by an item in
  // review): the edit cannot be applied; show the mark as the server has it.
  store.emit("refused", entry.key, err);
  store.refetch(entry.key);
}

/** @param {number} id @param {MarkStore} store */
export async function refetch(store, id) {
  if (id < 0) { store.marks.delete(id); store.emit("remove", id); return; }
  try {
    store.marks.set(id, await store.api.get(store.markUrl(id)));
    store.emit("change", id);
  } catch (err) {
    if (/** @type {ApiError} */ (err).status === 404) { store.marks.delete(id); store.emit("remove", id); }
  }
}

