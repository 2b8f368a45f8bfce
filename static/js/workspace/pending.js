// @ts-check
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
 *
 * The storages and the lock manager come in as `env`, so node tests can run this with fakes.
 */

const TAB_KEY = "skymark:tab";
const BEAT_MS = 60 * 1000;
const STALE_MS = 10 * 60 * 1000;

/**
 * A queue as it is kept: `seq` numbers the temporary ids of marks created offline.
 * @typedef {{seq?: number, queue?: any[], beat?: number}} Kept
 */

/**
 * What a PendingBox reads and writes. The page passes the browser's (browserEnv()).
 * @typedef {object} BoxEnv
 * @property {Storage} local the tabs' queues (localStorage: shared by every tab of the origin)
 * @property {Storage} session this tab's id (sessionStorage: kept across a reload of the tab)
 * @property {LockManager|null} locks Web Locks, or null where the browser has none
 * @property {() => number} now
 */

/** @returns {BoxEnv} */
export function browserEnv() {
  return { local: localStorage, session: sessionStorage, locks: navigator.locks || null, now: () => Date.now() };
}

/** @param {string} tab */
const lockName = (tab) => `skymark:tab:${tab}`;

/** Keys of a Storage (a real one or a test's), through the Storage API only. @param {Storage} storage */
function storageKeys(storage) {
  const keys = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key !== null) keys.push(key);
  }
  return keys;
}

export class PendingBox {
  /** @param {string} base e.g. "skymark:pending:<scene>:<user>" @param {BoxEnv} env */
  constructor(base, env) {
    this.base = base;
    this.env = env;
    /** This tab's entry; null until claim() has run. @type {string|null} */
    this.key = null;
    /** @type {ReturnType<typeof setInterval>|null} */
    this.timer = null;
  }

  newId() {
    return this.env.now().toString(36) + Math.random().toString(36).slice(2, 8);
  }

  /** Hold the lock of `tab` for as long as this page lives; false when another page holds it.
   * @param {string} tab @returns {Promise<boolean>} */
  hold(tab) {
    const locks = /** @type {LockManager} */ (this.env.locks);
    return new Promise((resolve) => {
      locks.request(lockName(tab), { ifAvailable: true }, (lock) => {
        resolve(!!lock);
        return lock ? new Promise(() => {}) : undefined;
      });
    });
  }

  /** Run `fn` if no page holds the lock of `tab` (it is gone); resolves to what fn returned, or null.
   * @template T @param {string} tab @param {() => T} fn @returns {Promise<T|null>} */
  whileGone(tab, fn) {
    const locks = /** @type {LockManager} */ (this.env.locks);
    return new Promise((resolve) => {
      locks.request(lockName(tab), { ifAvailable: true }, (lock) => { resolve(lock ? fn() : null); });
    });
  }

  /** @param {string} key @returns {Kept} */
  readKey(key) {
    try { return JSON.parse(this.env.local.getItem(key) || "{}"); } catch (err) { return {}; }
  }

  /** Pick this tab's entry: the id of an earlier page in this tab, unless another page holds it
   *  (a duplicated tab copies sessionStorage). */
  async claim() {
    let tab = this.env.session.getItem(TAB_KEY);
    if (this.env.locks) {
      if (!tab || !(await this.hold(tab))) { tab = this.newId(); await this.hold(tab); }
    } else if (!tab) {
      tab = this.newId();
    }
    this.env.session.setItem(TAB_KEY, tab);
    this.key = `${this.base}:${tab}`;
  }

  /** @returns {Kept} */
  read() { return this.key ? this.readKey(this.key) : {}; }

  /** Keep this tab's queue (an empty queue removes the entry). @param {{seq: number, queue: any[]}} data */
  write(data) {
    this.stop();
    if (!this.key) return;
    try {
      if (!data.queue.length) { this.env.local.removeItem(this.key); return; }
      this.env.local.setItem(this.key, JSON.stringify({ ...data, beat: this.env.now() }));
      if (!this.env.locks) this.timer = setInterval(() => this.write(data), BEAT_MS);
    } catch (err) { console.warn("could not keep unsaved edits in localStorage", err); }
  }

  /** Stop refreshing the timestamp (only runs without Web Locks). */
  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Entries of other tabs of this scene (and one from before queues were kept per tab). */
  others() {
    const prefix = this.base + ":";
    return storageKeys(this.env.local).filter((k) => k === this.base || (k.startsWith(prefix) && k !== this.key));
  }

  /** Whether some entry may belong to a tab that is gone (cheap: no storage is changed). */
  async hasOrphans() {
    const keys = this.others();
    if (!keys.length || !this.env.locks) return keys.length > 0;
    const held = new Set(((await this.env.locks.query()).held || []).map((l) => l.name));
    return keys.some((k) => k === this.base || !held.has(lockName(k.slice(this.base.length + 1))));
  }

  /** Take the queues of tabs that are gone, their entries removed from storage.
   * @returns {Promise<Kept[]>} */
  async adopt() {
    /** @type {Kept[]} */
    const found = [];
    const take = (/** @type {string} */ key) => { const data = this.readKey(key); this.env.local.removeItem(key); found.push(data); return data; };
    const prefix = this.base + ":";
    for (const key of this.others()) {
      if (key === this.base) { take(key); continue; }  // written before queues were kept per tab
      const tab = key.slice(prefix.length);
      if (this.env.locks) await this.whileGone(tab, () => take(key));
      else if (this.env.now() - (this.readKey(key).beat || 0) > STALE_MS) take(key);
    }
    return found;
  }
}
