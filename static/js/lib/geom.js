// @ts-check
/* Pure geometry and time-anchor rules for the workspace, in API pixels (x right, y down).
 * No DOM, no OpenLayers: the map, the timeline and the panel all share these rules. */

/** @typedef {import("./types.js").XY} XY */
/** @typedef {import("./types.js").Geometry} Geometry */
/** @typedef {import("./types.js").Mark} Mark */
/** @typedef {import("./types.js").TimeAnchor} TimeAnchor */

// An instant mark counts as "now" within this many seconds of its time.
export const INSTANT_WINDOW_S = 0.5;

/** Points of an ellipse outline (closed: the last point repeats the first); rotation in degrees,
 * as annotator/geometry.py reads it.
 * @param {XY} center @param {XY} radii @param {number} rotationDeg @param {number} [n] @returns {XY[]} */
export function ellipseRing(center, radii, rotationDeg, n = 64) {
  const [cx, cy] = center, [rx, ry] = radii, t = (rotationDeg * Math.PI) / 180;
  const ring = [];
  for (let k = 0; k <= n; k++) {
    const a = (2 * Math.PI * k) / n, x = rx * Math.cos(a), y = ry * Math.sin(a);
    ring.push([cx + x * Math.cos(t) - y * Math.sin(t), cy + x * Math.sin(t) + y * Math.cos(t)]);
  }
  return ring;
}

/** Every vertex a geometry has, for bounds checks.
 * @param {Geometry|null|undefined} geometry @returns {XY[]} */
export function vertices(geometry) {
  const g = geometry || /** @type {Geometry} */ ({});
  if (g.type === "Point") return [g.coordinates];
  if (g.type === "LineString") return g.coordinates;
  if (g.type === "Polygon") return g.coordinates[0];
  if (g.type === "Ellipse" && g.center && g.radii) return ellipseRing(g.center, g.radii, g.rotation || 0, 32);
  return [];
}

/** @param {XY} a @param {XY} b @param {XY} c */
function orient(a, b, c) {
  const v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  return Math.abs(v) < 1e-9 ? 0 : Math.sign(v);
}
/** @param {XY} a @param {XY} b @param {XY} p */
function onSegment(a, b, p) {
  return Math.min(a[0], b[0]) - 1e-9 <= p[0] && p[0] <= Math.max(a[0], b[0]) + 1e-9
    && Math.min(a[1], b[1]) - 1e-9 <= p[1] && p[1] <= Math.max(a[1], b[1]) + 1e-9;
}
/** @param {XY} p1 @param {XY} p2 @param {XY} p3 @param {XY} p4 */
function segmentsCross(p1, p2, p3, p4) {
  const d1 = orient(p3, p4, p1), d2 = orient(p3, p4, p2), d3 = orient(p1, p2, p3), d4 = orient(p1, p2, p4);
  if (d1 !== d2 && d3 !== d4) return true;
  return (d1 === 0 && onSegment(p3, p4, p1)) || (d2 === 0 && onSegment(p3, p4, p2))
    || (d3 === 0 && onSegment(p1, p2, p3)) || (d4 === 0 && onSegment(p1, p2, p4));
}

/** True when a ring's edges cross or touch anywhere but at shared corners (closed or not).
 * @param {XY[]} ring */
export function ringSelfIntersects(ring) {
  const pts = ring.length > 1 && ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1]
    ? ring.slice(0, -1) : ring.slice();
  const n = pts.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (j === i + 1 || (i === 0 && j === n - 1)) continue;  // neighbours share a corner
      if (segmentsCross(pts[i], pts[(i + 1) % n], pts[j], pts[(j + 1) % n])) return true;
    }
  }
  return false;
}

/** Field messages for a geometry the server would refuse ({} when it is fine).
 * @param {string} kind @param {Geometry} geometry @param {number} width @param {number} height
 * @returns {Record<string, string>} */
