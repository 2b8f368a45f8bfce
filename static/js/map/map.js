// @ts-check
/* The satellite image in OpenLayers, in image pixels: layers, marks, trajectory dots, the CVAA box.
 *
 * Convention: the API stores pixels with x right and y DOWN (origin top-left); the OpenLayers
 * pixel projection has y UP (origin bottom-left). Every geometry crosses that boundary through
 * toApi()/fromApi() (map_coords.js), so nothing else in the page has to think about it.
 * Drawing and editing are added by map_edit.js (WorkspaceMap); styles live in map_style.js, the CVAA
 * layer's drawing in map_overlays.js.
 */

import ol from "../lib/ol.js";
import { trajectoryAt } from "../lib/geom.js";
import * as C from "./map_coords.js";
import * as O from "./map_overlays.js";
import * as S from "./map_style.js";

/** @typedef {import("../lib/types.js").Mark} Mark */
/** @typedef {import("../lib/types.js").Geometry} Geometry */
/** @typedef {import("../lib/types.js").XY} XY */

/**
 * @typedef {object} MapOptions
 * @property {number} width image width in pixels
 * @property {number} height
 * @property {string} url the whole display image
 * @property {{url: string, tileSize: number}|null} [tiles] the Zoomify pyramid, when built
 * @property {any} [georef] the browser georeference (json_script "georef-data"), or null
 * @property {(mark: Mark) => boolean} isCurrent whether a mark's time anchor contains the cursor
 * @property {(id: number|null) => void} [onSelect] a click selected a mark (or nothing)
 * @property {(note: string) => void} [onPlacement] the line about the cursor's keyframe placement changed
 */

export class MapView {
  /** @param {HTMLElement} target @param {MapOptions} opts */
  constructor(target, opts) {
    this.w = opts.width;
    this.h = opts.height;
    this.isCurrent = opts.isCurrent;
    this.onSelect = opts.onSelect || (() => {});
    this.onPlacement = opts.onPlacement || (() => {});
    /** What is said about the cursor keyframe's placement ("not placed (low confidence)", its label). */
    this.placementNote = "";
    /** @type {number|null} */
    this.selectedId = null;
    this.tool = "none";
    /** @type {Set<string>} */
    this.hiddenLabels = new Set();
    /** @type {Set<number>} */
    this.highlighted = new Set();
    /** mark id -> the feedback of rejected items that used it @type {Map<number, any>} */
    this.flags = new Map();
    this.time = 0;
    this.extent = [0, 0, this.w, this.h];
    this.georef = opts.georef || null;
    this.projection = this.pixelProjection();
    /** The scale bar, shown while the image is georeferenced. @type {any} */
    this.scaleLine = null;
    this.marks = new ol.source.Vector();
    this.dots = new ol.source.Vector();
    this.pending = new ol.source.Vector();
    this.handles = new ol.source.Vector();
    this.cvaa = new ol.source.Vector();
    /** CVAA previews per keyframe (GET api-scene-cvaa-previews), or null.
     * @type {import("../lib/cvaa.js").CvaaFrame[]|null} */
    this.cvaaFrames = null;
    this.placementMinConfidence = 0;
    this.cvaaLayer = new ol.layer.Vector({ source: this.cvaa, style: (f) => S.cvaa(this, f) });
    /** A draft trajectory's per-vertex uncertainty (assisted tracking). */
    this.uncertainty = new ol.source.Vector();
    this.uncertaintyLayer = new ol.layer.Vector({ source: this.uncertainty, style: S.uncertainty });
    this.marksLayer = new ol.layer.Vector({ source: this.marks, style: (f) => S.mark(this, f) });
    this.dotsLayer = new ol.layer.Vector({ source: this.dots, style: (f) => S.dot(this, f) });
    this.pendingLayer = new ol.layer.Vector({ source: this.pending, style: S.pending });
    this.handlesLayer = new ol.layer.Vector({ source: this.handles, style: S.handle });

    this.map = new ol.Map({
      target,
      layers: [this.baseLayer(opts), this.cvaaLayer, this.uncertaintyLayer, this.marksLayer, this.dotsLayer, this.pendingLayer, this.handlesLayer],
      view: this.pixelView(),
    });
    this.fit();
    this.addFitControl();
    this.showScaleLine();
    this.listen();
    // Fit again once the element has its final size (the grid lays out after the script runs).
    new ResizeObserver(() => { this.map.updateSize(); }).observe(target);
  }

