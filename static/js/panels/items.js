// @ts-check
/* The scene's items: listed with their model view, submitted for review, compiled again when a mark
 * they were built from changed (stale: a badge and the reason). Items in review or approved lock
 * their marks: the server marks them `locked` and refuses edits (409). */

import { api, getAll, urlFor } from "../lib/api.js";
import { byId, el } from "../lib/dom.js";
import { imageName } from "../workspace/images.js";
import { FILTERS, Selection, filterItems, summary } from "./bulk.js";
import { viewsPending } from "./item_pick.js";
import { itemEntry } from "./lists.js";

/** @typedef {import("../workspace/state.js").Workspace} Workspace */
/** @typedef {import("../lib/types.js").Item} Item */

// Model views are drawn by a job after compiling; the list asks again this often, this many times.
const VIEW_POLL_MS = 1500;
const VIEW_POLL_TRIES = 80;

/** Items that need the author first (stale, not yet replaced), then the newest. @param {Item} it */
const needsYou = (it) => Boolean(it.stale && !it.replaced_by && (it.state === "draft" || it.state === "rejected"));

export class ItemsPanel {
  /** @param {Workspace} ws */
  constructor(ws) {
    this.ws = ws;
    this.list = document.getElementById("items-list");
    /** Why the server refused an action on an item (shown on its row until the next try). @type {Map<number, string>} */
    this.refusals = new Map();
    this.polls = 0;
    this.busy = false;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.pollTimer = undefined;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.reloadTimer = undefined;
    /** Items chosen for a bulk action; the filter says which items the list shows. */
    this.selection = new Selection();
    this.filter = "all";
    if (this.list) {
      this.setupBulk();
      this.list.addEventListener("click", (ev) => {
        const btn = /** @type {HTMLButtonElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("button[data-action]"));
        const li = btn && /** @type {HTMLElement|null} */ (btn.closest("li[data-item-id]"));
        if (!btn || !li) return;
        if (btn.dataset.action === "submit") this.submit(Number(li.dataset.itemId), btn);
        if (btn.dataset.action === "recompile") this.recompile(Number(li.dataset.itemId), btn);
        if (btn.dataset.action === "revise") this.revise(Number(li.dataset.itemId), btn);
        if (btn.dataset.action === "withdraw") this.withdraw(Number(li.dataset.itemId), btn);
      });
      // Saving a mark can make items built from it stale: the server says which.
      ws.store.on("status", (/** @type {string} */ state) => { if (state === "saved") this.reloadSoon(); });
      // An edit of a shared locked mark was copied: the author's items on it moved to the copy.
      ws.store.on("forked", () => this.reloadSoon());
    }
  }

  render() {
    if (!this.list) return;
    const sorted = [...this.ws.items.values()].sort((a, b) => Number(needsYou(b)) - Number(needsYou(a)) || b.id - a.id);
    const shown = filterItems(sorted, this.filter);
    this.selection.keepOnly(shown.map((it) => it.id));
    const recordUrl = this.ws.cfg.itemRecordUrl;
    const several = this.ws.images.length > 1;
    this.list.replaceChildren(...shown.map((it) => itemEntry(it, {
      editable: this.ws.editable, recordUrl, refusal: this.refusals.get(it.id),
      image: several ? imageName(this.ws, it.satellite_image) : "", selected: this.selection.has(it.id),
    })));
    byId("items-count").textContent = shown.length === sorted.length ? String(sorted.length) : `${shown.length} of ${sorted.length}`;
    byId("items-empty").classList.toggle("hidden", shown.length > 0);
    this.renderBulk(shown);
    this.ws.render();
  }

