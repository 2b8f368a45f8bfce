// @ts-check
/* Making items: the marks picked for an item, in order; the 12 tasks, each ready or saying what is
 * missing (the server's templates decide: POST /api/items/check/), with the facts the task reads on
 * those marks as fields to set in place (panels/facts.js); a preview of the question, the
 * options and the model view before anything is saved (POST /api/items/preview/); and compiling all
 * a scene's marks allow. Active time goes with every item made (workspace/effort.js). */

import { api } from "../lib/api.js";
import { byId, el } from "../lib/dom.js";
import { clockText } from "../workspace/effort.js";
import { factFields, saveFact } from "./facts.js";
import { batchSummary, livePicks, refusalLines, movePick, taskStatus, togglePick, unsavedPicks } from "./item_pick.js";
import { TASK_LABELS } from "./lists.js";

/** @typedef {import("../workspace/state.js").Workspace} Workspace */
/** @typedef {import("./item_pick.js").TaskCheck} TaskCheck */

const KIND_NAMES = /** @type {Record<string, string>} */ ({ point: "point", polygon: "polygon", ellipse: "ellipse", polyline: "trajectory" });

export class Composer {
  /** @param {Workspace} ws */
  constructor(ws) {
    this.ws = ws;
    /** @type {number[]} */
    this.picked = [];
    /** @type {TaskCheck[]} */
    this.checks = [];
    this.checkError = "";
    /** Tasks whose facts the person opened (kept open across checks). @type {Set<string>} */
    this.openFacts = new Set();
    this.seq = 0;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.timer = undefined;
    /** @type {{task: string, mark_ids: number[], seed: number}|null} the item the preview shows */
    this.previewing = null;
    this.overlay = byId("preview-overlay");
    this.bind();
    this.render();
    this.check();
  }

