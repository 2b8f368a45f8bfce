// @ts-check
/* Assisted trajectories in the workspace: Shift+click a target in the video (or Shift+drag a box
 * around it), press K (Shift+K: backward too); the server tracks it and projects the track onto the
 * map (api-scene-tracks); the bar shows progress and a Cancel (for one job or a whole batch). The result is a draft trajectory the
 * annotator corrects like any mark (drag a vertex; "Drop outliers" removes vertices that jump) and
 * confirms (api-mark-confirm). The pure parts are in ../lib/assist.js. */

import { ApiError, api, urlFor } from "../lib/api.js";
import { byId } from "../lib/dom.js";
import {
  batchText, clipAround, elementPixel, isDone, jobText, outliers, targetOf, toCancel, trackRequest, uncertaintyCircles, videoPixel,
  withAnswers, withoutVertices,
} from "../lib/assist.js";

/** @typedef {import("./state.js").Workspace} Workspace */
/** @typedef {import("../lib/assist.js").TrackJob} TrackJob */
/** @typedef {import("../lib/types.js").XY} XY */

const POLL_MS = 400;

export class Assist {
  /** @param {Workspace} ws */
  constructor(ws) {
    this.ws = ws;
    this.video = /** @type {HTMLVideoElement} */ (byId("video"));
    this.box = /** @type {HTMLElement} */ (this.video.parentElement);
    this.marker = byId("assist-target");
    this.bar = byId("assist-bar");
    this.text = byId("assist-status");
    this.progress = /** @type {HTMLProgressElement} */ (byId("assist-progress"));
    this.cancelBtn = /** @type {HTMLButtonElement} */ (byId("assist-cancel"));
    this.confirmBtn = /** @type {HTMLButtonElement} */ (byId("assist-confirm"));
    this.dropBtn = /** @type {HTMLButtonElement} */ (byId("assist-drop"));
    this.batchBtn = /** @type {HTMLButtonElement} */ (byId("assist-batch"));
    /** The target to track, in video pixels: a point or a box. @type {{point: XY}|{box: number[]}|null} */
    this.target = null;
    /** @type {TrackJob|null} */
    this.job = null;
    /** The jobs of the batch running now (Track all marked), else null. @type {TrackJob[]|null} */
    this.batch = null;
    /** draft mark id -> the vertices of the job that made it (source and uncertainty per frame)
     * @type {Map<number, import("../lib/assist.js").TrackVertex[]>} */
    this.vertices = new Map();
    /** drafts whose job was asked for already @type {Set<number>} */
    this.asked = new Set();
    this.listen();
  }

  /** The video's own size (its metadata; the probe's until it has loaded). */
  size() { return [this.video.videoWidth || 1, this.video.videoHeight || 1]; }

  listen() {
    /** @type {XY|null} */
    let down = null;
    this.video.addEventListener("pointerdown", (ev) => {
      if (!ev.shiftKey) return;
      ev.preventDefault();
      down = this.at(ev);
    });
    this.video.addEventListener("pointermove", (ev) => {
      const at = down && this.at(ev);
      if (down && at) this.show(targetOf(down, at));
    });
    this.video.addEventListener("pointerup", (ev) => {
      const at = down && this.at(ev);
      if (down && at) this.setTarget(targetOf(down, at));
      down = null;
    });
    this.cancelBtn.addEventListener("click", () => this.cancel());
    this.confirmBtn.addEventListener("click", () => this.confirm());
    this.dropBtn.addEventListener("click", () => this.dropOutliers());
    this.batchBtn.addEventListener("click", () => this.trackAll());
    new ResizeObserver(() => { if (this.target) this.show(this.target); }).observe(this.box);
  }

  /** @param {PointerEvent} ev @returns {XY|null} */
  at(ev) {
    const r = this.video.getBoundingClientRect();
    const [vw, vh] = this.size();
    return videoPixel(ev.clientX - r.left, ev.clientY - r.top, { width: r.width, height: r.height }, vw, vh);
  }

  /** @param {{point: XY}|{box: number[]}} target */
  setTarget(target) {
    this.target = target;
    this.show(target);
    this.say("Target set at " + this.ws.cursor.now().toFixed(2) + " s: press K to track it (Shift+K: backward too)");
  }

