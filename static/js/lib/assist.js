// @ts-check
/* Assisted trajectories, pure logic: where a click on the video is in video pixels, a click or a drag
 * as the target to track, what the status line says about a tracking job, which vertices of a draft
 * look like outliers, and dropping vertices with their times. The API is api-scene-tracks (start),
 * api-track (progress), api-track-cancel and api-mark-confirm; workspace/assist.js calls it. */

/** @typedef {import("./types.js").XY} XY */

/**
 * One tracked frame of a job (TrackingJob.result.vertices): image pixels, or null x/y where the
 * target was lost in the video ("lost") or no placement was near enough ("unplaced"). `fb_px`: the
 * tracker's back-check error in video pixels (its own doubt; part of the uncertainty already); `why`:
 * the check a lost frame failed ("no match", "back-check", "jump"). Jobs from before these were kept
 * have neither.
 * @typedef {{t: number, x: number|null, y: number|null, source: string, uncertainty_m: number|null, uncertainty_px: number|null, score: number, fb_px?: number|null, why?: string}} TrackVertex
 */

/**
 * @typedef {object} TrackJob
 * @property {number} id
 * @property {"pending"|"running"|"succeeded"|"failed"|"cancelled"} state
 * @property {number} progress
 * @property {string} error
 * @property {string} detail
 * @property {TrackVertex[]} vertices
 * @property {number|null} mark the draft trajectory, once it succeeded
 */

/** The part of the element a video with object-fit: contain fills.
 * @param {{width: number, height: number}} box the element's size @param {number} vw @param {number} vh */
export function videoRect(box, vw, vh) {
  const scale = Math.min(box.width / vw, box.height / vh);
  const w = vw * scale, h = vh * scale;
  return { left: (box.width - w) / 2, top: (box.height - h) / 2, width: w, height: h, scale };
}

/** A point in the element (px from its top left) as video pixels, or null outside the picture.
 * @param {number} x @param {number} y @param {{width: number, height: number}} box @param {number} vw @param {number} vh
 * @returns {XY|null} */
export function videoPixel(x, y, box, vw, vh) {
  const r = videoRect(box, vw, vh);
  const px = (x - r.left) / r.scale, py = (y - r.top) / r.scale;
  if (px < 0 || py < 0 || px > vw || py > vh) return null;
  return [Math.round(px * 10) / 10, Math.round(py * 10) / 10];
}

/** The inverse: video pixels as a position in the element. @param {XY} p @param {{width: number, height: number}} box @param {number} vw @param {number} vh @returns {XY} */
export function elementPixel(p, box, vw, vh) {
  const r = videoRect(box, vw, vh);
  return [r.left + p[0] * r.scale, r.top + p[1] * r.scale];
}

/** Below this many video pixels a side, a drag is a click. */
export const MIN_BOX = 8;

/** The target from where the pointer went down and up (video pixels): a point for a click, a box
 * {cx, cy, w, h} for a drag. @param {XY} a @param {XY} b
 * @returns {{point: XY}|{box: number[]}} */
export function targetOf(a, b) {
  const w = Math.abs(b[0] - a[0]), h = Math.abs(b[1] - a[1]);
  if (w < MIN_BOX || h < MIN_BOX) return { point: a };
  return { box: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, w, h] };
}

/** The body of POST api-scene-tracks.
 * @param {{imageId: number, label: string, time: number, target: {point: XY}|{box: number[]}, both?: boolean, seconds?: number}} o */
export function trackRequest(o) {
  return {
    satellite_image: o.imageId, label: o.label, time_s: Math.max(0, Math.round(o.time * 1000) / 1000),
    direction: o.both ? "both" : "forward", duration_s: o.seconds || 10, ...o.target,
  };
}

/** @param {string} state */
export const isDone = (state) => state === "succeeded" || state === "failed" || state === "cancelled";

