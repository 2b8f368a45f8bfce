// @ts-check
/* Pure rules for the fields a person types into a mark: the label (from the project's label set)
 * and the task facts. The editor shows these messages before the server would refuse the edit. */

/** @typedef {import("./types.js").Facts} Facts */

/** @param {string} value */
const normalise = (value) => value.trim().replace(/\s+/g, " ").toLowerCase();

/** The label as the label set spells it ("  Van " -> "van"), or the trimmed text when it is not in the set.
 * @param {string} value @param {string[]} labels */
export function canonicalLabel(value, labels) {
  const wanted = normalise(value);
  return labels.find((l) => l.toLowerCase() === wanted) || value.trim();
}

/** Why this label cannot be saved, or null. An empty label set accepts any non-empty label.
 * @param {string} value @param {string[]} labels @returns {string|null} */
export function labelError(value, labels) {
  if (!value.trim()) return "choose a label from the project's label set first";
  if (labels.length && !labels.some((l) => l.toLowerCase() === normalise(value))) {
    return `“${value.trim()}” is not in the project's label set (${labels.slice(0, 6).join(", ")}, …)`;
  }
  return null;
}

/** Field messages for task facts; duration 0 means the video's length is unknown.
 * @param {Facts} facts @param {number} duration @returns {Record<string, string>} */
export function factErrors(facts, duration) {
  if (facts.count !== undefined && !(Number.isInteger(facts.count) && facts.count >= 0)) return { facts: "count must be a whole number, 0 or more" };
  if (facts.first_seen_s !== undefined && !(facts.first_seen_s >= 0 && (!duration || facts.first_seen_s <= duration + 1e-6))) {
    return { facts: "first seen at must be a time inside the video" };
  }
  return {};
}