  /** The image's own pixel projection. With a georeference it knows its ground size, so a scale
   *  bar can show metres. */
  pixelProjection() {
    return new ol.proj.Projection({
      code: "pixel", units: "pixels", extent: this.extent,
      ...(this.georef ? { metersPerUnit: this.georef.m_per_px } : {}),
    });
  }

  pixelView() {
    return new ol.View({ projection: this.projection, extent: this.extent, constrainOnlyCenter: true, maxZoom: 8 });
  }

  showScaleLine() {
    if (this.scaleLine) { this.map.removeControl(this.scaleLine); this.scaleLine = null; }
    if (!this.georef) return;
    this.scaleLine = new ol.control.ScaleLine({ units: "metric" });
    this.map.addControl(this.scaleLine);
  }

  /** Show another satellite image of the scene: its pixels are not the other's, so the projection,
   *  the view and the base layer (its tile pyramid) are replaced, and the marks, trajectory dots and
   *  CVAA overlays drawn on the old one go; the caller adds the new image's marks (setMark) and its
   *  CVAA previews. Selection, highlight, flags, hidden labels and the time stay.
   *  @param {Omit<MapOptions, "isCurrent"|"onSelect">} opts */
  setImage(opts) {
    this.w = opts.width;
    this.h = opts.height;
    this.extent = [0, 0, this.w, this.h];
    this.georef = opts.georef || null;
    this.projection = this.pixelProjection();
    [this.marks, this.dots, this.pending, this.handles, this.cvaa].forEach((source) => source.clear());
    this.cvaaFrames = null;
    this.map.getLayers().setAt(0, this.baseLayer(opts));
    this.map.setView(this.pixelView());
    this.fit();
    this.showScaleLine();
  }

  /** Select with a click (select tool); a pointer cursor over what can be clicked. */
  listen() {
    this.map.on("singleclick", (/** @type {any} */ ev) => {
      if (this.tool !== "none") return;
      const hit = this.map.forEachFeatureAtPixel(ev.pixel, (f) => f, { layerFilter: (l) => l === this.marksLayer, hitTolerance: 3 });
      const id = hit ? hit.getId() : null;
      this.select(id);
      this.onSelect(id);
    });
    this.map.on("pointermove", (/** @type {any} */ ev) => {
      if (ev.dragging) return;
      const hit = this.map.hasFeatureAtPixel(ev.pixel, { layerFilter: (l) => l === this.marksLayer || l === this.handlesLayer });
      this.map.getTargetElement().style.cursor = hit && this.tool === "none" ? "pointer" : "";
    });
    // The CVAA labels follow the view (kept inside it, map_style.js labelAt): OpenLayers reuses a
    // layer's drawing for a small pan, so ask for it again once the view settles.
    this.map.on("moveend", () => this.cvaaLayer.changed());
  }

  /** The tile pyramid when the media pipeline built one (large images open at once), else the
   *  whole display image. */
  baseLayer(opts) {
    if (opts.tiles) {
      return new ol.layer.Tile({
        source: new ol.source.Zoomify({
          url: opts.tiles.url, size: [this.w, this.h], tileSize: opts.tiles.tileSize,
          projection: this.projection, extent: this.extent, crossOrigin: null,
        }),
      });
    }
    return new ol.layer.Image({
      source: new ol.source.ImageStatic({ url: opts.url, projection: this.projection, imageExtent: this.extent }),
    });
  }