  /** The filter, the select-all box, the selection's checkboxes and the bulk buttons. */
  setupBulk() {
    const filter = /** @type {HTMLSelectElement|null} */ (document.getElementById("items-filter"));
    if (filter) {
      filter.replaceChildren(...Object.entries(FILTERS).map(([value, words]) => el("option", { value }, words)));
      filter.addEventListener("change", () => { this.filter = filter.value; this.render(); });
    }
    const all = /** @type {HTMLInputElement|null} */ (document.getElementById("items-select-all"));
    if (all) {
      all.addEventListener("change", () => {
        const shown = filterItems(this.ws.items.values(), this.filter).map((it) => it.id);
        this.selection.setAll(shown, all.checked);
        this.render();
      });
    }
    /** @type {HTMLElement} */ (this.list).addEventListener("change", (ev) => {
      const box = /** @type {HTMLInputElement} */ (ev.target);
      const li = /** @type {HTMLElement|null} */ (box.closest("li[data-item-id]"));
      if (box.dataset.action !== "select" || !li) return;
      this.selection.toggle(Number(li.dataset.itemId), box.checked);
      this.render();
    });
    document.querySelectorAll("#items-bulk [data-bulk]").forEach((b) => b.addEventListener("click", () => {
      this.bulk(/** @type {import("./bulk.js").BulkAction} */ (/** @type {HTMLElement} */ (b).dataset.bulk));
    }));
  }

  /** @param {Item[]} shown */
  renderBulk(shown) {
    const all = /** @type {HTMLInputElement|null} */ (document.getElementById("items-select-all"));
    if (all) {
      const state = this.selection.state(shown.map((it) => it.id));
      all.checked = state === "all" && shown.length > 0;
      all.indeterminate = state === "some";
    }
    document.querySelectorAll("#items-bulk [data-bulk]").forEach((node) => {
      const button = /** @type {HTMLButtonElement} */ (node);
      const n = this.selection.actionable(shown, /** @type {import("./bulk.js").BulkAction} */ (button.dataset.bulk)).length;
      /** @type {HTMLElement} */ (button.querySelector(".n")).textContent = String(n);
      button.disabled = n === 0 || this.busy;
    });
  }

  /** One request for every selected item the action applies to; each item's result goes on its row.
   * @param {import("./bulk.js").BulkAction} action */
  async bulk(action) {
    const ws = this.ws;
    const listed = filterItems(ws.items.values(), this.filter);
    const ids = this.selection.actionable(listed, action);
    if (!ids.length) return;
    if (action === "withdraw" && !window.confirm(`Withdraw ${ids.length} item${ids.length === 1 ? "" : "s"}? They leave review for good; their reviews stay on their records.`)) return;
    this.busy = true;
    this.renderBulk(listed);
    ws.setStatus("saving", `${action === "submit" ? "Submitting" : action === "recompile" ? "Compiling again" : "Withdrawing"} ${ids.length}…`);
    try {
      const body = await api.post(ws.cfg.itemsBulkUrl, { action, ids });
      const uids = new Map(ids.map((id) => [id, (ws.items.get(id) || { uid: "#" + id }).uid]));
      for (const r of /** @type {import("./bulk.js").BulkResult[]} */ (body.results)) this.applyResult(r);
      if (action !== "recompile") await ws.store.refreshLocks();  // submitted marks lock, withdrawn ones free
      const text = summary(action, body.results, (id) => uids.get(id) || "#" + id);
      const box = byId("bulk-summary");
      box.textContent = text;
      box.classList.remove("hidden");
      box.classList.toggle("refused", body.refused > 0);
      ws.setStatus(body.refused ? "error" : "saved", text);
      if (action === "recompile") this.watchViews();
    } catch (err) { ws.fail(err); }
    this.busy = false;
    this.render();
    this.reloadSoon();  // a refused item may be stale by now, or changed elsewhere: list it as it is
  }

  /** An item's result from a bulk action: the item as it is now, or why it was refused.
   * @param {import("./bulk.js").BulkResult} r */
  applyResult(r) {
    const ws = this.ws;
    if (!r.ok || !r.item) { this.refusals.set(r.id, r.error); return; }
    this.refusals.delete(r.id);
    this.selection.toggle(r.id, false);
    if (r.item.id !== r.id) {  // compiled again as a new item: a draft goes, a rejected one stays replaced
      const old = ws.items.get(r.id);
      if (old && old.state === "draft") ws.items.delete(r.id);
      else if (old) ws.items.set(r.id, { ...old, replaced_by: r.item.id });
    }
    ws.items.set(r.item.id, r.item);
  }

