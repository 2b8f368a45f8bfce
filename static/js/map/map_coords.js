// @ts-check
/* The crossing between API pixels (x right, y DOWN, origin top-left) and the OpenLayers pixel
 * projection (y UP, origin bottom-left) for a MapView (map.js): every geometry goes through
 * toApi()/fromApi(), called through the view's methods of the same name. */

import ol from "../lib/ol.js";
import { ellipseRing } from "../lib/geom.js";

/** @typedef {import("../lib/types.js").Geometry} Geometry */
/** @typedef {import("../lib/types.js").XY} XY */
/** @typedef {import("./map.js").MapView} MapView */

export const flip = (/** @type {XY[]} */ pts, /** @type {number} */ h) => pts.map(([x, y]) => [x, h - y]);
const r1 = (/** @type {number} */ v) => Math.round(v * 10) / 10;

/** OpenLayers geometry -> API geometry (pixels, y down, rounded to 0.1 px). An ellipse keeps
 *  its parameters on the geometry ("ellipse": {center, radii, rotation} in API pixels).
 * @param {any} geom @returns {Geometry} @param {MapView} view */
export function toApi(view, geom) {
  const ell = geom.get("ellipse");
  if (ell) {
    return { type: "Ellipse", center: ell.center.map(r1), radii: ell.radii.map(r1), rotation: Math.round(ell.rotation * 100) / 100 };
  }
  const pts = (/** @type {number[][]} */ list) => list.map(([x, y]) => [r1(x), r1(view.h - y)]);
  if (geom.getType() === "Point") return { type: "Point", coordinates: pts([geom.getCoordinates()])[0] };
  if (geom.getType() === "LineString") return { type: "LineString", coordinates: pts(geom.getCoordinates()) };
  if (geom.getType() === "Polygon") return { type: "Polygon", coordinates: [pts(geom.getCoordinates()[0])] };
  throw new Error("unsupported geometry " + geom.getType());
}

/** API geometry -> OpenLayers geometry, or null for shapes this page does not draw. @param {MapView} view */
export function fromApi(view, kind, g) {
  g = g || {};
  if (kind === "point" && g.coordinates) return new ol.geom.Point(flip([g.coordinates], view.h)[0]);
  if (kind === "polygon" && g.coordinates) return new ol.geom.Polygon([flip(g.coordinates[0], view.h)]);
  if (kind === "polyline" && g.coordinates) return new ol.geom.LineString(flip(g.coordinates, view.h));
  if (kind === "ellipse" && g.center && g.radii) return view.ellipseGeometry({ center: g.center, radii: g.radii, rotation: g.rotation || 0 });
  return null;
}

/** A polygon outline of an ellipse that remembers its parameters. @param {MapView} view */
export function ellipseGeometry(view, params, geom) {
  const ring = flip(ellipseRing(params.center, params.radii, params.rotation), view.h);
  geom = geom || new ol.geom.Polygon([ring]);
  geom.setCoordinates([ring]);
  geom.set("ellipse", { center: params.center.slice(), radii: params.radii.slice(), rotation: params.rotation });
  return geom;
}
