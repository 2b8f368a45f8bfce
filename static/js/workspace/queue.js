// @ts-check
/* The save queue's rules, pure: one entry per mark (create, update or delete), later edits folded
 * into the entry already waiting. The store (store.js) owns the queue and sends it. */

/** @typedef {import("../lib/types.js").Mark} Mark */

/**
 * One mark's unsaved edit. `key` is the mark id (negative until the server has created it).
 * baseVersion: the version the edit was made on (updates and deletes; 409 when stale).
 * blocked: "conflict" (a 409 with the server's `current` mark) or "invalid" (a 400 with `errors`)
 * keeps the entry from being sent until the person acts.
 * @typedef {object} Entry
 * @property {number} key
 * @property {"create"|"update"|"delete"} op
 * @property {Record<string, any>} [payload] create: every field of the new mark
 * @property {Record<string, any>} [changes] update: the changed fields
 * @property {number|null} [baseVersion]
 * @property {"conflict"|"invalid"} [blocked]
 * @property {Mark} [current]
 * @property {Record<string, any>} [errors]
 */

/** Fold a later entry into an earlier one for the same mark. `edited`: a person just edited it,
 * so a shape the server refused gets another chance. A create followed by a delete leaves nothing.
 * @param {Entry[]} queue @param {Entry} prev @param {Entry} next @param {boolean} edited */
export function mergeEntry(queue, prev, next, edited) {
  if (prev.op === "delete") return;
  if (next.op === "delete") {
    if (prev.op === "create") { queue.splice(queue.indexOf(prev), 1); return; }
    prev.op = "delete";
    delete prev.changes;
  } else if (prev.op === "create") {
    Object.assign(prev.payload || (prev.payload = {}), next.changes);
  } else {
    prev.changes = { ...prev.changes, ...next.changes };
  }
  if (edited && prev.blocked === "invalid") { delete prev.blocked; delete prev.errors; }
}

/** Add a person's edit: a new entry, or folded into the one waiting for the same mark.
 * @param {Entry[]} queue @param {Entry} next */
export function enqueue(queue, next) {
  const prev = queue.find((e) => e.key === next.key);
  if (!prev) queue.push(next);
  else mergeEntry(queue, prev, next, true);
}

/** Put a failed entry back in front, merged with edits made while it was in flight.
 * @param {Entry[]} queue @param {Entry} entry */
export function requeue(queue, entry) {
  const later = queue.find((e) => e.key === entry.key);
  queue.unshift(entry);
  if (later) {
    queue.splice(queue.indexOf(later), 1);
    mergeEntry(queue, entry, later, false);
  }
}

/** The next entry to send, or null. An edit of a mark whose create is still on its way waits for
 * the real id (its key is negative until then); blocked entries wait for the person.
 * @param {Entry[]} queue @returns {Entry|null} */
export function nextToSend(queue) {
  return queue.find((e) => !e.blocked && (e.op === "create" || e.key > 0)) || null;
}

/** Point queued entries of a just-created mark at its real id; an update made before the create
 * was answered is based on the version the server gave it.
 * @param {Entry[]} queue @param {number} tempId @param {{id: number, version: number|null}} created */
export function rekey(queue, tempId, created) {
  for (const e of queue) {
    if (e.key !== tempId) continue;
    e.key = created.id;
    if (e.baseVersion === null || e.baseVersion === undefined) e.baseVersion = created.version;
  }
}
