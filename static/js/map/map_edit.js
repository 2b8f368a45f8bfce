// @ts-check
/* Drawing and editing on the workspace map:
 *  - tools: point, polygon and ellipse through ol/interaction/Draw; a trajectory recorder where
 *    each click adds a vertex stamped with the video time;
 *  - editing the selected mark: Modify (vertices), Translate (move), and handles for an ellipse
 *    (centre, each radius, rotation). Every finished edit reports the new API geometry.
 * A read-only page builds the same class and never calls setTool() or enableEditing(). */

import ol from "../lib/ol.js";
import { MapView } from "./map.js";
import * as S from "./map_style.js";

const TOOLS = ["point", "polygon", "ellipse", "polyline"];

/**
 * What the page does for a tool (workspace/tools.js).
 * @typedef {object} ToolCallbacks
 * @property {() => string|null} canStart a reason not to start drawing, or null
 * @property {(kind: string, geometry: import("../lib/types.js").Geometry, extra: {vertex_times?: number[]}) => void} onEnd
 * @property {(message: string) => void} onError
 * @property {(vertices: number, times: number[]) => void} [onProgress] the trajectory being recorded
 * @property {() => number} now the video time
 */

/** @type {ToolCallbacks} */
const NO_TOOL = { canStart: () => null, onEnd: () => {}, onError: () => {}, now: () => 0 };

/** A trajectory being recorded: vertices in API pixels and the video time of each.
 * @typedef {{pts: number[][], times: number[]}} Recording */

export class WorkspaceMap extends MapView {
  /** @param {HTMLElement} target @param {import("./map.js").MapOptions} opts */
  constructor(target, opts) {
    super(target, opts);
    this.toolCb = NO_TOOL;
    /** @type {Recording|null} */
    this.traj = null;
    /** OpenLayers objects (the vendored build has no types). @type {any} */
    this.draw = null;
    /** @type {any[]} */
    this.trajKeys = [];
    /** @type {any} */
    this.trajLine = null;
    /** @type {any} */
    this.trajPoints = null;
    /** @type {any} */
    this.rubber = null;
    /** Set by enableEditing(); null on a read-only page. @type {any} */
    this.translate = null;
    /** @type {any} */
    this.modify = null;
    /** @type {any} */
    this.editFeatures = null;
    /** @type {any} */
    this.moveFeatures = null;
    this.insertAllowed = true;
    /** @type {(id: number) => boolean} */
    this.canModify = () => false;
    /** @type {(id: number, geometry: import("../lib/types.js").Geometry) => void} */
    this.onModified = () => {};
    /** The ellipse handle being dragged ("center", "rx", "ry", "rotate"), or null. @type {string|null} */
    this.dragRole = null;
    /** @type {any} */
    this.dragFeature = null;
    /** @type {number[]} */
    this.dragFrom = [0, 0];
    /** @type {any} */
    this.dragParams = null;
  }

  /** @param {number|null} id */
  select(id) {
    super.select(id);
    this.syncEditing(id);
  }

  /** Another image: a shape half drawn on the old one is dropped, and the tool starts afresh.
   * @param {Omit<import("./map.js").MapOptions, "isCurrent"|"onSelect">} opts */
  setImage(opts) {
    const tool = this.tool;
    this.stopTool();
    if (this.editFeatures) { this.editFeatures.clear(); this.moveFeatures.clear(); }
    super.setImage(opts);
    if (tool !== "none") this.setTool(tool, this.toolCb);
  }

