// @ts-check
/* Scene centres for the project map: pure, so node --test checks it without a browser. */

/**
 * @typedef {{id: number, name: string, lat: number, lon: number}} ScenePoint
 */

/**
 * The points that can be drawn (finite, on the globe), and their bounding box in lon/lat padded so
 * a single scene or scenes close together still show some ground around them.
 * @param {unknown} rows
 * @param {number} [padDeg]
 * @returns {{points: ScenePoint[], extent: [number, number, number, number] | null}}
 */
export function scenePoints(rows, padDeg = 0.01) {
  const points = (Array.isArray(rows) ? rows : []).filter(
    (r) => r && Number.isFinite(r.lat) && Number.isFinite(r.lon) && Math.abs(r.lat) <= 90 && Math.abs(r.lon) <= 180,
  );
  if (!points.length) return { points: [], extent: null };
  const lons = points.map((p) => p.lon);
  const lats = points.map((p) => p.lat);
  const extent = /** @type {[number, number, number, number]} */ ([
    Math.max(-180, Math.min(...lons) - padDeg),
    Math.max(-90, Math.min(...lats) - padDeg),
    Math.min(180, Math.max(...lons) + padDeg),
    Math.min(90, Math.max(...lats) + padDeg),
  ]);
  return { points, extent };
}
