// @ts-check
/* The item's shapes drawn over the satellite image on the blind page, as SVG in image pixels
 * (x right, y down): a path per shape and where its name goes. Pure, for node --test. */

import { ellipseRing, vertices } from "../lib/geom.js";

/** @typedef {import("../lib/types.js").Geometry} Geometry */
/** @typedef {import("../lib/types.js").XY} XY */
/** @typedef {{name: string, geometry: Geometry}} Shape */
/** @typedef {{d: string, point: boolean, closed: boolean, label: [number, number], name: string}} Drawn */

/** @param {number} v */
const r2 = (v) => Math.round(v * 100) / 100;

/** @param {XY[]} pts @param {boolean} close */
function pathOf(pts, close) {
  if (!pts.length) return "";
  const [first, ...rest] = pts;
  return `M${r2(first[0])} ${r2(first[1])}` + rest.map((p) => ` L${r2(p[0])} ${r2(p[1])}`).join("") + (close ? " Z" : "");
}

/** The path of one shape and the point its name is written at (the top-most vertex, so names
 * sit above their shapes). @param {Shape} shape @returns {Drawn | null} */
export function drawShape(shape) {
  const g = shape.geometry;
  if (!g) return null;
  /** @type {XY[]} */
  let pts;
  let closed = false;
  if (g.type === "Ellipse" && g.center && g.radii) { pts = ellipseRing(g.center, g.radii, g.rotation || 0, 48); closed = true; }
  else if (g.type === "Polygon") { pts = vertices(g); closed = true; }
  else pts = vertices(g);
  if (!pts.length) return null;
  const top = pts.reduce((a, b) => (b[1] < a[1] ? b : a));
  return { d: pathOf(pts, closed), point: g.type === "Point", closed, label: [top[0], top[1]], name: shape.name };
}

/** Font size and stroke for an image of this size, so names stay readable whatever its pixels.
 * @param {number} width @param {number} height */
export function overlayScale(width, height) {
  const side = Math.max(width, height, 1);
  return { font: Math.max(12, Math.round(side / 40)), radius: Math.max(4, Math.round(side / 150)) };
}
