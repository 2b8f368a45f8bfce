// @ts-check
/* OpenLayers styles of the workspace map: marks (dimmed outside their time anchor, blue when
 * selected, purple when the reviewed item uses them, red when a rejected item used them),
 * trajectory dots, the drawing sketch, ellipse handles and the CVAA box. */

import ol from "../lib/ol.js";
import { labelAnchor } from "../lib/placement.js";

/** @typedef {import("./map.js").MapView} MapView */
/** @typedef {import("../lib/types.js").Mark} Mark */

const ORANGE = "#ff7a00";
const BLUE = "#1f6feb";
const PURPLE = "#8e44ec";
const RED = "#d92d20";
const TEAL = "#0fa3a3";

/** "#rrggbb" at opacity a. @param {string} hex @param {number} a */
export function rgba(hex, a) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
}

/** @param {Mark} mark @param {number} alpha @param {boolean} flagged */
function label(mark, alpha, flagged) {
  return new ol.style.Text({
    text: (flagged ? "✗ " : "") + mark.label + (mark.draft ? " (draft)" : ""), font: "600 12px system-ui, sans-serif",
    // Point labels sit to the right so they do not cover the point or a region label under it.
    offsetX: mark.kind === "point" ? 10 : 0, textAlign: mark.kind === "point" ? "left" : "center",
    fill: new ol.style.Fill({ color: rgba(flagged ? "#8a1c1c" : "#111111", alpha) }),
    stroke: new ol.style.Stroke({ color: rgba("#ffffff", 0.9 * alpha), width: 3 }),
    overflow: true,
  });
}

/** Label above a region's top edge so it never hides what is inside the region. */
const topCenter = (/** @type {any} */ f) => {
  const [x0, , x1, y1] = f.getGeometry().getExtent();
  return new ol.geom.Point([(x0 + x1) / 2, y1]);
};

/** The style of a mark: by kind, time, selection, review highlight and rejection flag.
 * @param {MapView} map @param {any} feature */
export function mark(map, feature) {
  const m = feature.get("mark");
  if (!m || map.isHidden(m)) return null;
  const current = map.isCurrent(m);
  const selected = feature.getId() === map.selectedId;
  const highlighted = map.highlighted.has(feature.getId());
  const flagged = map.flags.has(feature.getId());
  const color = selected ? BLUE : highlighted ? PURPLE : flagged ? RED : m.kind === "polyline" ? TEAL : ORANGE;
  const alpha = current || selected || highlighted ? 1 : 0.35;
  const width = selected || highlighted ? 3 : 2;
  const text = label(m, alpha, flagged);
  const styles = [];
  if (highlighted) {
    // A wide soft halo under the outline: the marks of the item under review stand out at any zoom.
    styles.push(new ol.style.Style({
      stroke: new ol.style.Stroke({ color: rgba(PURPLE, 0.35), width: 10 }),
      image: new ol.style.Circle({ radius: 12, fill: new ol.style.Fill({ color: rgba(PURPLE, 0.3) }) }),
    }));
  }
  if (m.kind === "point") {
    styles.push(new ol.style.Style({
      image: new ol.style.Circle({
        radius: selected ? 7 : 6, fill: new ol.style.Fill({ color: rgba(color, alpha) }),
        stroke: new ol.style.Stroke({ color: rgba("#ffffff", alpha), width: 2 }),
      }),
      text,
    }));
    return styles;
  }
  // A draft trajectory (tracked, not yet confirmed) is dashed, so it never passes for a drawn one.
  const dash = m.draft ? [10, 6] : flagged && !selected ? [8, 4] : undefined;
  const stroke = new ol.style.Stroke({ color: rgba(color, alpha), width, lineDash: dash });
  if (m.kind === "polyline") {
    styles.push(new ol.style.Style({ stroke, text }));
    // Vertices as small rings: a recorded trajectory shows where each timestamp was taken.
    styles.push(new ol.style.Style({
      image: new ol.style.Circle({ radius: 3, fill: new ol.style.Fill({ color: rgba("#ffffff", alpha) }),
        stroke: new ol.style.Stroke({ color: rgba(color, alpha), width: 1.5 }) }),
      geometry: (/** @type {any} */ f) => new ol.geom.MultiPoint(f.getGeometry().getCoordinates()),
    }));
    return styles;
  }
  styles.push(new ol.style.Style({ stroke, fill: new ol.style.Fill({ color: rgba(color, current || selected ? 0.16 : 0.05) }) }));
  text.setTextBaseline("bottom");
  text.setOffsetY(-4);
  styles.push(new ol.style.Style({ geometry: topCenter, text }));
  return styles;
}

/** The target's position on a trajectory at the cursor time. */
/** @param {MapView} map @param {any} feature */
export function dot(map, feature) {
  const f = map.feature(feature.get("markId"));
  if (f && map.isHidden(f.get("mark"))) return null;
  const selected = feature.get("markId") === map.selectedId;
  return new ol.style.Style({
    image: new ol.style.Circle({
      radius: 7, fill: new ol.style.Fill({ color: selected ? BLUE : TEAL }),
      stroke: new ol.style.Stroke({ color: "#ffffff", width: 2.5 }),
    }),
    zIndex: 10,
  });
}