export function geometryErrors(kind, geometry, width, height) {
  const pts = vertices(geometry);
  const outside = pts.findIndex(([x, y]) => !(x >= 0 && x <= width && y >= 0 && y <= height));
  if (outside >= 0) {
    const [x, y] = pts[outside];
    return { geometry: `a vertex (${x.toFixed(0)}, ${y.toFixed(0)}) is outside the ${width}×${height} px image` };
  }
  if (kind === "polygon") {
    const ring = geometry.coordinates[0];
    const distinct = new Set(ring.map((/** @type {XY} */ p) => p.join(","))).size;
    if (distinct < 3) return { geometry: "a region needs at least 3 distinct corners" };
    if (ringSelfIntersects(ring)) return { geometry: "the region's edges cross each other (self-intersecting polygon)" };
  }
  if (kind === "polyline" && geometry.coordinates.length < 2) return { geometry: "a trajectory needs at least 2 vertices" };
  if (kind === "ellipse" && !(geometry.radii && geometry.radii[0] > 0 && geometry.radii[1] > 0)) return { geometry: "the ellipse needs a size" };
  return {};
}

/** Field messages for a time anchor (and a trajectory's vertex times); duration 0 means unknown.
 * @param {TimeAnchor} mark @param {number} duration @returns {Record<string, string>} */
export function timeErrors(mark, duration) {
  /** @type {Record<string, string>} */
  const errors = {};
  if (!(mark.time_start >= 0)) errors.time_start = "the start must be 0 s or later";
  if (mark.time_end !== null && mark.time_end !== undefined && mark.time_end < mark.time_start) {
    errors.time_end = `the interval ends (${mark.time_end.toFixed(2)} s) before it starts (${mark.time_start.toFixed(2)} s)`;
  }
  const last = mark.time_end === null || mark.time_end === undefined ? mark.time_start : mark.time_end;
  if (duration && last > duration + 1e-6) errors[mark.time_end === null ? "time_start" : "time_end"] = `${last.toFixed(2)} s is past the end of the video`;
  const vt = mark.vertex_times || [];
  for (let i = 1; i < vt.length; i++) {
    if (vt[i] < vt[i - 1]) { errors.vertex_times = "vertex times must not go backwards"; break; }
  }
  return errors;
}

/** Does the mark's time anchor contain time t?
 * @param {TimeAnchor} mark @param {number} t */
export function isCurrentAt(mark, t) {
  if (mark.time_end === null || mark.time_end === undefined) return Math.abs(t - mark.time_start) <= INSTANT_WINDOW_S;
  return t >= mark.time_start - 1e-3 && t <= mark.time_end + 1e-3;
}

/** Where a timestamped trajectory's target is at time t (linear between vertices), or null
 * outside its first..last vertex time or when it has no per-vertex times.
 * @param {Pick<Mark, "kind"|"geometry"|"vertex_times">} mark @param {number} t @returns {XY|null} */
export function trajectoryAt(mark, t) {
  const vt = mark.vertex_times || [];
  const pts = (mark.geometry || /** @type {Geometry} */ ({})).coordinates || [];
  if (mark.kind !== "polyline" || vt.length < 2 || vt.length !== pts.length) return null;
  if (t < vt[0] - 1e-3 || t > vt[vt.length - 1] + 1e-3) return null;
  for (let i = 1; i < vt.length; i++) {
    if (t <= vt[i] + 1e-9) {
      const span = vt[i] - vt[i - 1];
      const f = span > 0 ? Math.min(1, Math.max(0, (t - vt[i - 1]) / span)) : 1;
      return [pts[i - 1][0] + f * (pts[i][0] - pts[i - 1][0]), pts[i - 1][1] + f * (pts[i][1] - pts[i - 1][1])];
    }
  }
  return pts[pts.length - 1].slice();
}

/** The same time anchor moved so it starts at `t` (intervals and vertex times keep their spacing).
 * @param {TimeAnchor} mark @param {number} t @returns {{time_start: number, time_end: number|null, vertex_times: number[]}} */
export function shiftedTo(mark, t) {
  const d = t - mark.time_start;
  const r = (/** @type {number} */ v) => Math.round(v * 1000) / 1000;
  return {
    time_start: r(t),
    time_end: mark.time_end === null || mark.time_end === undefined ? null : r(mark.time_end + d),
    vertex_times: (mark.vertex_times || []).map((v) => r(v + d)),
  };
}