/** The sources a job's vertices were projected through, most used first ("control_points" ...). @param {TrackVertex[]} vs */
export function sourcesOf(vs) {
  /** @type {Map<string, number>} */
  const n = new Map();
  for (const v of vs) if (v.x !== null) for (const s of v.source.split("+")) n.set(s, (n.get(s) || 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1]).map(([s]) => s);
}

const SOURCE_NAMES = /** @type {Record<string, string>} */ ({
  control_points: "control points", same_frame: "the frame itself", matching: "feature matching",
  chaining: "chained frames", telemetry: "telemetry", learned: "learned retriever",
});

/** A source as people read it. @param {string} s */
export const sourceName = (s) => SOURCE_NAMES[s] || s;

/** The median of the vertices' uncertainty in metres, or null where the image has no scale. @param {TrackVertex[]} vs */
export function medianUncertainty(vs) {
  const u = vs.map((v) => v.uncertainty_m).filter((x) => typeof x === "number").sort((a, b) => Number(a) - Number(b));
  if (!u.length) return null;
  return /** @type {number} */ (u[Math.floor(u.length / 2)]);
}

/** A found vertex the tracker itself doubts: its back-check landed this many video pixels or more
 * off (on the target the error is under 2 px in 99 % of the Saro frames; bench/README.md). */
export const CHECK_PX = 2;

/** @param {TrackVertex} v */
export const toCheck = (v) => v.x !== null && typeof v.fb_px === "number" && v.fb_px >= CHECK_PX;

const WHY_NAMES = /** @type {Record<string, string>} */ ({
  "back-check": "failed the back-check", jump: "jumped off the motion", "no match": "not matched",
});

/** How many frames were lost in the video, and why, as people read it ("3 lost in the video: 2
 * failed the back-check, 1 not matched"); "" when none. @param {TrackVertex[]} vs */
export function lostText(vs) {
  const lost = vs.filter((v) => v.source === "lost");
  if (!lost.length) return "";
  /** @type {Map<string, number>} */
  const why = new Map();
  for (const v of lost) if (v.why) why.set(v.why, (why.get(v.why) || 0) + 1);
  const parts = [...why.entries()].sort((a, b) => b[1] - a[1]).map(([w, n]) => `${n} ${WHY_NAMES[w] || w}`);
  return `${lost.length} lost in the video` + (parts.length ? ` (${parts.join(", ")})` : "");
}

/** The status line for a job. @param {TrackJob} job */
export function jobText(job) {
  if (job.state === "pending") return "Tracking: waiting for a worker…";
  if (job.state === "running") return `Tracking… ${job.progress} %`;
  if (job.state === "failed") return "Tracking failed: " + job.error;
  if (job.state === "cancelled") return "Tracking cancelled; nothing was kept";
  const vs = job.vertices || [];
  const placed = vs.filter((v) => v.x !== null).length;
  const lost = lostText(vs);
  const doubt = vs.filter(toCheck).length;
  const u = medianUncertainty(vs);
  const src = sourcesOf(vs).map(sourceName).join(", ");
  return `Draft trajectory: ${placed} of ${vs.length} frames on the map` + (lost ? `, ${lost}` : "") +
    (src ? ` · via ${src}` : "") + (u !== null ? ` · ±${u.toFixed(2)} m` : "") +
    (doubt ? ` · ${doubt} vertex${doubt === 1 ? "" : "es"} the tracker doubts (red)` : "") + " · check it, then Confirm";
}

/** Vertices whose position jumps away from both neighbours: farther than `k` times the median step
 * from the midpoint of its neighbours (a tracker that slipped onto another car for a frame). First
 * and last vertices are never flagged. @param {XY[]} pts @param {number} [k] @returns {number[]} indices */
export function outliers(pts, k = 3) {
  if (pts.length < 5) return [];
  const steps = pts.slice(1).map((p, i) => Math.hypot(p[0] - pts[i][0], p[1] - pts[i][1])).sort((a, b) => a - b);
  const median = Math.max(steps[Math.floor(steps.length / 2)], 1);
  const out = [];
  for (let i = 1; i < pts.length - 1; i++) {
    const mid = [(pts[i - 1][0] + pts[i + 1][0]) / 2, (pts[i - 1][1] + pts[i + 1][1]) / 2];
    if (Math.hypot(pts[i][0] - mid[0], pts[i][1] - mid[1]) > k * median) out.push(i);
  }
  return out;
}