  /** Draw the target over the video. @param {{point: XY}|{box: number[]}} target */
  show(target) {
    const r = this.video.getBoundingClientRect();
    const outer = this.box.getBoundingClientRect();
    const [vw, vh] = this.size();
    const dims = { width: r.width, height: r.height };
    const [cx, cy, w, h] = "box" in target ? target.box : [target.point[0], target.point[1], 0, 0];
    const [x0, y0] = elementPixel([cx - w / 2, cy - h / 2], dims, vw, vh);
    const [x1, y1] = elementPixel([cx + w / 2, cy + h / 2], dims, vw, vh);
    const s = this.marker.style;
    s.left = (r.left - outer.left + x0 - ("box" in target ? 0 : 8)) + "px";
    s.top = (r.top - outer.top + y0 - ("box" in target ? 0 : 8)) + "px";
    s.width = ("box" in target ? x1 - x0 : 16) + "px";
    s.height = ("box" in target ? y1 - y0 : 16) + "px";
    this.marker.classList.toggle("point", !("box" in target));
    this.marker.classList.remove("hidden");
  }

  /** @param {string} text @param {string} [state] */
  say(text, state = "") {
    this.bar.classList.remove("hidden");
    this.bar.dataset.state = state;
    this.text.textContent = text;
  }

  /** K: track the target from the cursor time. @param {boolean} both backward as well */
  async track(both) {
    const ws = this.ws;
    if (!ws.editable || !ws.editor || ws.imageId === null) return;
    if (!this.target) { this.say("Shift+click the target in the video first (or Shift+drag a box around it)", "error"); return; }
    if ((this.job && !isDone(this.job.state)) || this.batch) { this.say("A tracking is running: cancel it first", "error"); return; }
    const body = trackRequest({ imageId: ws.imageId, label: ws.editor.draft().label, time: ws.cursor.now(), target: this.target, both });
    this.video.pause();
    try {
      this.job = await api.post(ws.cfg.tracksUrl, body);
    } catch (err) {
      this.say("Not started: " + (err instanceof ApiError ? err.message : String(err)), "error");
      return;
    }
    this.marker.classList.add("hidden");
    this.target = null;
    this.follow();
  }

