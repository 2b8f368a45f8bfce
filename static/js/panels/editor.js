// @ts-check
/* The mark editor in the side panel: label (restricted to the project's label set), time anchor,
 * task facts, field messages (the page's own checks and the server's 400s) and the conflict box.
 * With a mark selected (select tool) every change is saved; otherwise the fields are the draft
 * the next drawn shape takes. */

import { errorText } from "../lib/api.js";
import { byId, el } from "../lib/dom.js";
import { factWords } from "../lib/facts.js";
import { timeErrors } from "../lib/geom.js";
import { canonicalLabel, factErrors, labelError } from "../lib/marks.js";
import { showConflicts, wireConflictButtons } from "./conflict.js";

/** @typedef {import("../workspace/state.js").Workspace} Workspace */
/** @typedef {import("../lib/types.js").Facts} Facts */
/** @typedef {import("../lib/types.js").Mark} Mark */
/** @typedef {{label: string, time_start: number, time_end: number|null, facts: Facts}} Draft */

// The facts most marks take; a task's other facts (an event, an occlusion relation between two
// regions, ...) are asked for in the Items panel, where the task names the marks (panels/facts.js).
const FACT_FIELDS = /** @type {(keyof Facts)[]} */ (["visible", "first_seen_s", "count", "note"]);
const FACT_INPUTS = ["mark-visible", "fact-count", "fact-first-seen", "fact-note"];
const r3 = (/** @type {number} */ v) => Math.round(v * 1000) / 1000;

/** @param {string} id */
const field = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/** What a fact's field holds now (undefined when empty). @param {keyof Facts} key */
function factValue(key) {
  if (key === "visible") { const v = field("mark-visible").value; return v === "" ? undefined : v === "yes"; }
  if (key === "first_seen_s") { const v = field("fact-first-seen").value; return v === "" ? undefined : r3(Number(v)); }
  if (key === "count") { const v = field("fact-count").value; return v === "" ? undefined : Number(v); }
  return field("fact-note").value.trim() || undefined;
}

/** The facts fields over `base` (fields left empty remove the fact). @param {Facts} [base] @returns {Facts} */
function factsFromFields(base) {
  /** @type {Record<string, any>} */
  const facts = { ...(base || {}) };
  for (const key of FACT_FIELDS) {
    const v = factValue(key);
    if (v === undefined || Number.isNaN(v)) delete facts[key]; else facts[key] = v;
  }
  return facts;
}

/** The mark's facts that have no field here, in a line ("" when none).
 * @param {Record<string, any>} facts @param {(id: number) => string|undefined} [labelOf] another mark's label */
export function otherFacts(facts, labelOf) {
  const rest = Object.entries(facts).filter(([k]) => !(/** @type {string[]} */ (FACT_FIELDS)).includes(k));
  return rest.length ? "Also set (in Make items): " + rest.map(([k, v]) => `${k.replace(/_s$/, "").replace(/_/g, " ")}: ${factWords(v, labelOf)}`).join(" · ") : "";
}

export class Editor {
  /** @param {Workspace} ws @param {HTMLElement} root #editor */
  constructor(ws, root) {
    this.ws = ws;
    this.root = root;
    this.labels = ws.labels;
    /** The draft's time anchor: a null start is an instant at the cursor. @type {{start: number|null, end: number|null}} */
    this.anchorDraft = { start: null, end: null };
    byId("label-options").replaceChildren(...this.labels.map((l) => el("option", { value: l })));
    this.bind();
    ws.cursor.subscribe(() => { if (!this.selected()) this.renderAnchor(); });
    this.refresh();
  }

  /** The mark the fields edit: the selection while the select tool is on. @returns {Mark|null} */
  selected() {
    const ws = this.ws;
    return ws.tool === "none" && ws.selectedId !== null ? ws.store.get(ws.selectedId) || null : null;
  }

  /** @param {string} value */
  labelError(value) { return labelError(value, this.labels); }
  /** @param {Facts} facts */
  factErrors(facts) { return factErrors(facts, this.ws.cursor.duration); }

  /** After a shape is drawn: facts belong to that mark, the next one starts without them. */
  resetFacts() { FACT_INPUTS.forEach((id) => { field(id).value = ""; }); byId("fact-others").textContent = ""; }

  // ---- draft ---------------------------------------------------------------------------------
  /** The fields as the next drawn shape takes them. @returns {Draft} */
  draft() {
    const now = this.ws.cursor.now();
    const { start, end } = this.anchorDraft;
    return {
      label: canonicalLabel(field("mark-label").value, this.labels),
      time_start: start === null ? now : start,
      time_end: start === null ? null : end,
      facts: factsFromFields({}),
    };
  }

  /** @returns {Record<string, string>} */
  draftErrors() {
    const errors = { ...this.factErrors(this.draft().facts) };
    const le = this.labelError(field("mark-label").value);
    if (le) errors.label = le;
    return errors;
  }