/** A trajectory without the vertices at `drop`, times with them; null when fewer than two would stay.
 * @param {XY[]} pts @param {number[]} times @param {number[]} drop
 * @returns {{geometry: {type: "LineString", coordinates: XY[]}, vertex_times: number[], time_start: number, time_end: number}|null} */
export function withoutVertices(pts, times, drop) {
  const gone = new Set(drop);
  const keep = pts.map((_, i) => i).filter((i) => !gone.has(i));
  if (keep.length < 2) return null;
  const vt = keep.map((i) => times[i]);
  return {
    geometry: { type: "LineString", coordinates: keep.map((i) => pts[i]) },
    vertex_times: vt, time_start: vt[0], time_end: vt[vt.length - 1],
  };
}

/** Each vertex of a draft with its job's uncertainty circle (image pixels), source and whether the
 * tracker doubts it (toCheck), matched by time (the author may have dropped vertices since).
 * @param {XY[]} pts @param {number[]} times @param {TrackVertex[]} vs
 * @returns {{x: number, y: number, r: number, source: string, check: boolean}[]} */
export function uncertaintyCircles(pts, times, vs) {
  /** @type {Map<string, TrackVertex>} */
  const byTime = new Map(vs.map((v) => [v.t.toFixed(3), v]));
  return pts.map((p, i) => {
    const v = byTime.get(Number(times[i]).toFixed(3));
    return {
      x: p[0], y: p[1], r: v && v.uncertainty_px !== null ? v.uncertainty_px : 0, source: v ? v.source : "edited",
      check: v ? toCheck(v) : false,
    };
  });
}

/** The clip a batch tracks around the cursor: `half` seconds each way, inside the video.
 * @param {number} t @param {number} duration @param {number} [half] */
export function clipAround(t, duration, half = 5) {
  const start = Math.max(0, t - half);
  const end = duration > 0 ? Math.min(duration, t + half) : t + half;
  return { start_s: Math.round(start * 1000) / 1000, end_s: Math.round(end * 1000) / 1000 };
}

/** The status line for a batch: overall progress while any job runs, then what came of them.
 * @param {TrackJob[]} jobs */
export function batchText(jobs) {
  if (!jobs.length) return "No targets to track";
  const running = jobs.filter((j) => !isDone(j.state));
  if (running.length) {
    const pct = Math.round(jobs.reduce((s, j) => s + (isDone(j.state) ? 100 : j.progress), 0) / jobs.length);
    return `Tracking ${jobs.length} target${jobs.length === 1 ? "" : "s"}… ${pct} %`;
  }
  const ok = jobs.filter((j) => j.state === "succeeded").length;
  const failed = jobs.filter((j) => j.state === "failed").length;
  const cancelled = jobs.filter((j) => j.state === "cancelled").length;
  return `${ok} draft trajector${ok === 1 ? "y" : "ies"} made` + (failed ? `, ${failed} failed (${jobs.find((j) => j.state === "failed")?.error})` : "") +
    (cancelled ? `, ${cancelled} cancelled` : "") + (ok ? " · check each, then Confirm" : "");
}

/** The jobs of a batch a Cancel still has to stop (those not over), by id. @param {TrackJob[]} jobs */
export const toCancel = (jobs) => jobs.filter((j) => !isDone(j.state)).map((j) => j.id);

/** A batch's jobs with the answers of their cancel requests put in place (matched by id; a job whose
 * request failed keeps its last known state). @param {TrackJob[]} jobs @param {TrackJob[]} answers */
export function withAnswers(jobs, answers) {
  const byId = new Map(answers.map((a) => [a.id, a]));
  return jobs.map((j) => byId.get(j.id) || j);
}
