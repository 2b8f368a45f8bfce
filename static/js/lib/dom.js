// @ts-check
/* Building DOM nodes: el("li", {class: "x", dataset: {id: 3}}, "text", child). */

/** @typedef {Node|string|number|null|undefined|false} Child */

/**
 * @param {string} tag
 * @param {Record<string, any>|null} [attrs] class, dataset, on<event> handlers, other attributes;
 *   null, undefined and false leave an attribute out, true sets it empty
 * @param {...(Child|Child[])} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const STATE_LABELS = /** @type {Record<string, string>} */ ({ draft: "Draft", in_review: "In Review", in_adjudication: "In Adjudication", approved: "Approved", rejected: "Rejected" });

/** @param {string} state @param {string} [label] */
export function badge(state, label) {
  return el("span", { class: "badge state-" + state }, label || STATE_LABELS[state] || state);
}

/** The element with this id, typed as the caller says it is (the templates own the ids).
 * @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
export function byId(id) {
  return /** @type {T} */ (document.getElementById(id));
}

/** The parsed content of a <script type="application/json"> the server rendered (json_script).
 * @param {string} id @param {any} fallback */
export function jsonScript(id, fallback) {
  const node = document.getElementById(id);
  try { return node ? JSON.parse(node.textContent || "") : fallback; } catch (err) { return fallback; }
}