  // ---- tools -------------------------------------------------------------------------------
  /** @param {"none"|"point"|"polygon"|"ellipse"|"polyline"|string} tool @param {ToolCallbacks} cb */
  setTool(tool, cb) {
    this.stopTool();
    this.tool = tool;
    this.toolCb = cb;
    const el = this.map.getTargetElement();
    TOOLS.forEach((t) => el.classList.remove("tool-" + t));
    this.map.getInteractions().forEach((i) => {
      if (i instanceof ol.interaction.DoubleClickZoom) i.setActive(tool === "none");
    });
    if (this.translate) {
      this.translate.setActive(tool === "none");
      this.modify.setActive(tool === "none");
      this.syncEditing(this.selectedId);
    }
    if (tool === "none") return;
    el.classList.add("tool-" + tool);
    if (tool === "polyline") { this.startTrajectory(); return; }
    /** @type {Record<string, any>} */
    const opts = { type: tool === "point" ? "Point" : tool === "polygon" ? "Polygon" : "Circle", style: S.drawing };
    if (tool === "ellipse") {
      // Click the centre, then a corner of the bounding box: an axis-aligned ellipse whose
      // rotation and radii the handles can change afterwards.
      opts.geometryFunction = (coords, geom) => {
        const [c, e] = coords;
        return this.ellipseGeometry({
          center: [c[0], this.h - c[1]], radii: [Math.max(1, Math.abs(e[0] - c[0])), Math.max(1, Math.abs(e[1] - c[1]))], rotation: 0,
        }, geom);
      };
    }
    this.draw = new ol.interaction.Draw(opts);
    this.draw.on("drawstart", () => {
      const why = cb.canStart();
      this.refused = !!why;
      if (why) { cb.onError(why); this.draw.abortDrawing(); }
    });
    this.draw.on("drawend", (ev) => {
      if (this.refused) return;
      cb.onEnd(tool, this.toApi(ev.feature.getGeometry()), {});
    });
    this.map.addInteraction(this.draw);
  }

  stopTool() {
    if (this.draw) { this.map.removeInteraction(this.draw); this.draw = null; }
    if (this.traj) this.stopTrajectory();
  }

  /** Esc: drop the shape being drawn. */
  abortDrawing() {
    if (this.draw) this.draw.abortDrawing();
    if (this.traj) this.resetTrajectory();
  }

  /** Backspace: remove the last corner or vertex of the shape being drawn. */
  removeLastPoint() {
    if (this.draw) this.draw.removeLastPoint();
    if (this.traj && this.traj.pts.length) {
      this.traj.pts.pop();
      this.traj.times.pop();
      this.drawTrajectory();
    }
  }

  /** Enter: finish the polygon or trajectory being drawn. */
  finishDrawing() {
    if (this.traj) this.finishTrajectory();
    else if (this.draw && this.tool === "polygon") this.draw.finishDrawing();
  }

  // ---- trajectory recorder -------------------------------------------------------------------
  startTrajectory() {
    this.traj = { pts: [], times: [] };
    this.trajLine = new ol.Feature(new ol.geom.LineString([]));
    this.trajPoints = new ol.Feature(new ol.geom.MultiPoint([]));
    this.rubber = new ol.Feature(new ol.geom.LineString([]));
    this.pending.addFeatures([this.trajLine, this.trajPoints, this.rubber]);
    this.trajKeys = [
      this.map.on("click", (ev) => this.trajectoryClick(ev)),
      this.map.on("dblclick", (ev) => { ev.preventDefault(); this.finishTrajectory(); }),
      this.map.on("pointermove", (ev) => {
        const last = this.traj && this.traj.pts[this.traj.pts.length - 1];
        this.rubber.getGeometry().setCoordinates(last ? [[last[0], this.h - last[1]], ev.coordinate] : []);
      }),
    ];
  }

  stopTrajectory() {
    this.trajKeys.forEach((k) => ol.Observable.unByKey(k));
    this.trajKeys = [];
    this.pending.clear();
    this.traj = null;
  }

  resetTrajectory() {
    if (!this.traj) return;
    this.traj.pts = [];
    this.traj.times = [];
    this.drawTrajectory();
  }

  /** @param {any} ev an OpenLayers map click */
  trajectoryClick(ev) {
    const cb = this.toolCb;
    const p = this.apiPoint(ev.coordinate);
    if (!this.traj) return;
    if (!p) { cb.onError("click inside the image: a trajectory vertex must be on the satellite image"); return; }
    const { pts, times } = this.traj;
    if (!pts.length) {
      const why = cb.canStart();
      if (why) { cb.onError(why); return; }
    }
    const t = cb.now();
    if (times.length && t < times[times.length - 1] - 1e-6) {
      cb.onError(`the video is at ${t.toFixed(2)} s, before the last vertex (${times[times.length - 1].toFixed(2)} s): move the cursor forward first`);
      return;
    }
    pts.push([Math.round(p[0] * 10) / 10, Math.round(p[1] * 10) / 10]);
    times.push(t);
    this.drawTrajectory();
  }

