/* The marks of one scene as this page sees them, and the queue that saves them.
 *
 * Every edit changes the local copy at once and becomes a queue entry (one per mark: create,
 * update or delete, later edits merged in). The queue is written to localStorage on every change
 * and sent after ~500 ms of quiet, one request at a time, so a reload or a dropped connection loses
 * nothing: the entries are replayed from localStorage and retried with backoff.
 *
 * Optimistic concurrency: an update or delete carries the version the page held when the edit was
 * made (baseVersion). A 409 with {"current": mark} blocks that entry as a conflict until the person
 * chooses keep mine (resend on top of the current version) or take theirs (drop the edit).
 * Marks not yet created on the server have negative ids; resolve(id) follows them to the real one.
 * Each tab keeps its queue apart and takes over the queues of tabs that are gone (workspace_pending.js).
 */
(function () {
  "use strict";
  const { api } = window.Skymark;
  const DEBOUNCE_MS = 500;
  const BACKOFF_MS = [1000, 2000, 4000, 8000, 16000, 30000];
  // A reloaded tab may start before the page it replaces has let go of its queue: look again soon,
  // then now and then for queues of tabs closed meanwhile.
  const ADOPT_AGAIN_MS = [3000, 60000];
  const FIELDS = ["geometry", "label", "time_start", "time_end", "vertex_times", "facts"];

  const clone = (v) => JSON.parse(JSON.stringify(v));

  class MarkStore {
    /** @param {{marksUrl:string, markUrl:(id)=>string, storageKey:string}} opts */
    constructor(opts) {
      this.marksUrl = opts.marksUrl;
      this.markUrl = opts.markUrl;
      this.box = new window.Skymark.PendingBox(opts.storageKey);
      this.marks = new Map();
      this.queue = [];
      this.inflight = null;
      this.aliases = new Map();
      this.seq = 0;
      this.offline = !navigator.onLine;
      this.attempt = 0;
      this.timer = null;
      this.lastError = null;
      this.savedOnce = false;
      this.handlers = {};
      window.addEventListener("online", () => { this.offline = false; this.attempt = 0; this.flush(); });
      window.addEventListener("offline", () => { this.offline = true; this.status(); });
    }

    on(name, fn) { (this.handlers[name] = this.handlers[name] || []).push(fn); }
    emit(name, ...args) { (this.handlers[name] || []).forEach((fn) => fn(...args)); }

    resolve(id) {
      let seen = 0;
      while (this.aliases.has(id) && seen++ < 100) id = this.aliases.get(id);
      return id;
    }
    get(id) { return this.marks.get(this.resolve(id)); }
    all() { return [...this.marks.values()]; }
    /** The queue entry waiting for this mark, if any (conflict or invalid state lives there). */
    entryFor(id) { id = this.resolve(id); return this.queue.find((e) => e.key === id) || null; }
    isPending(id) {
      id = this.resolve(id);
      return id < 0 || !!this.entryFor(id) || (this.inflight && this.inflight.key === id);
    }
    get pendingCount() { return this.queue.length + (this.inflight ? 1 : 0); }

    // ---- loading -------------------------------------------------------------------------
    /** Fetch the server's marks, then replay edits this tab, or a tab that is gone, had not saved. */
    async load() {
      const [list] = await Promise.all([api.get(this.marksUrl), this.box.claim()]);
      this.marks = new Map(list.map((m) => [m.id, m]));
      const saved = this.box.read();
      this.seq = Math.max(this.seq, saved.seq || 0);
      for (const entry of saved.queue || []) this.replay(entry, list);
      await this.adoptOrphans(list);
      this.persist();
      if (this.queue.length) this.flushSoon(50);
      this.status();
      this.adoptLater(0);
      return list.length;
    }

    /** Replay the queues of tabs that are gone; their new marks get ids of this page. */
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

    adoptLater(step) {
      setTimeout(async () => {
        try {
          if (await this.box.hasOrphans() && await this.adoptOrphans(await api.get(this.marksUrl))) {
            this.persist();
            for (const m of this.all()) this.emit("change", m.id);
            this.flushSoon(50);
          }
        } catch (err) { /* offline: the queues stay where they are until the next look */ }
        this.adoptLater(step + 1);
      }, ADOPT_AGAIN_MS[Math.min(step, ADOPT_AGAIN_MS.length - 1)]);
    }

    replay(entry, serverList) {
      if (entry.op === "create") {
        // A create that reached the server just before the page went away is already there: adopt it.
        const twin = serverList.find((m) => m.kind === entry.payload.kind && m.label === entry.payload.label
          && m.time_start === entry.payload.time_start && JSON.stringify(m.geometry) === JSON.stringify(entry.payload.geometry));
        if (twin) { this.aliases.set(entry.key, twin.id); return; }
        this.marks.set(entry.key, { ...clone(entry.payload), id: entry.key, version: null });
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
      if (prev) this.merge(prev, entry, false);
      else this.queue.push(entry);
    }

    persist() {
      if (!this.box.key) return;  // load() persists once the tab's entry is known
      this.box.write({ seq: this.seq, queue: (this.inflight ? [this.inflight] : []).concat(this.queue) });
    }

    // ---- edits ---------------------------------------------------------------------------
    /** Add a mark; returns its (temporary, negative) id. */
    create(fields) {
      const id = -(++this.seq);
      const payload = clone(fields);
      this.marks.set(id, { ...clone(payload), id, version: null });
      this.enqueue({ key: id, op: "create", payload });
      this.emit("change", id);
      return id;
    }

    update(id, changes) {
      id = this.resolve(id);
      const mark = this.marks.get(id);
      if (!mark) return;
      changes = clone(changes);
      this.marks.set(id, { ...mark, ...changes });
      this.enqueue({ key: id, op: "update", changes, baseVersion: mark.version });
      this.emit("change", id);
    }

    remove(id) {
      id = this.resolve(id);
      const mark = this.marks.get(id);
      if (!mark) return;
      this.marks.delete(id);
      this.enqueue({ key: id, op: "delete", baseVersion: mark.version });
      this.emit("remove", id);
    }

    enqueue(next) {
      const prev = this.queue.find((e) => e.key === next.key);
      if (!prev) this.queue.push(next);
      else this.merge(prev, next, true);
      this.persist();
      this.flushSoon();
    }

    /** Fold a later entry into an earlier one for the same mark. `edited`: a person just edited
     *  it, so a shape the server refused gets another chance. */
    merge(prev, next, edited) {
      if (prev.op === "delete") return;
      if (next.op === "delete") {
        if (prev.op === "create") { this.queue.splice(this.queue.indexOf(prev), 1); return; }
        prev.op = "delete";
        delete prev.changes;
      } else if (prev.op === "create") {
        Object.assign(prev.payload, next.changes);
      } else {
        prev.changes = { ...prev.changes, ...next.changes };
      }
      if (edited && prev.blocked === "invalid") { delete prev.blocked; delete prev.errors; }
    }

    /** Put a failed entry back in front, merged with edits made while it was in flight. */
    requeue(entry) {
      const later = this.queue.find((e) => e.key === entry.key);
      this.queue.unshift(entry);
      if (later) {
        this.queue.splice(this.queue.indexOf(later), 1);
        this.merge(entry, later, false);  // a create merged with a later delete leaves nothing
      }
    }

    // ---- conflicts -----------------------------------------------------------------------
    conflicts() { return this.queue.filter((e) => e.blocked === "conflict"); }

    /** Keep my edit: resend it on top of the version the server has now. */
    keepMine(id) {
      const entry = this.entryFor(id);
      if (!entry || entry.blocked !== "conflict") return;
      entry.baseVersion = entry.current.version;
      const mark = this.marks.get(entry.key);
      if (mark) this.marks.set(entry.key, { ...mark, version: entry.current.version });
      delete entry.blocked;
      delete entry.current;
      this.persist();
      this.emit("change", entry.key);
      this.flush();
    }

    /** Take theirs: drop my edit and show the mark as the server has it. */
    takeTheirs(id) {
      const entry = this.entryFor(id);
      if (!entry || entry.blocked !== "conflict") return;
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

    /** Send queued entries one at a time, in order, until the queue is empty or one fails. */
    async flush() {
      clearTimeout(this.timer);
      if (this.inflight) return;
      // An edit to a mark whose create is still on its way waits for the real id.
      const entry = this.queue.find((e) => !e.blocked && (e.op === "create" || e.key > 0));
      if (!entry) { this.status(); return; }
      this.queue.splice(this.queue.indexOf(entry), 1);
      this.inflight = entry;
      this.status();
      try {
        await this.send(entry);
        this.inflight = null;
        this.offline = false;
        this.attempt = 0;
        this.lastError = null;
        this.savedOnce = true;
        this.persist();
        this.flush();
      } catch (err) {
        this.inflight = null;
        this.fail(entry, err);
        this.persist();
        this.status();
      }
    }

    async send(entry) {
      if (entry.op === "create") {
        const mark = await api.post(this.marksUrl, entry.payload);
        this.aliases.set(entry.key, mark.id);
        this.marks.delete(entry.key);
        for (const e of this.queue) {
          if (e.key === entry.key) { e.key = mark.id; if (e.baseVersion === null || e.baseVersion === undefined) e.baseVersion = mark.version; }
        }
        this.emit("rekey", entry.key, mark.id);
        this.showServer(mark);
      } else if (entry.op === "update") {
        const mark = await api.patch(this.markUrl(entry.key), { version: entry.baseVersion, ...entry.changes });
        for (const e of this.queue) if (e.key === entry.key && e.baseVersion === entry.baseVersion) e.baseVersion = mark.version;
        this.showServer(mark);
      } else {
        await api.del(this.markUrl(entry.key) + "?version=" + entry.baseVersion);
      }
    }

    /** The server's mark, with edits still queued for it on top. */
    showServer(mark) {
      const later = this.queue.find((e) => e.key === mark.id);
      if (later && later.op === "delete") return;
      this.marks.set(mark.id, later && later.op === "update" ? { ...mark, ...clone(later.changes) } : mark);
      this.emit("change", mark.id);
    }

    fail(entry, err) {
      const status = err.status || 0;
      this.lastError = err.message;
      if (status === 0 || status >= 500) {
        // No answer, or the server is in trouble: keep the edit and try again later.
        if (status === 0) this.offline = true;
        this.requeue(entry);
        const delay = BACKOFF_MS[Math.min(this.attempt++, BACKOFF_MS.length - 1)];
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.flush(), delay);
        return;
      }
      if (status === 409 && err.body && err.body.current) {
        entry.blocked = "conflict";
        entry.current = err.body.current;
        this.requeue(entry);
        this.emit("conflict", entry.key);
        return;
      }
      if (status === 400) {
        entry.blocked = "invalid";
        entry.errors = err.body || { detail: err.message };
        this.requeue(entry);
        this.emit("invalid", entry.key, entry.errors);
        return;
      }
      // 403, 404, or a 409 that is not a stale version (e.g. the mark is locked by an item in
      // review): the edit cannot be applied; show the mark as the server has it.
      this.emit("refused", entry.key, err);
      this.refetch(entry.key);
    }

    async refetch(id) {
      if (id < 0) { this.marks.delete(id); this.emit("remove", id); return; }
      try {
        this.marks.set(id, await api.get(this.markUrl(id)));
        this.emit("change", id);
      } catch (err) {
        if (err.status === 404) { this.marks.delete(id); this.emit("remove", id); }
      }
    }

    /** Report the save state: conflict > offline > saving > unsaved > error > saved. */
    status() {
      const n = this.pendingCount;
      const edits = `${n} edit${n === 1 ? "" : "s"}`;
      const conflicts = this.conflicts();
      const invalid = this.queue.filter((e) => e.blocked === "invalid");
      let state, text;
      if (conflicts.length) {
        state = "conflict";
        text = `Conflict: mark #${conflicts[0].key} changed elsewhere`;
      } else if (this.offline) {
        state = "offline";
        text = n ? `Offline — ${edits} kept in this browser, will retry` : "Offline";
      } else if (this.attempt > 0 && this.lastError) {
        state = "error"; text = `Error: ${this.lastError} — ${edits} kept, retrying`;
      } else if (this.inflight) {
        state = "saving"; text = "Saving…";
      } else if (this.queue.some((e) => !e.blocked)) {
        state = "unsaved"; text = `Unsaved — ${edits}`;
      } else if (invalid.length) {
        state = "error"; text = "Not saved: " + window.Skymark.errorText(invalid[0].errors, 400);
      } else if (this.lastError) {
        state = "error"; text = "Error: " + this.lastError;
      } else if (this.savedOnce) {
        state = "saved"; text = "All changes saved";
      } else {
        state = "idle"; text = "No unsaved changes";
      }
      this.emit("status", state, text);
    }
  }

  MarkStore.FIELDS = FIELDS;
  window.Skymark.MarkStore = MarkStore;
})();
