/* Where a page keeps the edits it has not saved yet: one localStorage entry per browser tab.
 *
 * Two tabs of one scene must not share one entry: each writes its whole queue, so one would wipe
 * the other's unsaved edits, and a tab reloading would send the other's creates a second time.
 * So each tab writes under `<base>:<tab id>`. The id lives in sessionStorage, which survives a
 * reload of the same tab, and the tab holds a Web Lock named after it while the page is open.
 *
 * A queue whose tab is gone (closed, crashed, or reloaded under a new id) is adopted by the next
 * page of the same scene and user: its lock is free, so that page takes it, removes the entry
 * and replays the edits as its own. Where the browser has no Web Locks (plain HTTP on another
 * host is not a secure context), a tab refreshes a timestamp while it has edits, and a queue is
 * adopted only after ten quiet minutes, longer than a background tab's throttled timers sleep.
 */
(function () {
  "use strict";
  const TAB_KEY = "skymark:tab";
  const BEAT_MS = 60 * 1000;
  const STALE_MS = 10 * 60 * 1000;
  const locks = navigator.locks || null;
  const newId = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  const lockName = (tab) => `skymark:tab:${tab}`;
  const readJson = (key) => { try { return JSON.parse(localStorage.getItem(key) || "{}"); } catch (err) { return {}; } };

  /** Hold the lock of `tab` for as long as this page lives; false when another page holds it. */
  const hold = (tab) => new Promise((resolve) => {
    locks.request(lockName(tab), { ifAvailable: true }, (lock) => {
      resolve(!!lock);
      return lock ? new Promise(() => {}) : undefined;
    });
  });

  /** Run `fn` if no page holds the lock of `tab` (it is gone); resolves to what fn returned, or null. */
  const whileGone = (tab, fn) => new Promise((resolve) => {
    locks.request(lockName(tab), { ifAvailable: true }, (lock) => { resolve(lock ? fn() : null); });
  });

  class PendingBox {
    constructor(base) {
      this.base = base;
      this.key = null;
      this.timer = null;
    }

    /** Pick this tab's entry: the id of an earlier page in this tab, unless another page holds it
     *  (a duplicated tab copies sessionStorage). */
    async claim() {
      let tab = sessionStorage.getItem(TAB_KEY);
      if (locks) {
        if (!tab || !(await hold(tab))) { tab = newId(); await hold(tab); }
      } else if (!tab) {
        tab = newId();
      }
      sessionStorage.setItem(TAB_KEY, tab);
      this.key = `${this.base}:${tab}`;
    }

    read() { return readJson(this.key); }

    write(data) {
      clearInterval(this.timer);
      this.timer = null;
      try {
        if (!data.queue.length) { localStorage.removeItem(this.key); return; }
        localStorage.setItem(this.key, JSON.stringify({ ...data, beat: Date.now() }));
        if (!locks) this.timer = setInterval(() => this.write(data), BEAT_MS);
      } catch (err) { console.warn("could not keep unsaved edits in localStorage", err); }
    }

    /** Entries of other tabs of this scene (and one from before queues were kept per tab). */
    others() {
      const prefix = this.base + ":";
      return Object.keys(localStorage).filter((k) => k === this.base || (k.startsWith(prefix) && k !== this.key));
    }

    /** Whether some entry may belong to a tab that is gone (cheap: no storage is changed). */
    async hasOrphans() {
      const keys = this.others();
      if (!keys.length || !locks) return keys.length > 0;
      const held = new Set(((await locks.query()).held || []).map((l) => l.name));
      return keys.some((k) => k === this.base || !held.has(lockName(k.slice(this.base.length + 1))));
    }

    /** Take the queues of tabs that are gone: [{seq, queue}], their entries removed from storage. */
    async adopt() {
      const found = [];
      const take = (key) => { const data = readJson(key); localStorage.removeItem(key); found.push(data); return data; };
      const prefix = this.base + ":";
      for (const key of this.others()) {
        if (key === this.base) { take(key); continue; }  // written before queues were kept per tab
        const tab = key.slice(prefix.length);
        if (locks) await whileGone(tab, () => take(key));
        else if (Date.now() - (readJson(key).beat || 0) > STALE_MS) take(key);
      }
      return found;
    }
  }

  window.Skymark.PendingBox = PendingBox;
})();