  // ---- errors --------------------------------------------------------------------------------
  clearErrors() {
    this.root.querySelectorAll("[data-error-for]").forEach((n) => { n.textContent = ""; });
    this.root.querySelectorAll(".field.has-error").forEach((n) => n.classList.remove("has-error"));
    byId("mark-errors").classList.add("hidden");
    byId("mark-errors").replaceChildren();
  }

  /** Show each message next to its field; anything without a field goes in the box below.
   * @param {Record<string, any>} errors */
  showErrors(errors) {
    this.clearErrors();
    const loose = [];
    for (const [name, msgs] of Object.entries(errors || {})) {
      if (name === "current") continue;
      const text = (Array.isArray(msgs) ? msgs : [msgs]).map((m) => (typeof m === "object" ? errorText(m, 400) : String(m))).join(" ");
      // A fact's message ("facts.count") goes to the fact's own slot, else to the facts box.
      const slot = this.root.querySelector(`[data-error-for="${name}"]`) || (name.startsWith("facts.") ? this.root.querySelector('[data-error-for="facts"]') : null);
      if (slot) {
        slot.textContent = text;
        const wrap = slot.closest(".field");
        if (wrap) wrap.classList.add("has-error");
      } else {
        loose.push(el("li", { dataset: { field: name } }, name === "detail" || name === "non_field_errors" ? text : name + ": " + text));
      }
    }
    if (loose.length) {
      byId("mark-errors").replaceChildren(el("ul", {}, loose));
      byId("mark-errors").classList.remove("hidden");
    }
  }

  showConflicts() { showConflicts(this.ws); }

  // ---- showing the selection or the draft ------------------------------------------------------
  refresh() {
    const ws = this.ws;
    const mark = this.selected();
    const locked = !!mark && ws.isLocked(mark.id);
    const copies = !!mark && !locked && Boolean(mark.locked && mark.copy_on_edit);
    byId("editor-title").textContent = mark ? `Mark ${mark.id > 0 ? "#" + mark.id : "(new)"} · ${mark.kind === "polyline" ? "trajectory" : mark.kind}` : "New mark";
    byId("editor-hint").textContent = mark
      ? (locked ? "Part of an item in review or approved: it cannot change now."
        : copies ? "Shared with an item in review or approved, which keeps it as it is: your change goes to a copy that your rejected and draft items on it move to."
          : "Changes save automatically.")
      : ws.tool === "none" ? "Pick a tool (E, P, G, T) to draw; these fields apply to the next shape." : "These fields apply to the shape you are drawing.";
    byId("selected-actions").classList.toggle("hidden", !mark);
    this.root.classList.toggle("has-mark", !!mark);
    this.root.querySelectorAll("input, select, textarea, #anchor-instant, #anchor-start, #anchor-end, #first-seen-now, #delete-mark")
      .forEach((n) => { /** @type {HTMLInputElement} */ (n).disabled = locked; });
    // A shared mark is copied on edit, never deleted: the items in review or approved hold it.
    if (copies) field("delete-mark").disabled = true;
    // A trajectory's times come from its vertices while it is being recorded.
    if (!mark && ws.tool === "polyline") ["anchor-instant", "anchor-start", "anchor-end"].forEach((id) => { field(id).disabled = true; });
    if (mark) this.showMark(mark); else byId("fact-others").textContent = "";
    this.renderAnchor();
    this.showConflicts();
  }

  /** The selected mark's values in the fields (but not in the one the person is typing in). @param {Mark} mark */
  showMark(mark) {
    const setValue = (/** @type {string} */ id, /** @type {any} */ value) => { if (document.activeElement !== field(id)) field(id).value = value; };
    const f = mark.facts || {};
    setValue("mark-label", mark.label || "");
    setValue("mark-visible", f.visible === true ? "yes" : f.visible === false ? "no" : "");
    setValue("fact-first-seen", f.first_seen_s === undefined || f.first_seen_s === null ? "" : f.first_seen_s);
    setValue("fact-count", f.count === undefined || f.count === null ? "" : f.count);
    setValue("fact-note", f.note || "");
    byId("fact-others").textContent = otherFacts(f, (id) => { const m = this.ws.store.get(id); return m ? m.label : undefined; });
    const entry = this.ws.store.entryFor(mark.id);
    if (entry && entry.blocked === "invalid" && entry.errors) this.showErrors(entry.errors);
  }