  /** Every target of the editor's label marked (point or ellipse) within 5 s of the cursor, tracked
   * both ways over that clip: one draft each (api-scene-tracks-batch). */
  async trackAll() {
    const ws = this.ws;
    if (!ws.editable || !ws.editor || ws.imageId === null) return;
    if ((this.job && !isDone(this.job.state)) || this.batch) { this.say("A tracking is running: cancel it first", "error"); return; }
    const label = ws.editor.draft().label;
    const clip = clipAround(ws.cursor.now(), ws.cursor.duration);
    /** @type {TrackJob[]} */
    let jobs;
    try {
      jobs = await api.post(ws.cfg.tracksBatchUrl, { satellite_image: ws.imageId, label, ...clip });
    } catch (err) {
      this.say("Not started: " + (err instanceof ApiError ? err.message : String(err)), "error");
      return;
    }
    this.batch = jobs;
    this.cancelBtn.classList.remove("hidden");
    this.say(batchText(jobs), "running");
    try {
      while (this.batch.some((j) => !isDone(j.state))) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        // a Cancel meanwhile replaced this.batch with its answers: poll from those
        const polled = await Promise.all(this.batch.map((j) => (isDone(j.state) ? j : api.get(urlFor(ws.cfg.trackUrl, j.id)))));
        this.batch = withAnswers(this.batch, polled);
        // The outcome is said once every draft is on the map (below), not before.
        if (this.batch.some((j) => !isDone(j.state))) this.say(batchText(this.batch), "running");
      }
    } catch (err) {
      this.say("Lost touch with the tracking: " + String(err), "error");
      return;
    } finally {
      jobs = this.batch;
      this.batch = null;
      this.cancelBtn.classList.add("hidden");
    }
    for (const j of jobs) {
      if (j.state !== "succeeded" || !j.mark) continue;
      this.vertices.set(j.mark, j.vertices || []);
      ws.store.showServer(await api.get(urlFor(ws.cfg.markUrl, j.mark)));
    }
    this.say(batchText(jobs), jobs.some((j) => j.state === "failed") ? "error" : "succeeded");
  }

  /** Poll the job until it is over; show progress meanwhile. */
  async follow() {
    const job = this.job;
    if (!job) return;
    if (!isDone(job.state)) this.render(job);
    while (this.job && this.job.id === job.id && !isDone(this.job.state)) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      try {
        this.job = await api.get(urlFor(this.ws.cfg.trackUrl, job.id));
      } catch (err) {
        this.say("Lost touch with the tracking: " + String(err), "error");
        return;
      }
      // The outcome is said once the draft is on the map (below), not before.
      if (this.job && !isDone(this.job.state)) this.render(this.job);
    }
    const done = this.job;
    if (!done || done.id !== job.id) return;
    if (done.state === "succeeded" && done.mark) {
      this.vertices.set(done.mark, done.vertices || []);
      const mark = await api.get(urlFor(this.ws.cfg.markUrl, done.mark));
      this.ws.store.showServer(mark);
      this.ws.select(mark.id);
      this.ws.setStatus("idle", "Draft trajectory ready: correct it, then Confirm");
    }
    this.render(done);
  }

  /** @param {TrackJob} job */
  render(job) {
    const running = !isDone(job.state);
    this.say(jobText(job), job.state);
    this.progress.value = job.progress;
    this.progress.classList.toggle("hidden", !running);
    this.cancelBtn.classList.toggle("hidden", !running);
  }

  async cancel() {
    if (this.batch) { await this.cancelBatch(this.batch); return; }
    if (!this.job || isDone(this.job.state)) return;
    try {
      this.job = await api.post(urlFor(this.ws.cfg.trackCancelUrl, this.job.id));
      if (this.job) this.render(this.job);
    } catch (err) {
      this.say("Cancel refused: " + (err instanceof ApiError ? err.message : String(err)), "error");
    }
  }

  /** Cancel every job of the batch not over yet; the polling loop in trackAll says the outcome.
   * @param {TrackJob[]} jobs */
  async cancelBatch(jobs) {
    const ids = toCancel(jobs);
    const answers = await Promise.allSettled(ids.map((id) => api.post(urlFor(this.ws.cfg.trackCancelUrl, id))));
    /** @type {TrackJob[]} */
    const ok = [];
    let refused = "";
    for (const a of answers) {
      if (a.status === "fulfilled") ok.push(a.value);
      else refused = a.reason instanceof ApiError ? a.reason.message : String(a.reason);
    }
    if (this.batch) this.batch = withAnswers(this.batch, ok);
    if (refused) this.say("Cancel refused: " + refused, "error");
  }

  /** The selected mark when it is a draft this page may edit, else null. */
  draft() {
    const m = this.ws.selectedMark();
    return m && m.draft && m.id > 0 && this.ws.editable && !this.ws.isLocked(m.id) ? m : null;
  }

  /** Follow the selection: the draft's buttons and its uncertainty on the map. */
  refresh() {
    const m = this.draft();
    this.confirmBtn.classList.toggle("hidden", !m);
    this.dropBtn.classList.toggle("hidden", !m);
    if (m) this.bar.classList.remove("hidden");
    if (!this.ws.map) return;
    const vs = m ? this.vertices.get(m.id) : undefined;
    if (m && !vs) this.loadVertices(m.id);
    const pts = m ? /** @type {XY[]} */ (m.geometry.coordinates || []) : [];
    this.ws.map.setUncertainty(m && vs ? uncertaintyCircles(pts, m.vertex_times || [], vs) : []);
  }

  /** The job that drew a draft made before this page opened: its sources and uncertainty (once).
   * @param {number} markId */
  async loadVertices(markId) {
    if (this.asked.has(markId)) return;
    this.asked.add(markId);
    try {
      const job = await api.get(urlFor(this.ws.cfg.markTrackUrl, markId));
      this.vertices.set(markId, job.vertices || []);
      this.say(jobText(job), "succeeded");
      this.refresh();
    } catch (err) { /* a draft no job of this user drew: nothing to show */ }
  }

  /** Remove the vertices that jump off their neighbours (an ordinary, undoable edit). */
  dropOutliers() {
    const m = this.draft();
    if (!m) return;
    const pts = /** @type {XY[]} */ (m.geometry.coordinates || []);
    const drop = outliers(pts);
    const changes = drop.length ? withoutVertices(pts, m.vertex_times || [], drop) : null;
    if (!changes) { this.say("No vertex jumps off its neighbours; drag any that is wrong", ""); return; }
    this.ws.history.update(m.id, changes);
    this.say(`Dropped ${drop.length} vertex${drop.length === 1 ? "" : "es"} that jumped off the track`, "");
  }

  /** Accept the draft once its edits are saved. */
  async confirm() {
    const m = this.draft();
    if (!m) return;
    for (let i = 0; i < 50 && this.ws.store.isPending(m.id); i++) await new Promise((r) => setTimeout(r, 100));
    const now = this.ws.store.get(m.id);
    if (!now || this.ws.store.isPending(m.id)) { this.say("Your edits are not saved yet; try again in a moment", "error"); return; }
    try {
      const mark = await api.post(urlFor(this.ws.cfg.markConfirmUrl, m.id), { version: now.version });
      this.ws.store.showServer(mark);
      this.vertices.delete(m.id);
      this.say("Trajectory confirmed", "succeeded");
      this.ws.select(mark.id);
    } catch (err) {
      this.say("Not confirmed: " + (err instanceof ApiError ? err.message : String(err)), "error");
    }
  }
}

/** Start the assist bar where the page has one (editable workspaces). @param {Workspace} ws */
export function setupAssist(ws) {
  if (!ws.editable || !document.getElementById("assist-bar")) return null;
  return new Assist(ws);
}
