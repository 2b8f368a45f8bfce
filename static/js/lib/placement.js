// @ts-check
/* A keyframe's stored placement on the map, pure logic: its label (source and expected corner error),
 * whether it is drawn (its confidence reaches the threshold) and the line said when it is not. The
 * data is the `footprint` of each frame of GET api-scene-cvaa-previews (annotator KeyframePlacement).
 * Also where a drawn quad's label goes so that it stays in view (labelAnchor, map coordinates). */

/** @typedef {import("./types.js").XY} XY */

/**
 * Where a keyframe lies on the image, from its most trusted source.
 * @typedef {object} Placement
 * @property {string} source control_points, same_frame, matching, chaining, telemetry or learned
 * @property {string} label the source in words
 * @property {XY[]} quad the frame's corners TL, TR, BR, BL in API pixels
 * @property {number} confidence in [0, 1]
 * @property {number} uncertainty_px expected corner error in image pixels
 * @property {number|null} uncertainty_m the same in metres, where the image's ground resolution is known
 * @property {boolean} [relative_to_map] the metres are the error on the map alone: the map's own
 *   georeference error is unknown, so the error on the ground may be larger
 */

/** @typedef {{quad: XY[], label: string, source: string}} PlacementOverlay */

/** Short source names for the map label. */
export const SOURCE_NAMES = /** @type {Record<string, string>} */ ({
  control_points: "control points",
  same_frame: "same frame",
  matching: "matching",
  chaining: "chained",
  telemetry: "telemetry",
  learned: "learned",
});

export const LOW_CONFIDENCE = "not placed (low confidence)";
export const NOT_PLACED = "not placed";

/** An error for a label: whole units from 10, tenths from 0.1, hundredths below (a frame registered to
 * half a map pixel on a 9 cm map is 0.05 m, not "0.0"), "<0.01" under that. @param {number} v */
export function errorDigits(v) {
  if (v >= 10) return String(Math.round(v));
  if (v >= 0.1) return v.toFixed(1);
  return v >= 0.005 ? v.toFixed(2) : "<0.01";
}

/** "±3.2 m", "±0.4 m on the map" where the map's own georeference error is unknown, "±14 px" where no
 * metres are known, "exact" for no error ("exact on the map" likewise).
 * @param {Placement} p */
export function uncertaintyText(p) {
  if (p.uncertainty_m !== null && p.uncertainty_m !== undefined && Number.isFinite(p.uncertainty_m)) {
    const text = p.uncertainty_m === 0 ? "exact" : `±${errorDigits(p.uncertainty_m)} m`;
    return p.relative_to_map ? `${text} on the map` : text;
  }
  if (!Number.isFinite(p.uncertainty_px)) return "";
  if (p.uncertainty_px === 0) return "exact";
  return `±${errorDigits(p.uncertainty_px)} px`;
}

/** "matching ±3.2 m · 0.87": the map label of a drawn placement. @param {Placement} p */
export function placementLabel(p) {
  const name = SOURCE_NAMES[p.source] || p.source;
  const err = uncertaintyText(p);
  return `${name}${err ? " " + err : ""} · ${p.confidence.toFixed(2)}`;
}

/** Whether a placement is drawn: a confidence below the threshold draws no box at all.
 * @param {Placement|null|undefined} p @param {number} minConfidence */
export function isPlaced(p, minConfidence) {
  return !!p && Array.isArray(p.quad) && p.quad.length === 4
    && Number.isFinite(p.confidence) && p.confidence >= minConfidence;
}

/** What the map draws for one keyframe's placement and the line said about it: the overlay (null when
 * nothing is drawn) and a note ("" without a keyframe; "not placed" without a placement;
 * "not placed (low confidence)" below the threshold; else the label).
 * @param {Placement|null|undefined} p @param {boolean} hasFrame @param {number} minConfidence
 * @returns {{overlay: PlacementOverlay|null, note: string}} */
export function placementView(p, hasFrame, minConfidence) {
  if (!hasFrame) return { overlay: null, note: "" };
  if (!p) return { overlay: null, note: NOT_PLACED };
  if (!isPlaced(p, minConfidence)) return { overlay: null, note: LOW_CONFIDENCE };
  const err = uncertaintyText(p);
  const note = `${p.label}${err ? " · " + err : ""} · confidence ${p.confidence.toFixed(2)}`;
  return { overlay: { quad: p.quad, label: placementLabel(p), source: p.source }, note };
}

/** The lowest and highest x of a quad's outline at height y (y within the quad's heights).
 * @param {XY[]} quad @param {number} y @returns {[number, number]} */
export function spanAt(quad, y) {
  const xs = [];
  quad.forEach((p, i) => {
    const q = quad[(i + 1) % quad.length];
    if (y < Math.min(p[1], q[1]) || y > Math.max(p[1], q[1])) return;
    if (p[1] === q[1]) xs.push(p[0], q[0]);
    else xs.push(p[0] + ((y - p[1]) * (q[0] - p[0])) / (q[1] - p[1]));
  });
  return [Math.min(...xs), Math.max(...xs)];
}

/** Where the label of a drawn quad is anchored, in the map's coordinates (OpenLayers: y UP): the middle
 * of its top as long as that is in the view away from its edges, so a label is never cut by the top of
 * the map (the toolbar sits right above it; the zoom buttons and the recording banner float in its top
 * band) or by a side. When the top is hidden the anchor comes down to the top of what shows, not lower
 * than the quad's lowest vertex, in the middle of the quad's width there; x stays away from the sides
 * where the quad allows. A quad wholly out of view keeps its top middle: nothing of it is seen.
 * @param {XY[]} quad the corners in map coordinates
 * @param {number[]} visible the view's extent [minX, minY, maxX, maxY]
 * @param {{top: number, side: number}} inset the band kept clear at the top and at each side, in map units
 * @returns {XY} */
export function labelAnchor(quad, visible, inset) {
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const [qx0, qx1, qy0, qy1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [vx0, vy0, vx1, vy1] = visible;
  const mid = (qx0 + qx1) / 2;
  if (qx1 < vx0 || qx0 > vx1 || qy1 < vy0 || qy0 > vy1) return [mid, qy1];
  const y = Math.max(qy0, Math.min(qy1, vy1 - inset.top));
  // Lowered: the middle of the quad at that height (its bounding box's middle may lie outside it).
  const [a, b] = y < qy1 ? spanAt(quad, y) : [qx0, qx1];
  const x = y < qy1 ? (a + b) / 2 : mid;
  const lo = Math.max(a, vx0 + inset.side);
  const hi = Math.min(b, vx1 - inset.side);
  return [lo <= hi ? Math.min(hi, Math.max(lo, x)) : x, y];
}
