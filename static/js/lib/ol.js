// @ts-check
/* OpenLayers as a module. The vendored build (static/vendor/ol/ol.js) is a UMD bundle that sets the
 * global `ol`; the page loads it with a classic <script> before its module entry (classic scripts
 * run before deferred modules). Modules import it from here rather than reading the global, so
 * each file's imports say that it needs OpenLayers. No type declarations ship with the build. */

/** @type {any} */
const ol = /** @type {any} */ (globalThis).ol;
if (!ol) throw new Error("OpenLayers is not loaded: static/vendor/ol/ol.js must come before the page's module");

export default ol;
