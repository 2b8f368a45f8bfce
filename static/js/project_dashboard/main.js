// @ts-check
/* The project dashboard's map: each georeferenced scene's centre, named, over a graticule (no
 * tiles are fetched from elsewhere); a click opens the scene. */
import ol from "../lib/ol.js";
import { scenePoints } from "./points.js";

const target = document.getElementById("project-map");
const data = document.getElementById("scene-points");
if (target && data) {
  const { points, extent } = scenePoints(JSON.parse(data.textContent || "[]"));
  const features = points.map(
    (p) =>
      new ol.Feature({ geometry: new ol.geom.Point(ol.proj.fromLonLat([p.lon, p.lat])), name: p.name, sceneId: p.id }),
  );
  const style = (/** @type {any} */ feature) =>
    new ol.style.Style({
      image: new ol.style.Circle({ radius: 6, fill: new ol.style.Fill({ color: "#1f6feb" }), stroke: new ol.style.Stroke({ color: "#fff", width: 2 }) }),
      text: new ol.style.Text({ text: feature.get("name"), offsetY: -14, font: "12px sans-serif", fill: new ol.style.Fill({ color: "#111" }), stroke: new ol.style.Stroke({ color: "#fff", width: 3 }) }),
    });
  const map = new ol.Map({
    target,
    layers: [
      new ol.layer.Graticule({ showLabels: true, strokeStyle: new ol.style.Stroke({ color: "rgba(0,0,0,0.2)", width: 1 }) }),
      new ol.layer.Vector({ source: new ol.source.Vector({ features }), style }),
    ],
    view: new ol.View({ center: [0, 0], zoom: 2 }),
  });
  if (extent) map.getView().fit(ol.proj.transformExtent(extent, "EPSG:4326", "EPSG:3857"), { padding: [30, 30, 30, 30], maxZoom: 16 });
  map.on("click", (/** @type {any} */ event) => {
    map.forEachFeatureAtPixel(event.pixel, (/** @type {any} */ feature) => {
      window.location.href = `/scenes/${feature.get("sceneId")}/`;
      return true;
    });
  });
  target.dataset.points = String(points.length);
}
