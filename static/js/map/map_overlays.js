// @ts-check
/* The CVAA layer of a MapView (map.js): the keyframe's predicted box and its placement (footprint)
 * at the cursor time, and a draft trajectory's uncertainty circles; called through the view's
 * methods of the same name. */

import ol from "../lib/ol.js";
import { overlaysAt } from "../lib/cvaa.js";
import { flip } from "./map_coords.js";

/** @typedef {import("./map.js").MapView} MapView */

/** Previews and placements from the API (frames in time order, API pixels, each box with the
 *  server's "shown") and the confidence under which a placement is not drawn; null or an empty list
 *  draws nothing. @param {any} frames @param {number} minConfidence @param {MapView} view */
export function setCvaa(view, frames, minConfidence) {
  view.cvaaFrames = Array.isArray(frames) && frames.length ? frames : null;
  view.placementMinConfidence = minConfidence;
  view.drawCvaaBox(view.time);
}

/** Draw the keyframe's predicted box and its placement for time t, and say where it is placed. @param {MapView} view */
export function drawCvaaBox(view, t) {
  const shown = overlaysAt(view.cvaaFrames, t, view.placementMinConfidence);
  view.drawOverlay("cvaa", shown.box);
  view.drawOverlay("footprint", shown.footprint);
  if (shown.note !== view.placementNote) {
    view.placementNote = shown.note;
    view.onPlacement(shown.note);
  }
}

/** One labelled quadrilateral of the CVAA layer (removed when `overlay` is null).
 *  @param {string} id @param {import("../lib/cvaa.js").Overlay|null} overlay @param {MapView} view */
export function drawOverlay(view, id, overlay) {
  let f = view.cvaa.getFeatureById(id);
  if (!overlay || overlay.quad.length < 4) { if (f) view.cvaa.removeFeature(f); return; }
  const ring = flip(overlay.quad, view.h);
  ring.push(ring[0]);
  if (!f) {
    f = new ol.Feature({ geometry: new ol.geom.Polygon([ring]) });
    f.setId(id);
    f.set("role", id);
    view.cvaa.addFeature(f);
  } else {
    f.getGeometry().setCoordinates([ring]);
  }
  f.set("label", overlay.label);
  f.set("source", overlay.source);
}

/** A drawn overlay ("cvaa" or "footprint") in API pixels with its label, or null. @param {string} id @param {MapView} view */
export function overlay(view, id) {
  const f = view.cvaa.getFeatureById(id);
  if (!f) return null;
  const quad = f.getGeometry().getCoordinates()[0].slice(0, 4).map(([x, y]) => [x, view.h - y]);
  return { quad, label: f.get("label"), source: f.get("source") };
}

/** Circles of a draft trajectory's uncertainty, one per vertex (API pixels; radius in pixels),
 *  labelled with the placement source each was projected through; [] clears them.
 *  red where the tracker doubts the vertex (check).
 *  @param {{x: number, y: number, r: number, source: string, check?: boolean}[]} circles @param {MapView} view */
export function setUncertainty(view, circles) {
  view.uncertainty.clear();
  view.uncertainty.addFeatures(circles.filter((c) => c.r > 0).map((c) => {
    const f = new ol.Feature({ geometry: new ol.geom.Circle([c.x, view.h - c.y], c.r) });
    f.set("source", c.source);
    f.set("check", Boolean(c.check));
    return f;
  }));
}

/** The uncertainty circles drawn now: [x, y, r, source, check] in API pixels. @param {MapView} view */
export function uncertaintyCircles(view) {
  return view.uncertainty.getFeatures().map((f) => {
    const [x, y] = f.getGeometry().getCenter();
    return [x, view.h - y, f.getGeometry().getRadius(), f.get("source"), f.get("check")];
  });
}

/** The CVAA box drawn now, in API pixels, or null. @param {MapView} view */
export function cvaaBox(view) {
  const o = view.overlay("cvaa");
  return o ? o.quad : null;
}