  /** WGS84 [lat, lon] of an API pixel (y down), or null without a georeference. Uses the
   *  homography the server fitted to the exact transform (its error is in georef.max_error_m). */
  latLonOf(x, y) {
    if (!this.georef) return null;
    const h = this.georef.pixel_to_lonlat;
    const w = h[2][0] * x + h[2][1] * y + h[2][2];
    const lon = (h[0][0] * x + h[0][1] * y + h[0][2]) / w + this.georef.origin[0];
    const lat = (h[1][0] * x + h[1][1] * y + h[1][2]) / w + this.georef.origin[1];
    return [lat, lon];
  }

  fit() { this.map.getView().fit(this.extent, { padding: [12, 12, 12, 12] }); }

  addFitControl() {
    const btn = document.createElement("button");
    btn.type = "button";
    btn.title = "Fit the whole image";
    btn.textContent = "⤢";
    btn.addEventListener("click", () => this.fit());
    const div = document.createElement("div");
    div.className = "ol-unselectable ol-control ws-fit";
    div.append(btn);
    this.map.addControl(new ol.control.Control({ element: div }));
  }

  /** Report the pointer position in API pixels (y down) to `cb`, or null when off the image. */
  trackPointer(cb) {
    this.map.on("pointermove", (ev) => cb(this.apiPoint(ev.coordinate)));
    this.map.getViewport().addEventListener("mouseleave", () => cb(null));
  }

  /** OpenLayers coordinate -> API pixel, or null when off the image. */
  apiPoint([x, y]) { return x >= 0 && x <= this.w && y >= 0 && y <= this.h ? [x, this.h - y] : null; }
  /** Position inside the map element of an API pixel. */
  pixelOf(x, y) { return this.map.getPixelFromCoordinate([x, this.h - y]); }

  // ---- coordinate conversion (map_coords.js) ---------------------------------------------
  /** OpenLayers geometry -> API geometry (pixels, y down, rounded to 0.1 px).
   * @param {any} geom @returns {Geometry} */
  toApi(geom) { return C.toApi(this, geom); }
  /** API geometry -> OpenLayers geometry, or null for shapes this page does not draw. */
  fromApi(kind, g) { return C.fromApi(this, kind, g); }
  /** A polygon outline of an ellipse that remembers its parameters. */
  ellipseGeometry(params, geom) { return C.ellipseGeometry(this, params, geom); }

  // ---- marks -----------------------------------------------------------------------------
  setMark(mark) {
    const geom = this.fromApi(mark.kind, mark.geometry);
    let f = this.marks.getFeatureById(mark.id);
    if (!geom) { if (f) this.marks.removeFeature(f); return; }
    if (!f) {
      f = new ol.Feature({ geometry: geom });
      f.setId(mark.id);
      f.set("mark", mark);
      this.marks.addFeature(f);
    } else {
      f.set("mark", mark, true);
      f.setGeometry(geom);
    }
    this.updateDot(mark);
    if (mark.id === this.selectedId) this.select(mark.id);
  }

  removeMark(id) {
    const f = this.marks.getFeatureById(id);
    if (f) this.marks.removeFeature(f);
    const dot = this.dots.getFeatureById("dot-" + id);
    if (dot) this.dots.removeFeature(dot);
    if (this.selectedId === id) this.select(null);
  }

  /** A mark saved for the first time changes its temporary id for the server's. */
  rekey(oldId, newId) {
    const f = this.marks.getFeatureById(oldId);
    if (f) this.marks.removeFeature(f);
    const dot = this.dots.getFeatureById("dot-" + oldId);
    if (dot) this.dots.removeFeature(dot);
    if (this.selectedId === oldId) this.selectedId = newId;
  }

  feature(id) { return id === null || id === undefined ? null : this.marks.getFeatureById(id); }

  /** @param {number|null} id */
  select(id) {
    this.selectedId = id;
    this.marksLayer.changed();
  }

