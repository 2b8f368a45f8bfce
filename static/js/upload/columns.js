// @ts-check
/* The upload form's pure parts: which CSV column the admin picked for each telemetry field, what is
 * wrong with the picks before the server says so, the server's field errors, upload progress text.
 * Nothing runs at import time (node --test imports it). */

/** @typedef {{name: string, label: string, required: boolean}} TrackField */

/** The picks to send: every field the admin set, "" where they chose "not in this file".
 * @param {TrackField[]} fields @param {Record<string, string>} picks @returns {Record<string, string>} */
export function pickedColumns(fields, picks) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const f of fields) if (f.name in picks) out[f.name] = picks[f.name];
  return out;
}

/** Problems the server would refuse, shown beside the picker at once: a required field without a
 * column, one column picked for two fields.
 * @param {TrackField[]} fields @param {Record<string, string>} picks @returns {Record<string, string>} */
export function pickProblems(fields, picks) {
  /** @type {Record<string, string>} */
  const problems = {};
  /** @type {Map<string, string>} */
  const seen = new Map();
  for (const f of fields) {
    const column = picks[f.name] || "";
    if (!column) {
      if (f.required) problems[f.name] = `pick the column with the ${f.label}`;
      continue;
    }
    const other = seen.get(column);
    if (other !== undefined) problems[f.name] = `“${column}” is already the ${other}`;
    else seen.set(column, f.label);
  }
  return problems;
}

/** A Django form's errors as JSON ({field: [{message}]} from get_json_data, or DRF's {field: [text]})
 * -> {field: "one line"}; "__all__" and non_field_errors become "".
 * @param {any} body @returns {Record<string, string>} */
export function fieldErrors(body) {
  /** @type {Record<string, string>} */
  const out = {};
  const errors = body && typeof body === "object" ? body.errors || body : {};
  for (const [field, list] of Object.entries(errors)) {
    const items = Array.isArray(list) ? list : [list];
    const text = items.map((m) => (m && typeof m === "object" ? m.message || JSON.stringify(m) : String(m))).join(" ");
    const key = field === "__all__" || field === "non_field_errors" ? "" : field;
    out[key] = out[key] ? out[key] + " " + text : text;
  }
  return out;
}

/** "12.5 of 250.0 MB (5 %)" for an upload under way.
 * @param {number} loaded @param {number} total */
export function progressText(loaded, total) {
  const mb = (/** @type {number} */ n) => (n / 1e6).toFixed(1);
  if (!total) return `${mb(loaded)} MB sent`;
  const pct = Math.min(100, Math.floor((100 * loaded) / total));
  return `${mb(loaded)} of ${mb(total)} MB (${pct} %)`;
}