  renderAnchor() {
    const mark = this.selected();
    const { start, end } = this.anchorDraft;
    let interval, text;
    if (mark) {
      interval = mark.time_end !== null && mark.time_end !== undefined;
      text = interval ? `Interval ${mark.time_start.toFixed(2)} s – ${Number(mark.time_end).toFixed(2)} s` : `Instant at ${mark.time_start.toFixed(2)} s`;
      if (mark.kind === "polyline" && (mark.vertex_times || []).length) text += ` · ${(mark.vertex_times || []).length} timed vertices`;
    } else {
      interval = start !== null && end !== null;
      if (start === null) text = `Instant at the video cursor (t = ${this.ws.cursor.t.toFixed(2)} s)`;
      else if (end === null) text = `Instant at ${start.toFixed(2)} s — End (]) makes it an interval`;
      else text = `Interval ${start.toFixed(2)} s – ${end.toFixed(2)} s`;
      if (this.ws.tool === "polyline") text = "Trajectory: each vertex takes the video time when you click";
    }
    byId("anchor-instant").classList.toggle("active", !interval);
    byId("anchor-start").classList.toggle("active", interval);
    byId("anchor-end").classList.toggle("active", interval);
    byId("anchor-display").textContent = text;
  }

  // ---- saving ----------------------------------------------------------------------------------
  /** Save a change to the selected mark after the page's own checks.
   * @param {Record<string, any>} changes @param {boolean} [typing] keystrokes: one undo step */
  save(changes, typing = false) {
    const mark = this.selected();
    if (!mark || this.ws.isLocked(mark.id)) return false;
    const merged = { ...mark, ...changes };
    /** @type {Record<string, string>} */
    const errors = { ...timeErrors(merged, this.ws.cursor.duration), ...(changes.facts ? this.factErrors(changes.facts) : {}) };
    if ("label" in changes) { const le = this.labelError(changes.label); if (le) errors.label = le; }
    if (Object.keys(errors).length) { this.showErrors(errors); return false; }
    this.clearErrors();
    this.ws.history.update(mark.id, changes, { typing });
    return true;
  }

  /** `[` start = now, `]` end = now, `i` instant at now: on the selected mark, or the draft.
   * @param {"start"|"end"|"instant"} which */
  anchor(which) {
    const now = this.ws.cursor.now();
    if (this.selected()) {
      if (which === "start") this.save({ time_start: now });
      else if (which === "end") this.save({ time_end: now });
      else this.save({ time_start: now, time_end: null });
      this.renderAnchor();
      return;
    }
    const a = this.anchorDraft;
    this.clearErrors();
    if (which === "start") {
      a.start = now;
      if (a.end !== null && a.end < a.start) a.end = null;
    } else if (which === "end") {
      if (a.start === null) this.showErrors({ time_start: "set the start ([) before the end of the interval" });
      else if (now < a.start) this.showErrors({ time_end: `the interval would end (${now.toFixed(2)} s) before it starts (${a.start.toFixed(2)} s)` });
      else a.end = now;
    } else {
      a.start = a.end = null;
    }
    this.renderAnchor();
  }

  // ---- field events ----------------------------------------------------------------------------
  bind() {
    const label = field("mark-label");
    label.addEventListener("input", () => {
      if (this.labelError(label.value)) return;
      this.clearErrors();
      const mark = this.selected();
      if (mark && canonicalLabel(label.value, this.labels) !== mark.label) this.save({ label: canonicalLabel(label.value, this.labels) }, true);
    });
    label.addEventListener("change", () => {
      const le = this.labelError(label.value);
      const mark = this.selected();
      if (le) this.showErrors({ label: le });
      else if (mark && canonicalLabel(label.value, this.labels) !== mark.label) this.save({ label: canonicalLabel(label.value, this.labels) });
    });
    const factEvents = [["mark-visible", "change"], ["fact-first-seen", "change"],
      ["fact-count", "change"], ["fact-note", "input"], ["fact-first-seen", "input"], ["fact-count", "input"]];
    for (const [id, ev] of factEvents) field(id).addEventListener(ev, () => this.onFact(ev === "input"));
    byId("first-seen-now").addEventListener("click", () => {
      field("fact-first-seen").value = String(this.ws.cursor.now());
      field("fact-first-seen").dispatchEvent(new Event("change"));
    });
    byId("anchor-instant").addEventListener("click", () => this.anchor("instant"));
    byId("anchor-start").addEventListener("click", () => this.anchor("start"));
    byId("anchor-end").addEventListener("click", () => this.anchor("end"));
    byId("copy-now").addEventListener("click", () => this.ws.actions.copy());
    byId("delete-mark").addEventListener("click", () => this.ws.actions.remove());
    wireConflictButtons(this.ws, () => this.refresh());
  }

  /** A fact field changed: save it on the selected mark, or check the draft. @param {boolean} typing */
  onFact(typing) {
    const mark = this.selected();
    if (!mark) { this.showErrors(this.factErrors(factsFromFields({}))); return; }
    const facts = factsFromFields(mark.facts);
    if (JSON.stringify(facts) !== JSON.stringify(mark.facts || {})) this.save({ facts }, typing);
  }
}

/** The editor, or null where nothing can be drawn or edited (read-only, or no satellite image).
 * @param {Workspace} ws */
export function setupEditor(ws) {
  const root = document.getElementById("editor");
  ws.editor = ws.editable && root ? new Editor(ws, root) : null;
  return ws.editor;
}