export function pending() {
  return new ol.style.Style({
    stroke: new ol.style.Stroke({ color: BLUE, width: 2, lineDash: [6, 4] }),
    fill: new ol.style.Fill({ color: "rgba(31, 111, 235, 0.12)" }),
    image: new ol.style.Circle({ radius: 5, fill: new ol.style.Fill({ color: "rgba(31,111,235,.6)" }),
      stroke: new ol.style.Stroke({ color: "#fff", width: 1.5 }) }),
  });
}

export function drawing() {
  return new ol.style.Style({
    stroke: new ol.style.Stroke({ color: BLUE, width: 2 }),
    fill: new ol.style.Fill({ color: "rgba(31, 111, 235, 0.15)" }),
    image: new ol.style.Circle({ radius: 5, fill: new ol.style.Fill({ color: BLUE }),
      stroke: new ol.style.Stroke({ color: "#fff", width: 1.5 }) }),
  });
}

/** @param {any} feature */
export function handle(feature) {
  const role = feature.get("role");
  if (role === "axis") {
    return new ol.style.Style({ stroke: new ol.style.Stroke({ color: rgba(BLUE, 0.8), width: 1, lineDash: [4, 3] }) });
  }
  const shape = role === "rotate"
    ? new ol.style.Circle({ radius: 6, fill: new ol.style.Fill({ color: "#ffffff" }), stroke: new ol.style.Stroke({ color: BLUE, width: 2 }) })
    : new ol.style.RegularShape({ points: 4, radius: 7, angle: Math.PI / 4,
      fill: new ol.style.Fill({ color: role === "center" ? BLUE : "#ffffff" }), stroke: new ol.style.Stroke({ color: BLUE, width: 2 }) });
  return new ol.style.Style({ image: shape, zIndex: 20 });
}

/** Screen pixels kept clear for a CVAA label's anchor: at the top the band where the zoom buttons and
 * the recording banner float (8 px + a 28 px banner) and a line of text, as the box's label is drawn
 * above its anchor; at the sides the zoom and fit buttons down the left edge (8 px + 26 px, and a gap)
 * plus half the label (it is centred on its anchor), at about 7.2 px a character of its 12 px bold font. */
const LABEL_TOP_PX = 56;
const LABEL_BUTTONS_PX = 44;
const LABEL_CHAR_PX = 7.2;

/** The anchor of a CVAA quad's label: its top middle while that shows, else lowered into view
 *  (lib/placement.js labelAnchor). @param {MapView} map @param {any} feature */
function labelAt(map, feature) {
  const view = map.map.getView();
  const size = map.map.getSize();
  const res = view.getResolution();
  if (!size || !res) return topCenter(feature);
  const quad = feature.getGeometry().getCoordinates()[0].slice(0, 4);
  const half = 0.5 * LABEL_CHAR_PX * String(feature.get("label") || "").length;
  const inset = { top: LABEL_TOP_PX * res, side: (LABEL_BUTTONS_PX + half) * res };
  return new ol.geom.Point(labelAnchor(quad, view.calculateExtent(size), inset));
}

/** The CVAA layer: the predicted box (dashed cyan) and the footprint from the best known source
 *  (solid orange), each labelled (its source, and the box's score) at its top edge: the box's label
 *  above the edge and the footprint's below it, so the two stay readable when they coincide. Where the
 *  top edge is out of view or in the map's top band, the label comes down into view (labelAt).
 *  @param {MapView} map @param {any} feature */
export function cvaa(map, feature) {
  const isBox = feature.get("role") === "cvaa";
  const color = isBox ? "#00b3ff" : ORANGE;
  return [
    new ol.style.Style({
      stroke: new ol.style.Stroke({ color, width: 2, lineDash: isBox ? [10, 6] : undefined }),
      fill: new ol.style.Fill({ color: rgba(color, 0.06) }),
    }),
    new ol.style.Style({
      geometry: labelAt(map, feature),
      text: new ol.style.Text({
        text: feature.get("label") || "", font: "600 12px system-ui, sans-serif", overflow: true,
        textBaseline: isBox ? "bottom" : "top", offsetY: isBox ? -4 : 4,
        fill: new ol.style.Fill({ color: isBox ? "#005b82" : "#8a3d00" }),
        stroke: new ol.style.Stroke({ color: "#fff", width: 3 }),
      }),
    }),
  ];
}

/** A draft trajectory's uncertainty around each vertex: a soft disc, amber where the placement was
 * chained or matched rather than fixed by control points, red with a bold rim where the tracker
 * itself doubts the vertex (its back-check error; lib/assist.js toCheck). @param {any} feature */
export function uncertainty(feature) {
  const fixed = String(feature.get("source") || "").startsWith("control_points") || feature.get("source") === "same_frame";
  const check = Boolean(feature.get("check"));
  const color = check ? "#c0392b" : fixed ? TEAL : "#d9a400";
  return new ol.style.Style({
    fill: new ol.style.Fill({ color: rgba(color, check ? 0.3 : 0.18) }),
    stroke: new ol.style.Stroke({ color: rgba(color, check ? 0.95 : 0.6), width: check ? 2 : 1 }),
  });
}