  /** The scene's items, where this user may list them. */
  async load() {
    const ws = this.ws;
    if (!ws.canListItems || !this.list) return;
    try {
      const items = await getAll(api, ws.cfg.itemsUrl + "?scene=" + ws.cfg.sceneId);
      ws.items.clear();
      items.forEach((/** @type {Item} */ it) => ws.items.set(it.id, it));
      this.render();
      this.watchViews();
    } catch (err) { ws.fail(err); }
  }

  reloadSoon() {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => this.load(), 600);
  }

  /** Ask again about items whose model view is still being drawn, until they are done. */
  watchViews() {
    clearTimeout(this.pollTimer);
    this.polls = 0;
    this.pollTimer = setTimeout(() => this.pollViews(), VIEW_POLL_MS);
  }

  async pollViews() {
    const ids = viewsPending(this.ws.items.values());
    if (!ids.length || this.polls++ > VIEW_POLL_TRIES) return;
    try {
      for (const id of ids) this.ws.items.set(id, await api.get(urlFor(this.ws.cfg.itemUrl, id)));
      this.render();
    } catch (err) { /* the next round asks again */ }
    this.pollTimer = setTimeout(() => this.pollViews(), VIEW_POLL_MS);
  }

  /** The next revision of a rejected item, compiled again from its marks as they are now (a draft
   * to check and submit). @param {number} id @param {HTMLButtonElement} button */
  async revise(id, button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Revising…");
    const seconds = ws.effort.take();
    try {
      const item = await api.post(urlFor(ws.cfg.itemReviseUrl, id), { active_seconds: seconds });
      ws.items.set(item.id, item);
      this.render();
      ws.setStatus("saved", `Revised ${item.uid} (revision ${item.revision}, draft): check it, then submit`);
    } catch (err) { ws.effort.giveBack(seconds); ws.fail(err); button.disabled = false; }
  }

  /** Give a rejected item up for good (it never returns to a queue). @param {number} id @param {HTMLButtonElement} button */
  async withdraw(id, button) {
    const ws = this.ws;
    const item = ws.items.get(id);
    if (!window.confirm(`Withdraw ${item ? item.uid : "#" + id}? It leaves review for good; its reviews stay on its record.`)) return;
    button.disabled = true;
    ws.setStatus("saving", "Withdrawing…");
    try {
      const withdrawn = await api.post(urlFor(ws.cfg.itemWithdrawUrl, id), {});
      ws.items.set(withdrawn.id, withdrawn);
      await ws.store.refreshLocks();  // its marks are free again, unless another item holds them
      this.render();
      ws.setStatus("saved", `Withdrew ${withdrawn.uid}`);
    } catch (err) { ws.fail(err); button.disabled = false; }
  }

  /** @param {number} id @param {HTMLButtonElement} button */
  async submit(id, button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Submitting…");
    const seconds = ws.effort.take();
    this.refusals.delete(id);
    try {
      const item = await api.post(urlFor(ws.cfg.itemSubmitUrl, id), { active_seconds: seconds });
      ws.items.set(item.id, item);
      await ws.store.refreshLocks();  // the submitted item's marks are locked now
      this.render();
      ws.setStatus("saved", `Submitted ${item.uid} for review`);
    } catch (err) {
      ws.effort.giveBack(seconds);
      ws.fail(err);
      // e.g. a revision unchanged since the rejection: the sentence says what to change
      this.refusals.set(id, err instanceof Error ? err.message : String(err));
      this.render();
    }
  }

  /** A fresh draft from the item's marks as they are now; the old draft goes, a rejected one stays as history.
   * @param {number} id @param {HTMLButtonElement} button */
  async recompile(id, button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Compiling again…");
    const seconds = ws.effort.take();
    try {
      const item = await api.post(urlFor(ws.cfg.itemRecompileUrl, id), { active_seconds: seconds });
      this.refusals.delete(id);
      const old = ws.items.get(id);
      if (old && old.state === "draft" && item.id !== id) ws.items.delete(id);
      else if (old) ws.items.set(id, { ...old, replaced_by: item.id });
      ws.items.set(item.id, item);
      this.render();
      this.watchViews();
      ws.setStatus("saved", `Compiled ${item.uid} again from the current marks`);
    } catch (err) { ws.effort.giveBack(seconds); ws.fail(err); button.disabled = false; }
  }
}
