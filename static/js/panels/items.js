// @ts-check
/* Items compiled from marks: list, compile (POST /api/items/) and submit for review. Items in
 * review or approved lock their marks: the server marks them `locked` and refuses edits (409). */

import { api, urlFor } from "../lib/api.js";
import { byId } from "../lib/dom.js";
import { itemEntry } from "./lists.js";

/** @typedef {import("../workspace/state.js").Workspace} Workspace */

export class ItemsPanel {
  /** @param {Workspace} ws */
  constructor(ws) {
    this.ws = ws;
    this.list = document.getElementById("items-list");
    if (this.list) {
      this.list.addEventListener("click", (ev) => {
        const btn = /** @type {HTMLButtonElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("[data-action=submit]"));
        const li = btn && /** @type {HTMLElement|null} */ (btn.closest("li[data-item-id]"));
        if (btn && li) this.submit(Number(li.dataset.itemId), btn);
      });
    }
  }

  render() {
    if (!this.list) return;
    const sorted = [...this.ws.items.values()].sort((a, b) => b.id - a.id);
    this.list.replaceChildren(...sorted.map((it) => itemEntry(it, { editable: this.ws.editable })));
    byId("items-count").textContent = String(sorted.length);
    byId("items-empty").classList.toggle("hidden", sorted.length > 0);
    this.ws.render();
  }

  /** The scene's items, where this user may list them. */
  async load() {
    const ws = this.ws;
    if (!ws.canListItems || !this.list) return;
    try {
      const items = await api.get(ws.cfg.itemsUrl + "?scene=" + ws.cfg.sceneId);
      ws.items.clear();
      items.forEach((/** @type {import("../lib/types.js").Item} */ it) => ws.items.set(it.id, it));
      this.render();
    } catch (err) { ws.fail(err); }
  }

  /** @param {number} markId @param {string} task @param {HTMLButtonElement} button */
  async compile(markId, task, button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Compiling…");
    try {
      const item = await api.post(ws.cfg.itemsUrl, { task, mark_ids: [markId] });
      ws.items.set(item.id, item);
      this.render();
      ws.setStatus("saved", `Compiled ${item.uid} (draft): check it below, then submit`);
    } catch (err) { ws.fail(err); }
    button.disabled = false;
  }

  /** @param {number} id @param {HTMLButtonElement} button */
  async submit(id, button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Submitting…");
    try {
      const item = await api.post(urlFor(ws.cfg.itemSubmitUrl, id));
      ws.items.set(item.id, item);
      await ws.store.refreshLocks();  // the submitted item's marks are locked now
      this.render();
      ws.setStatus("saved", `Submitted ${item.uid} for review`);
    } catch (err) { ws.fail(err); button.disabled = false; }
  }
}