  /** Zoom to a mark if it is outside the view. */
  reveal(id) {
    const f = this.feature(id);
    if (!f) return;
    const view = this.map.getView();
    const visible = view.calculateExtent(this.map.getSize());
    if (!ol.extent.containsExtent(visible, f.getGeometry().getExtent())) {
      view.fit(f.getGeometry().getExtent(), { maxZoom: view.getZoom(), padding: [80, 80, 80, 80], duration: 250 });
    }
  }

  /** Show these marks together (a reviewed item's marks). */
  fitTo(ids) {
    const ext = ol.extent.createEmpty();
    ids.forEach((id) => { const f = this.feature(id); if (f) ol.extent.extend(ext, f.getGeometry().getExtent()); });
    if (ol.extent.isEmpty(ext)) return;
    // Leave room around them (the surroundings are what a reviewer compares with the video) and
    // stop at one image pixel per screen pixel.
    const view = this.map.getView();
    const room = 2 * Math.max(ol.extent.getWidth(ext), ol.extent.getHeight(ext), 40);
    view.fit(ol.extent.buffer(ext, room), { padding: [20, 20, 20, 20], maxZoom: view.getZoomForResolution(1) });
  }

  setHiddenLabels(labels) { this.hiddenLabels = new Set(labels); this.marksLayer.changed(); this.dotsLayer.changed(); }
  setHighlight(ids) { this.highlighted = new Set(ids); this.marksLayer.changed(); }
  setFlags(flags) { this.flags = flags; this.marksLayer.changed(); }
  isHidden(mark) { return this.hiddenLabels.has(mark.label); }

  // ---- time ------------------------------------------------------------------------------
  /** Follow the time cursor: dim marks outside their anchor, move trajectory dots, CVAA box. */
  refresh(t) {
    this.time = t;
    this.marks.getFeatures().forEach((f) => this.updateDot(f.get("mark")));
    this.marksLayer.changed();
    this.drawCvaaBox(t);
  }

  /** The moving dot of a timestamped trajectory at the cursor time (removed outside its times). */
  updateDot(mark) {
    if (!mark || mark.kind !== "polyline") return;
    const at = trajectoryAt(mark, this.time);
    let dot = this.dots.getFeatureById("dot-" + mark.id);
    if (!at) { if (dot) this.dots.removeFeature(dot); return; }
    const coord = [at[0], this.h - at[1]];
    if (!dot) {
      dot = new ol.Feature({ geometry: new ol.geom.Point(coord) });
      dot.setId("dot-" + mark.id);
      dot.set("markId", mark.id);
      this.dots.addFeature(dot);
    } else {
      dot.getGeometry().setCoordinates(coord);
    }
  }

  /** The drawn dot of a trajectory in API pixels, or null when none is shown. */
  dotOf(id) {
    const dot = this.dots.getFeatureById("dot-" + id);
    if (!dot) return null;
    const [x, y] = dot.getGeometry().getCoordinates();
    return [x, this.h - y];
  }

  // ---- CVAA retrieval preview and uncertainty (map_overlays.js) --------------------------
  /** @param {any} frames @param {number} minConfidence */
  setCvaa(frames, minConfidence) { O.setCvaa(this, frames, minConfidence); }
  /** @param {number} t */
  drawCvaaBox(t) { O.drawCvaaBox(this, t); }
  /** @param {string} id @param {import("../lib/cvaa.js").Overlay|null} overlay */
  drawOverlay(id, overlay) { O.drawOverlay(this, id, overlay); }
  /** @param {string} id */
  overlay(id) { return O.overlay(this, id); }
  /** @param {{x: number, y: number, r: number, source: string, check?: boolean}[]} circles */
  setUncertainty(circles) { O.setUncertainty(this, circles); }
  uncertaintyCircles() { return O.uncertaintyCircles(this); }
  cvaaBox() { return O.cvaaBox(this); }

  /** True when `geom` (OpenLayers) lies inside the image. */
  inside(geom) { return ol.extent.containsExtent(this.extent, geom.getExtent()); }
}
