// @ts-check
/* The facts a task reads on its marks, as the Items panel asks for them: what a field shows for a
 * stored value, what a typed value becomes (or why it cannot be one), and the mark's facts with it.
 * The server's catalog (annotator/marking/facts.py) gives each field its kind; this module only
 * converts and checks what a person types, before the server checks it again. No DOM. */

/** @typedef {import("./types.js").Facts} Facts */

/**
 * One fact field as POST /api/items/check/ gives it (Template.fact_fields on the server).
 * @typedef {object} FactField
 * @property {number} mark the mark that carries the fact
 * @property {string} name the mark as the question names it
 * @property {string} key
 * @property {"yes_no"|"time"|"count"|"text"|"choice"|"relation"} kind
 * @property {string} label
 * @property {string} what
 * @property {boolean} required
 * @property {any} value
 * @property {{value: string, label: string}[]} choices
 * @property {string[]} suggestions
 * @property {boolean} suggest_labels
 * @property {number} max_length
 * @property {string} problem what the template says about it ("" when nothing)
 * @property {number} [other] relation facts: the other mark
 * @property {string} [other_name]
 */

/** @typedef {{value: any}|{remove: true}|{error: string}} Parsed */

// As the server's annotator.marking.facts.MAX_COUNT: a typo guard far above what one region holds.
export const MAX_COUNT = 10000;

/** What the field shows for the stored value ("" when unset). @param {FactField} field */
export function shownValue(field) {
  const v = field.value;
  if (v === undefined || v === null) return "";
  if (field.kind === "yes_no") return v ? "yes" : "no";
  return String(v);
}

/** Whether a field still needs something from the person. @param {FactField} field */
export const needsInput = (field) => Boolean(field.problem) || (field.required && shownValue(field) === "");

/**
 * What the typed text becomes: a value to store, "remove the fact" (an emptied field), or why not.
 * @param {FactField} field @param {string} raw @param {number} duration the video's length, 0 when unknown
 * @returns {Parsed}
 */
export function parseInput(field, raw, duration) {
  const text = raw.trim();
  if (text === "") return { remove: true };
  switch (field.kind) {
    case "yes_no":
      return text === "yes" || text === "no" ? { value: text === "yes" } : { error: "yes or no" };
    case "count": {
      const n = Number(text);
      return Number.isInteger(n) && n >= 0 && n <= MAX_COUNT ? { value: n } : { error: `a whole number from 0 to ${MAX_COUNT}` };
    }
    case "time": {
      const t = Number(text);
      if (!Number.isFinite(t) || t < 0) return { error: "a video time in seconds, 0 or more" };
      if (duration && t > duration + 1e-6) return { error: `${t.toFixed(2)} s is past the end of the video (${duration.toFixed(2)} s)` };
      return { value: Math.round(t * 1000) / 1000 };
    }
    case "text":
      return text.length <= field.max_length ? { value: text.replace(/\s+/g, " ") } : { error: `at most ${field.max_length} characters` };
    case "choice":
    case "relation": {
      if (!field.choices.some((c) => c.value === text)) return { error: "choose one of the options" };
      return { value: field.kind === "relation" ? { other: field.other, relation: text } : text };
    }
    default:
      return { error: "this fact cannot be set here" };
  }
}

/** The mark's facts with the field's new value, or without the fact (a new object; null when the
 * input was refused). A relation fact is a list with one relation per other mark: the field sets or
 * takes out the one about its other mark and keeps the rest.
 * @param {Facts|undefined} facts @param {FactField} field @param {Parsed} parsed
 * @returns {Record<string, any>|null} */
export function factsWith(facts, field, parsed) {
  if ("error" in parsed) return null;
  /** @type {Record<string, any>} */
  const out = { ...(facts || {}) };
  if (field.kind === "relation") {
    const held = /** @type {any} */ (out[field.key]);
    /** @type {{other: number, relation: string}[]} */
    const others = (Array.isArray(held) ? held : []).filter((r) => r && r.other !== field.other);
    const list = "remove" in parsed ? others : [...others, parsed.value];
    if (list.length) out[field.key] = list;
    else delete out[field.key];
    return out;
  }
  if ("remove" in parsed) delete out[field.key];
  else out[field.key] = parsed.value;
  return out;
}

/** The same fact of the same mark, wherever it shows (several tasks may ask for it). @param {FactField} field */
export const fieldId = (field) => `${field.mark}:${field.key}`;

// A relation as read from the mark that holds it ("the house is hidden by the tree"); the server's
// OCCLUSION_RELATIONS words the same values for the question.
/** @type {Record<string, string>} */
const RELATION_WORDS = {
  hides: "hides", hidden_by: "hidden by", mutual: "hides and is hidden by", none: "neither hides nor is hidden by",
};

/** A stored fact value in words for a mark's card: yes/no, numbers and text as they are, a relation
 * list as "hidden by tree #12, hides car #7" (the other mark by its label and id, or "mark #12" when
 * it is not loaded). Never "[object Object]", whatever shape a fact takes.
 * @param {any} value @param {(id: number) => string|undefined} [labelOf] the label of a mark by id
 * @returns {string} */
export function factWords(value, labelOf) {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map((v) => factWords(v, labelOf)).filter(Boolean).join(", ");
  if (typeof value === "object") {
    if ("relation" in value && "other" in value) {
      const label = labelOf ? labelOf(Number(value.other)) : undefined;
      const words = RELATION_WORDS[value.relation] || String(value.relation).replace(/_/g, " ");
      return `${words} ${label ? label + " " : "mark "}#${value.other}`;
    }
    return Object.entries(value).map(([k, v]) => `${k.replace(/_/g, " ")} ${factWords(v, labelOf)}`).join(", ");
  }
  return String(value);
}
