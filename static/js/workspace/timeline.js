// @ts-check
/* The full-width timeline under the split: a time ruler, the filmstrip, one lane row per
 * overlapping set of marks (instants as ticks, intervals as bars, trajectories as bars with a
 * tick per vertex) and the time cursor. Click or drag anywhere on it to move the cursor. */

import { byId, el } from "../lib/dom.js";
import { INSTANT_WINDOW_S } from "../lib/geom.js";
import { clock } from "../lib/time.js";
import * as filmstrip from "./filmstrip.js";

/** @typedef {import("../lib/types.js").Mark} Mark */
/** @typedef {import("./cursor.js").TimeCursor} TimeCursor */
/**
 * How to draw the spans: the selection, the reviewed item's marks, marks of rejected items, hidden labels.
 * @typedef {{selectedId?: number|null, highlighted?: Set<number>, flagged?: Map<number, any>, hidden?: (mark: Mark) => boolean}} SpanView
 */

const LANE_PX = 14;
const STEPS = [0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600];

export class Timeline {
  /** @param {{cursor: TimeCursor, onSelect: (id: number, t: number) => void}} opts */
  constructor(opts) {
    this.cursor = opts.cursor;
    this.onSelect = opts.onSelect;
    this.body = byId("tl-body");
    this.ruler = byId("tl-ruler");
    this.film = byId("filmstrip");
    this.lanes = byId("tl-lanes");
    this.line = byId("tl-cursor");
    /** @type {import("../lib/vtt.js").Frame[]} */
    this.frames = [];
    /** @type {Mark[]} */
    this.marks = [];
    /** @type {SpanView} */
    this.view = {};
    this.dragging = false;
    this.bindPointer();
    new ResizeObserver(() => this.layout()).observe(this.body);
  }

  get duration() { return this.cursor.duration || 0; }

  /** Load the filmstrip (sprite track or keyframes).
   * @param {{vttUrl: string|null, keyframesUrl: string}} opts */
  async loadFilmstrip(opts) {
    try {
      const { source, frames } = await filmstrip.loadFrames({ ...opts, duration: this.duration });
      this.frames = frames;
      this.film.dataset.source = source;
      if (!frames.length) this.film.replaceChildren(el("span", { class: "tl-empty" }, "No keyframes yet."));
      else filmstrip.render(this.film, frames, this.duration);
    } catch (err) {
      this.film.replaceChildren(el("span", { class: "tl-empty" }, "Filmstrip: " + err.message));
    }
  }

  layout() {
    if (this.frames.length) filmstrip.render(this.film, this.frames, this.duration);
    this.renderRuler();
    this.renderMarks(this.marks, this.view);
    this.update(this.cursor.t);
  }

  pct(t) { return this.duration ? (Math.max(0, Math.min(t, this.duration)) / this.duration) * 100 : 0; }

  renderRuler() {
    const d = this.duration, width = this.ruler.clientWidth;
    if (!d || !width) { this.ruler.replaceChildren(); return; }
    const step = STEPS.find((s) => (s / d) * width >= 56) || STEPS[STEPS.length - 1];
    const ticks = [];
    for (let t = 0; t <= d + 1e-6; t += step) {
      ticks.push(el("span", { class: "tl-tick", style: `left:${this.pct(t)}%` }, clock(t).replace(/\.00$/, "") + "s"));
    }
    this.ruler.replaceChildren(...ticks);
  }

  /** Draw the marks' time spans. @param {Mark[]} marks @param {SpanView} [view] */
  renderMarks(marks, view) {
    this.marks = marks;
    this.view = view || {};
    const width = this.lanes.clientWidth || 1;
    const d = this.duration;
    const shown = marks.filter((m) => !(this.view.hidden && this.view.hidden(m)))
      .sort((a, b) => a.time_start - b.time_start || String(a.id).localeCompare(String(b.id)));
    // Pack spans into as few lanes as possible; an instant takes a few pixels of room.
    const laneEnds = [];
    const nodes = shown.map((m) => {
      const end = m.time_end === null || m.time_end === undefined ? m.time_start : m.time_end;
      const x0 = d ? (m.time_start / d) * width : 0, x1 = Math.max(d ? (end / d) * width : 0, x0 + 8);
      let lane = laneEnds.findIndex((e) => e < x0 - 2);
      if (lane < 0) { lane = laneEnds.length; laneEnds.push(x1); } else laneEnds[lane] = x1;
      return this.spanNode(m, lane, end);
    });
    this.lanes.replaceChildren(...nodes);
    this.lanes.style.setProperty("--lanes", String(Math.max(1, laneEnds.length)));
    this.update(this.cursor.t);
  }

  spanNode(m, lane, end) {
    const instant = m.time_end === null || m.time_end === undefined;
    const classes = ["tl-span", "kind-" + m.kind, instant ? "instant" : "interval"];
    if (m.id === this.view.selectedId) classes.push("selected");
    if (this.view.highlighted && this.view.highlighted.has(m.id)) classes.push("highlight");
    if (this.view.flagged && this.view.flagged.has(m.id)) classes.push("flagged");
    const node = el("div", {
      class: classes.join(" "), dataset: { markId: m.id, start: m.time_start, end },
      style: `left:${this.pct(m.time_start)}%;` + (instant ? "" : `width:${this.pct(end) - this.pct(m.time_start)}%;`) + `top:${lane * LANE_PX}px`,
      title: `${m.label} · ${instant ? "t = " + m.time_start.toFixed(2) + " s" : m.time_start.toFixed(2) + "–" + end.toFixed(2) + " s"}`,
    });
    if (m.kind === "polyline" && (m.vertex_times || []).length && end > m.time_start) {
      for (const vt of m.vertex_times) {
        node.append(el("i", { class: "tl-vertex", style: `left:${((vt - m.time_start) / (end - m.time_start)) * 100}%` }));
      }
    }
    return node;
  }

  /** Move the cursor line and mark which spans contain the time. */
  update(t) {
    this.line.style.left = `calc(${this.pct(t)}% - 1px)`;
    for (const node of /** @type {HTMLElement[]} */ ([...this.lanes.children])) {
      const s = Number(node.dataset.start), e = Number(node.dataset.end);
      const instant = node.classList.contains("instant");
      node.classList.toggle("current", instant ? Math.abs(t - s) <= INSTANT_WINDOW_S : t >= s - 1e-3 && t <= e + 1e-3);
    }
  }

  timeAt(clientX) {
    const box = this.body.getBoundingClientRect();
    const f = Math.max(0, Math.min(1, (clientX - box.left) / (box.width || 1)));
    return f * this.duration;
  }

  bindPointer() {
    let pending = null;
    const seekTo = (x) => {
      pending = x;
      requestAnimationFrame(() => {
        if (pending === null) return;
        this.cursor.seek(this.timeAt(pending));
        pending = null;
      });
    };
    this.body.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      ev.preventDefault();
      this.dragging = true;
      this.body.setPointerCapture(ev.pointerId);
      this.cursor.video.pause();
      const span = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest(".tl-span"));
      if (span) this.onSelect(Number(span.dataset.markId), this.timeAt(ev.clientX));
      seekTo(ev.clientX);
    });
    this.body.addEventListener("pointermove", (ev) => { if (this.dragging) seekTo(ev.clientX); });
    const stop = () => { this.dragging = false; };
    this.body.addEventListener("pointerup", stop);
    this.body.addEventListener("pointercancel", stop);
  }
}
