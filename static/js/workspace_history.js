/* Undo / redo over the store's operations (create, update, delete). Each command knows how to
 * apply and revert itself through the store, so an undo is saved like any other edit.
 * A mark deleted and re-created by undo gets a new id; `ids` maps the old one to the new one so
 * older commands still find it. */
(function () {
  "use strict";
  const MERGE_MS = 1500;  // typing in one field of one mark is one undo step
  const pick = (mark, keys) => Object.fromEntries(keys.map((k) => [k, mark[k] === undefined ? null : JSON.parse(JSON.stringify(mark[k]))]));
  const CREATE_FIELDS = ["satellite_image", "kind", "geometry", "label", "time_start", "time_end", "vertex_times", "facts"];

  class History {
    constructor(store) {
      this.store = store;
      this.done = [];
      this.undone = [];
      this.ids = new Map();
      this.handlers = [];
    }

    onChange(fn) { this.handlers.push(fn); }
    changed() { this.handlers.forEach((fn) => fn()); }
    /** Where a mark an older command names lives now (re-created marks and saved temporary ids). */
    id(id) {
      for (let n = 0; n < 100; n++) {
        const next = this.ids.has(id) ? this.ids.get(id) : this.store.resolve(id);
        if (next === id) return id;
        id = next;
      }
      return id;
    }
    get canUndo() { return this.done.length > 0; }
    get canRedo() { return this.undone.length > 0; }

    push(cmd) {
      this.done.push(cmd);
      if (this.done.length > 200) this.done.shift();
      this.undone = [];
      this.changed();
    }

    /** Create a mark (undoable); returns its id. */
    create(fields) {
      const id = this.store.create(fields);
      this.push({ type: "create", id, snapshot: pick(fields, CREATE_FIELDS) });
      return id;
    }

    /** Change fields of a mark (undoable). With `typing`, quick successive edits of the same
     *  fields (keystrokes in one text field) are one undo step. */
    update(id, changes, { typing = false } = {}) {
      const mark = this.store.get(id);
      if (!mark) return;
      const keys = Object.keys(changes);
      const before = pick(mark, keys);
      this.store.update(id, changes);
      const last = this.done[this.done.length - 1];
      const now = Date.now();
      if (typing && last && last.type === "update" && last.typing && this.id(last.id) === this.id(id) && now - last.at < MERGE_MS
          && keys.every((k) => k in last.after) && !this.undone.length) {
        Object.assign(last.after, pick(changes, keys));
        last.at = now;
        return;
      }
      this.push({ type: "update", id, before, after: pick(changes, keys), at: now, typing });
    }

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

    apply(cmd, reverse) {
      const recreate = () => {
        const old = this.id(cmd.id);
        const fresh = this.store.create(cmd.snapshot);
        this.ids.set(old, fresh);
        if (old !== cmd.id) this.ids.set(cmd.id, fresh);
        cmd.id = fresh;
      };
      if (cmd.type === "create") {
        if (reverse) {
          const mark = this.store.get(this.id(cmd.id));
          if (mark) cmd.snapshot = pick(mark, CREATE_FIELDS);  // redo brings back what it was at undo time
          this.store.remove(this.id(cmd.id));
        } else recreate();
      } else if (cmd.type === "delete") {
        if (reverse) recreate(); else this.store.remove(this.id(cmd.id));
      } else {
        this.store.update(this.id(cmd.id), reverse ? cmd.before : cmd.after);
      }
    }
  }

  function describe(cmd) {
    if (cmd.type === "create") return `creating a ${cmd.snapshot.kind}`;
    if (cmd.type === "delete") return `deleting a ${cmd.snapshot.kind}`;
    return "an edit of " + Object.keys(cmd.after).join(", ");
  }

  window.Skymark.History = History;
})();