  bind() {
    byId("pick-selected").addEventListener("click", () => { if (this.ws.selectedId !== null) this.toggle(this.ws.selectedId); });
    byId("pick-clear").addEventListener("click", () => { this.picked = []; this.changed(); });
    byId("picked").addEventListener("click", (ev) => {
      const btn = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("[data-action]"));
      const li = btn && /** @type {HTMLElement|null} */ (btn.closest("li[data-mark-id]"));
      if (!btn || !li) return;
      const id = Number(li.dataset.markId);
      if (btn.dataset.action === "unpick") this.picked = togglePick(this.picked, id);
      else this.picked = movePick(this.picked, id, btn.dataset.action === "up" ? -1 : 1);
      this.changed();
    });
    byId("task-list").addEventListener("click", (ev) => {
      const btn = /** @type {HTMLButtonElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("button[data-task]"));
      if (!btn) return;
      if (btn.dataset.action === "preview") this.openPreview(btn.dataset.task || "", btn);
      else this.save({ task: btn.dataset.task || "", mark_ids: [...this.picked] }, btn);
    });
    this.bindFacts();
    byId("compile-all").addEventListener("click", (ev) => this.compileAll(/** @type {HTMLButtonElement} */ (ev.currentTarget)));
    byId("preview-close").addEventListener("click", () => this.closePreview());
    byId("preview-save").addEventListener("click", (ev) => {
      if (this.previewing) this.save(this.previewing, /** @type {HTMLButtonElement} */ (ev.currentTarget));
    });
    this.overlay.addEventListener("click", (ev) => { if (ev.target === this.overlay) this.closePreview(); });
    // A picked mark's facts or shape changed, or a new one got its id: ask the templates again.
    this.ws.store.on("change", (/** @type {number} */ id) => { if (this.picked.includes(id)) this.checkSoon(); });
    this.ws.store.on("rekey", () => { this.picked = this.live(); this.checkSoon(); this.render(); });
    this.ws.store.on("remove", () => { this.changed(); });
  }

  bindFacts() {
    const list = byId("task-list");
    list.addEventListener("change", (ev) => {
      const input = /** @type {HTMLInputElement} */ (ev.target);
      if (input.dataset.factId) this.factChanged(input);
    });
    list.addEventListener("click", (ev) => {
      const now = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("[data-fact-now]"));
      const input = now && /** @type {HTMLInputElement|null} */ (now.parentElement?.querySelector("input[data-fact-id]") || null);
      if (!input) return;
      input.value = String(this.ws.cursor.now());
      this.factChanged(input);
    });
    list.addEventListener("toggle", (ev) => {
      const details = /** @type {HTMLDetailsElement} */ (ev.target);
      const task = details.dataset.task || "";
      if (details.open) this.openFacts.add(task); else this.openFacts.delete(task);
    }, true);
    // The server refused a picked mark's facts (a 400): show it under the field.
    this.ws.store.on("invalid", (/** @type {number} */ id) => { if (this.picked.includes(id)) this.renderTasks(); });
  }

  /** A fact field changed: check it here, then save it on its mark. @param {HTMLInputElement} input */
  factChanged(input) {
    const row = /** @type {HTMLElement|null} */ (input.closest("details[data-task]"));
    const check = row && this.checks.find((t) => t.task === row.dataset.task);
    const index = Number(input.id.split("-").pop());
    const field = check && check.fields[index];
    if (!field) return;
    const refused = saveFact(this.ws, field, input.value);
    const slot = /** @type {HTMLElement|null} */ (input.closest(".field")?.querySelector(".field-error") || null);
    if (slot) slot.textContent = refused;
    input.closest(".field")?.classList.toggle("has-error", Boolean(refused));
  }

  /** The message the server gave for this fact of this mark, while that edit waits for the person.
   * @param {import("../lib/facts.js").FactField} f */
  serverError(f) {
    const entry = this.ws.store.entryFor(f.mark);
    const errors = entry && entry.blocked === "invalid" ? entry.errors || {} : {};
    const message = errors["facts." + f.key];
    return message ? (Array.isArray(message) ? message.join(" ") : String(message)) : "";
  }

  get previewOpen() { return !this.overlay.classList.contains("hidden"); }

  /** Where a mark is in the pick order (0-based), or -1. @param {number} id */
  position(id) { return this.picked.indexOf(this.ws.store.resolve(id)); }

  /** @param {number} id */
  toggle(id) { this.picked = togglePick(this.live(), this.ws.store.resolve(id)); this.changed(); }

  live() {
    const store = this.ws.store;
    return livePicks(this.picked, (id) => store.resolve(id), (id) => Boolean(store.get(id)));
  }

  changed() {
    this.picked = this.live();
    this.render();
    this.ws.render();  // the marks list shows which are picked
    this.checkSoon();
  }

  checkSoon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), 250);
  }

  async check() {
    const seq = ++this.seq;
    const ids = this.live();
    if (unsavedPicks(ids).length) {
      this.checkError = "a picked mark is not saved yet; the tasks are checked once it is";
      this.renderTasks();
      return;
    }
    try {
      const body = await api.post(this.ws.cfg.itemsCheckUrl, { mark_ids: ids });
      if (seq !== this.seq) return;  // a later pick has asked again
      this.checks = body.tasks;
      this.checkError = "";
    } catch (err) {
      if (seq !== this.seq) return;
      this.checkError = err instanceof Error ? err.message : String(err);
    }
    this.renderTasks();
  }

  render() {
    const store = this.ws.store;
    byId("picked").replaceChildren(...this.picked.map((id, i) => {
      const m = store.get(id);
      return el("li", { dataset: { markId: id } },
        el("span", { class: "grow" }, m ? `${m.label} ` : "", el("span", { class: "muted small" }, m ? `${KIND_NAMES[m.kind] || m.kind} #${id}` : `#${id}`)),
        el("button", { type: "button", title: "Earlier", "aria-label": "Earlier", disabled: i === 0, dataset: { action: "up" } }, "↑"),
        el("button", { type: "button", title: "Later", "aria-label": "Later", disabled: i === this.picked.length - 1, dataset: { action: "down" } }, "↓"),
        el("button", { type: "button", title: "Take out", "aria-label": "Take out", dataset: { action: "unpick" } }, "×"));
    }));
  }

  renderTasks() {
    const n = this.picked.length;
    const ws = this.ws;
    const factOpts = (/** @type {string} */ task) => ({
      locked: (/** @type {number} */ id) => ws.isLocked(id), serverError: (/** @type {any} */ f) => this.serverError(f),
      labels: ws.labels, open: this.openFacts.has(task),
    });
    const rows = this.checks.map((t) => {
      const status = this.checkError ? { ready: false, text: this.checkError } : taskStatus(t, n);
      const why = status.ready ? t.derives : status.text;
      // Only a task the marks can make offers its buttons; the others say what is missing.
      return el("li", { class: status.ready ? "ready" : "", dataset: { task: t.task, testid: "task-" + t.task } },
        el("span", { class: "name" }, (status.ready ? "✓ " : "") + t.label),
        status.ready ? el("span", { class: "btn-row" },
          el("button", { class: "btn small", type: "button", dataset: { task: t.task, action: "preview" } }, "Preview"),
          el("button", { class: "btn small primary", type: "button", dataset: { task: t.task, action: "compile" } }, "Compile")) : el("span"),
        el("span", { class: "why", title: why }, why),
        !this.checkError && t.fields && t.fields.length ? factFields(t.task, t.fields, factOpts(t.task)) : null);
    });
    // A check answers while the person may be in a fact field: keep them there, with what they typed.
    const active = /** @type {HTMLInputElement|null} */ (document.activeElement);
    const list = byId("task-list");
    const keep = active && list.contains(active) && active.id ? { id: active.id, value: active.value } : null;
    list.replaceChildren(...rows);
    const again = keep && /** @type {HTMLInputElement|null} */ (document.getElementById(keep.id));
    if (keep && again) { again.value = keep.value; again.focus(); }
  }

  /** @param {string} task @param {HTMLButtonElement} button */
  async openPreview(task, button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Drawing the preview…");
    try {
      const p = await api.post(ws.cfg.itemsPreviewUrl, { task, mark_ids: this.picked });
      this.previewing = { task, mark_ids: [...this.picked], seed: p.seed };
      this.fillPreview(p);
      this.overlay.classList.remove("hidden");
      byId("preview-save").focus();
      ws.setStatus("idle", "Preview: save it as a draft, or close it and change the marks");
    } catch (err) { ws.fail(err); }
    button.disabled = false;
  }

  /** @param {any} p the preview as POST /api/items/preview/ answers */
  fillPreview(p) {
    byId("preview-title").textContent = "Preview · " + (TASK_LABELS[p.task] || p.task);
    byId("preview-question").textContent = p.question;
    byId("preview-options").replaceChildren(...(p.options.length
      ? p.options.map((/** @type {string} */ o) => el("li", { class: o === p.answer ? "key" : "" }, o))
      : [el("li", { class: "key", style: "list-style: none" }, "Answer: " + p.answer)]));
    const view = p.model_view;
    const segment = view.segment_s;
    byId("preview-meta").textContent = [
      `format: ${p.answer_format.replace("_", " ")}`, `template ${p.template}`, `seed ${p.seed}`,
      segment ? `the model gets the video from ${segment[0].toFixed(1)} to ${segment[1].toFixed(1)} s` : "the model gets the whole video",
    ].join(" · ");
    /** @type {HTMLImageElement} */ (byId("preview-image")).src = view.image;
    byId("preview-option-images").replaceChildren(...view.options.map((/** @type {{option: string, image: string}} */ o) =>
      el("figure", {}, el("img", { src: o.image, alt: "Option " + o.option }), el("figcaption", { class: "small" }, "Option " + o.option))));
    const video = /** @type {HTMLVideoElement} */ (byId("preview-video"));
    video.classList.toggle("hidden", !segment);
    if (segment) video.src = `${this.ws.cfg.videoUrl}#t=${segment[0]},${segment[1]}`;
    else video.removeAttribute("src");
  }

  closePreview() {
    this.overlay.classList.add("hidden");
    this.previewing = null;
    /** @type {HTMLVideoElement} */ (byId("preview-video")).pause();
  }

  /** Compile and save one item; the active time since the last item goes with it.
   * @param {{task: string, mark_ids: number[], seed?: number}} what @param {HTMLButtonElement} button */
  async save(what, button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Compiling…");
    const seconds = ws.effort.take();
    try {
      const item = await api.post(ws.cfg.itemsUrl, { ...what, active_seconds: seconds });
      ws.items.set(item.id, item);
      ws.itemsPanel.render();
      ws.itemsPanel.watchViews();
      this.closePreview();
      ws.setStatus("saved", `Compiled ${item.uid} (${TASK_LABELS[item.task] || item.task}, draft): check it in the list, then submit`);
    } catch (err) {
      ws.effort.giveBack(seconds);
      ws.fail(err);
    }
    button.disabled = false;
  }

  /** @param {HTMLButtonElement} button */
  async compileAll(button) {
    const ws = this.ws;
    button.disabled = true;
    ws.setStatus("saving", "Compiling every item the marks allow…");
    const seconds = ws.effort.take();
    try {
      const body = await api.post(ws.cfg.compileAllUrl, { active_seconds: seconds });
      for (const item of body.items) ws.items.set(item.id, item);
      if (!body.items.length) ws.effort.giveBack(seconds);
      ws.itemsPanel.render();
      ws.itemsPanel.watchViews();
      ws.setStatus("saved", batchSummary(body, TASK_LABELS));
      this.showRefusals(body);
    } catch (err) {
      ws.effort.giveBack(seconds);
      ws.fail(err);
    }
    button.disabled = false;
  }

  /** Every combination the templates refused, with its marks and the reason, under the button.
   * @param {import("./item_pick.js").BatchBody} body */
  showRefusals(body) {
    const lines = refusalLines(body, TASK_LABELS);
    const list = byId("compile-refusals");
    list.replaceChildren(...lines.map((line) => el("li", { dataset: { task: line.task, marks: line.marks.join(",") } }, line.text)));
    list.hidden = !lines.length;
  }

  /** The clock in the panel's title. @param {number} seconds */
  showClock(seconds) { byId("effort-clock").textContent = "active " + clockText(seconds); }
}
