// @ts-check
/* Undo / redo over the store's operations (create, update, delete). Each command knows how to
 * apply and revert itself through the store, so an undo is saved like any other edit.
 * A mark deleted and re-created by undo gets a new id; `ids` maps the old one to the new one so
 * older commands still find it. No DOM: node tests drive it with a store and a fake clock. */

/** @typedef {import("./store.js").MarkStore} MarkStore */

const MERGE_MS = 1500;  // typing in one field of one mark is one undo step
const LIMIT = 200;
const CREATE_FIELDS = ["satellite_image", "kind", "geometry", "label", "time_start", "time_end", "vertex_times", "facts"];

/** A deep copy of some fields (null for a missing one, so undo clears what redo set).
 * @param {Record<string, any>} mark @param {string[]} keys @returns {Record<string, any>} */
const pick = (mark, keys) => Object.fromEntries(keys.map((k) => [k, mark[k] === undefined ? null : JSON.parse(JSON.stringify(mark[k]))]));

/**
 * @typedef {object} Command
 * @property {"create"|"update"|"delete"} type
 * @property {number} id the mark, as it was called when the command ran
 * @property {Record<string, any>} [snapshot] create/delete: the fields to re-create the mark from
 * @property {Record<string, any>} [before] update: the fields before
 * @property {Record<string, any>} [after] update: the fields after
 * @property {number} [at] update: when (ms), for folding keystrokes
 * @property {boolean} [typing]
 */

/** @param {Command} cmd */
function describe(cmd) {
  const kind = cmd.snapshot ? cmd.snapshot.kind : "";
  if (cmd.type === "create") return `creating a ${kind}`;
  if (cmd.type === "delete") return `deleting a ${kind}`;
  return "an edit of " + Object.keys(cmd.after || {}).join(", ");
}

export class History {
  /** @param {MarkStore} store @param {{now?: () => number}} [opts] */
  constructor(store, opts = {}) {
    this.store = store;
    this.now = opts.now || (() => Date.now());
    /** @type {Command[]} */
    this.done = [];
    /** @type {Command[]} */
    this.undone = [];
    /** @type {Map<number, number>} */
    this.ids = new Map();
    /** @type {(() => void)[]} */
    this.handlers = [];
  }

  /** @param {() => void} fn */
  onChange(fn) { this.handlers.push(fn); }
  changed() { this.handlers.forEach((fn) => fn()); }

  /** Where a mark an older command names lives now (re-created marks and saved temporary ids).
   * @param {number} id */
  id(id) {
    for (let n = 0; n < 100; n++) {
      const next = this.ids.has(id) ? /** @type {number} */ (this.ids.get(id)) : this.store.resolve(id);
      if (next === id) return id;
      id = next;
    }
    return id;
  }
  get canUndo() { return this.done.length > 0; }
  get canRedo() { return this.undone.length > 0; }

  /** @param {Command} cmd */
  push(cmd) {
    this.done.push(cmd);
    if (this.done.length > LIMIT) this.done.shift();
    this.undone = [];
    this.changed();
  }

  /** Create a mark (undoable); returns its id. @param {Record<string, any>} fields */
  create(fields) {
    const id = this.store.create(fields);
    this.push({ type: "create", id, snapshot: pick(fields, CREATE_FIELDS) });
    return id;
  }

  /** Change fields of a mark (undoable). With `typing`, quick successive edits of the same
   * fields (keystrokes in one text field) are one undo step.
   * @param {number} id @param {Record<string, any>} changes @param {{typing?: boolean}} [opts] */
  update(id, changes, { typing = false } = {}) {
    const mark = this.store.get(id);
    if (!mark) return;
    const keys = Object.keys(changes);
    const before = pick(mark, keys);
    this.store.update(id, changes);
    const last = this.done[this.done.length - 1];
    const now = this.now();
    if (typing && last && last.type === "update" && last.typing && this.id(last.id) === this.id(id)
        && now - (last.at || 0) < MERGE_MS && keys.every((k) => k in (last.after || {})) && !this.undone.length) {
      Object.assign(last.after || {}, pick(changes, keys));
      last.at = now;
      return;
    }
    this.push({ type: "update", id, before, after: pick(changes, keys), at: now, typing });
  }

  /** @param {number} id */
  remove(id) {
    const mark = this.store.get(id);
    if (!mark) return;
    this.store.remove(id);
    this.push({ type: "delete", id, snapshot: pick(mark, CREATE_FIELDS) });
  }

  /** Revert the last command; returns a line saying what was undone, or null. */
  undo() {
    const cmd = this.done.pop();
    if (!cmd) return null;
    this.apply(cmd, true);
    this.undone.push(cmd);
    this.changed();
    return "Undid " + describe(cmd);
  }

  redo() {
    const cmd = this.undone.pop();
    if (!cmd) return null;
    this.apply(cmd, false);
    this.done.push(cmd);
    this.changed();
    return "Redid " + describe(cmd);
  }

  /** Create the command's mark again from its snapshot; older names of it now point at the new id.
   * @param {Command} cmd */
  recreate(cmd) {
    const old = this.id(cmd.id);
    const fresh = this.store.create(cmd.snapshot || {});
    this.ids.set(old, fresh);
    if (old !== cmd.id) this.ids.set(cmd.id, fresh);
    cmd.id = fresh;
  }

  /** @param {Command} cmd @param {boolean} reverse */
  apply(cmd, reverse) {
    if (cmd.type === "create") {
      if (reverse) {
        const mark = this.store.get(this.id(cmd.id));
        if (mark) cmd.snapshot = pick(mark, CREATE_FIELDS);  // redo brings back what it was at undo time
        this.store.remove(this.id(cmd.id));
      } else this.recreate(cmd);
    } else if (cmd.type === "delete") {
      if (reverse) this.recreate(cmd); else this.store.remove(this.id(cmd.id));
    } else {
      this.store.update(this.id(cmd.id), (reverse ? cmd.before : cmd.after) || {});
    }
  }
}