  drawTrajectory() {
    if (!this.traj) return;
    const coords = this.traj.pts.map(([x, y]) => [x, this.h - y]);
    this.trajLine.getGeometry().setCoordinates(coords.length > 1 ? coords : []);
    this.trajPoints.getGeometry().setCoordinates(coords);
    if (!coords.length) this.rubber.getGeometry().setCoordinates([]);
    if (this.toolCb.onProgress) this.toolCb.onProgress(coords.length, this.traj.times.slice());
  }

  finishTrajectory() {
    if (!this.traj) return;
    const { pts, times } = this.traj;
    // A double click adds the same vertex twice at the same time: keep one.
    for (let i = pts.length - 1; i > 0; i--) {
      if (Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]) < 1 && Math.abs(times[i] - times[i - 1]) < 1e-6) {
        pts.splice(i, 1);
        times.splice(i, 1);
      }
    }
    if (pts.length < 2) {
      this.drawTrajectory();
      if (pts.length) this.toolCb.onError("a trajectory needs at least 2 vertices: move the video on and click again");
      return;
    }
    /** @type {import("../lib/types.js").Geometry} */
    const geometry = { type: "LineString", coordinates: pts.map((p) => p.slice()) };
    const vertexTimes = times.slice();
    this.resetTrajectory();
    this.toolCb.onEnd("polyline", geometry, { vertex_times: vertexTimes });
  }

  /** Vertices recorded so far in the trajectory being drawn (0 when not recording). */
  recording() { return this.traj ? this.traj.pts.length : 0; }

  // ---- editing the selection -----------------------------------------------------------------
  /** canModify(id): may this mark change; onModified(id, apiGeometry) after each finished edit.
   * @param {{canModify: (id: number) => boolean, onModified: (id: number, geometry: import("../lib/types.js").Geometry) => void}} opts */
  enableEditing({ canModify, onModified }) {
    this.canModify = canModify;
    this.onModified = onModified;
    this.editFeatures = new ol.Collection();
    this.moveFeatures = new ol.Collection();
    this.insertAllowed = true;
    this.translate = new ol.interaction.Translate({ features: this.moveFeatures, hitTolerance: 3 });
    this.modify = new ol.interaction.Modify({
      features: this.editFeatures, style: S.drawing,
      // A trajectory's vertices carry times: they can move but not be added or removed here.
      insertVertexCondition: () => this.insertAllowed,
      deleteCondition: (ev) => this.insertAllowed && ol.events.condition.altKeyOnly(ev) && ol.events.condition.singleClick(ev),
    });
    this.translate.on("translatestart", (ev) => { this.moveStart = ev.coordinate; });
    this.translate.on("translateend", (ev) => {
      const f = ev.features.item(0);
      const [dx, dy] = [ev.coordinate[0] - this.moveStart[0], ev.coordinate[1] - this.moveStart[1]];
      if (!f || (Math.abs(dx) < 1e-9 && Math.abs(dy) < 1e-9)) return;
      const ell = f.getGeometry().get("ellipse");
      if (ell) this.ellipseGeometry({ ...ell, center: [ell.center[0] + dx, ell.center[1] - dy] }, f.getGeometry());
      this.commitEdit(f);
    });
    this.modify.on("modifyend", (ev) => ev.features.forEach((f) => this.commitEdit(f)));
    this.handleDrag = new ol.interaction.Pointer({
      handleDownEvent: (ev) => this.handleDown(ev),
      handleDragEvent: (ev) => this.handleMove(ev),
      handleUpEvent: () => this.handleUp(),
    });
    // Interactions see events last-added first: handles, then vertices, then moving the whole mark.
    [this.translate, this.modify, this.handleDrag].forEach((i) => this.map.addInteraction(i));
  }

  commitEdit(f) {
    this.onModified(f.getId(), this.toApi(f.getGeometry()));
    this.syncEditing(this.selectedId);
  }

  syncEditing(id) {
    if (!this.editFeatures || this.dragRole) return;
    const f = this.feature(id);
    const wanted = !!f && this.tool === "none" && this.canModify(id);
    const kind = wanted ? f.get("mark").kind : null;
    // Already editing this feature (e.g. the server answered a save): keep Modify's state as it is.
    if (wanted && this.moveFeatures.getLength() === 1 && this.moveFeatures.item(0) === f) {
      if (kind === "ellipse") this.drawHandles(f);
      return;
    }
    this.editFeatures.clear();
    this.moveFeatures.clear();
    this.handles.clear();
    if (!wanted) return;
    this.insertAllowed = kind === "polygon";
    this.moveFeatures.push(f);
    if (kind === "ellipse") this.drawHandles(f);
    else this.editFeatures.push(f);
  }

  /** Handles of an ellipse: centre (move), the end of each radius, and a rotation knob. */
  drawHandles(f) {
    const { center: [cx, cy], radii: [rx, ry], rotation } = f.getGeometry().get("ellipse");
    const t = (rotation * Math.PI) / 180;
    const u = [Math.cos(t), Math.sin(t)], v = [-Math.sin(t), Math.cos(t)];
    const knob = rx + 26 * (this.map.getView().getResolution() || 1);
    const ol_ = ([x, y]) => [x, this.h - y];
    const at = (vec, d) => ol_([cx + vec[0] * d, cy + vec[1] * d]);
    const c = ol_([cx, cy]);
    const make = (role, geometry) => { const h = new ol.Feature(geometry); h.set("role", role); return h; };
    this.handles.clear();
    this.handles.addFeatures([
      make("axis", new ol.geom.LineString([c, at(u, knob)])),
      make("axis", new ol.geom.LineString([c, at(v, ry)])),
      make("center", new ol.geom.Point(c)),
      make("rx", new ol.geom.Point(at(u, rx))),
      make("ry", new ol.geom.Point(at(v, ry))),
      make("rotate", new ol.geom.Point(at(u, knob))),
    ]);
  }

  handleDown(ev) {
    if (this.tool !== "none") return false;
    const hit = this.map.forEachFeatureAtPixel(ev.pixel, (h) => (h.get("role") !== "axis" ? h : undefined),
      { layerFilter: (l) => l === this.handlesLayer, hitTolerance: 5 });
    const f = this.feature(this.selectedId);
    if (!hit || !f) return false;
    this.dragRole = hit.get("role");
    this.dragFeature = f;
    this.dragFrom = [ev.coordinate[0], this.h - ev.coordinate[1]];
    this.dragParams = JSON.parse(JSON.stringify(f.getGeometry().get("ellipse")));
    return true;
  }

  handleMove(ev) {
    const s = this.dragParams;
    const p = [ev.coordinate[0], this.h - ev.coordinate[1]];
    const d = [p[0] - s.center[0], p[1] - s.center[1]];
    const t = (s.rotation * Math.PI) / 180;
    const next = JSON.parse(JSON.stringify(s));
    if (this.dragRole === "center") {
      next.center = [s.center[0] + p[0] - this.dragFrom[0], s.center[1] + p[1] - this.dragFrom[1]];
    } else if (this.dragRole === "rx") {
      next.radii[0] = Math.max(1, Math.abs(d[0] * Math.cos(t) + d[1] * Math.sin(t)));
    } else if (this.dragRole === "ry") {
      next.radii[1] = Math.max(1, Math.abs(-d[0] * Math.sin(t) + d[1] * Math.cos(t)));
    } else if (this.dragRole === "rotate") {
      next.rotation = Math.round(((Math.atan2(d[1], d[0]) * 180) / Math.PI) * 10) / 10;
    }
    this.ellipseGeometry(next, this.dragFeature.getGeometry());
    this.drawHandles(this.dragFeature);
  }

  handleUp() {
    const f = this.dragFeature;
    this.dragRole = null;
    this.dragFeature = null;
    if (f) this.commitEdit(f);
    return false;
  }
}
