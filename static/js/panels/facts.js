// @ts-check
/* The facts a task reads, asked for inside its row of the Items panel: one typed field per fact
 * and mark (yes/no, a time with "now", a count, a choice, a sentence), named as the question names
 * the mark. A field saves on change through the workspace's history (undo, autosave, 409s and 400s
 * as for any edit of the mark); the server's check then says whether the task is ready. */

import { el } from "../lib/dom.js";
import { factsWith, fieldId, needsInput, parseInput, shownValue } from "../lib/facts.js";

/** @typedef {import("../workspace/state.js").Workspace} Workspace */
/** @typedef {import("../lib/facts.js").FactField} FactField */

/** @param {FactField} f @param {string} id @param {boolean} disabled */
function input(f, id, disabled) {
  const data = { factId: fieldId(f), testid: `fact-${f.key}` };
  if (f.kind === "yes_no" || f.kind === "choice" || f.kind === "relation") {
    const options = f.kind === "yes_no" ? [{ value: "yes", label: "yes" }, { value: "no", label: "no" }] : f.choices;
    const select = el("select", { id, disabled, dataset: data },
      el("option", { value: "" }, "unset"), ...options.map((c) => el("option", { value: c.value }, c.label)));
    /** @type {HTMLSelectElement} */ (select).value = shownValue(f);
    return select;
  }
  const numeric = f.kind === "time" || f.kind === "count";
  const list = f.suggestions.length || f.suggest_labels ? `${id}-list` : null;
  const box = el("input", {
    id, disabled, dataset: data, autocomplete: "off", list,
    type: numeric ? "number" : "text", min: numeric ? "0" : null, step: f.kind === "time" ? "0.01" : numeric ? "1" : null,
    inputmode: numeric ? "decimal" : null, maxlength: numeric ? null : String(f.max_length),
    // "optional" only while nothing asks for it: an optional fact the marks make necessary (a count
    // with no instance marks) is flagged instead.
    placeholder: f.required || needsInput(f) ? "" : "optional",
  });
  /** @type {HTMLInputElement} */ (box).value = shownValue(f);
  return box;
}

/**
 * The fields of one task's row.
 * @param {string} task @param {FactField[]} fields
 * @param {{locked: (mark: number) => boolean, serverError: (f: FactField) => string, labels: string[], open: boolean}} opts
 */
export function factFields(task, fields, opts) {
  const rows = fields.map((f, i) => {
    const id = `fact-${task}-${i}`;
    const locked = opts.locked(f.mark);
    // An empty required field is marked as such; the template's "set the fact ..." would only repeat its help.
    const unsetNotice = f.problem.startsWith("set the fact") && shownValue(f) === "";
    const message = opts.serverError(f) || (unsetNotice ? "" : f.problem);
    const about = f.kind === "relation" ? `${f.name} and ${f.other_name}` : f.name;
    const suggestions = f.suggest_labels ? opts.labels : f.suggestions;
    return el("div", { class: "field it-fact" + (message ? " has-error" : "") + (unsetNotice ? " unset" : ""), dataset: { field: f.key } },
      el("label", { for: id }, f.label, " ", el("span", { class: "muted" }, "· " + about), f.required ? el("span", { class: "req" }) : null),
      el("div", { class: "ws-inline" },
        input(f, id, locked),
        f.kind === "time" ? el("button", { class: "btn small", type: "button", disabled: locked, title: "Set to the video cursor's time",
          dataset: { factNow: fieldId(f) } }, "now") : null),
      suggestions.length ? el("datalist", { id: `${id}-list` }, suggestions.map((s) => el("option", { value: s }))) : null,
      el("div", { class: "help" }, f.what),
      el("div", { class: "field-error", dataset: { errorFor: `facts.${f.key}` } }, message));
  });
  const open = opts.open || fields.some(needsInput);
  const missing = fields.filter(needsInput).length;
  return el("details", { class: "it-facts", open, dataset: { task } },
    el("summary", {}, missing ? `Facts · ${missing} to set` : `Facts (${fields.length})`), rows);
}

/**
 * Save what a fact field holds on its mark. Returns the message to show when the page refuses the
 * value itself (nothing is sent then), or "".
 * @param {Workspace} ws @param {FactField} f @param {string} raw
 */
export function saveFact(ws, f, raw) {
  const mark = ws.store.get(f.mark);
  if (!mark || ws.isLocked(f.mark)) return "this mark is part of an item in review or approved; it cannot change now";
  const parsed = parseInput(f, raw, ws.cursor.duration);
  if ("error" in parsed) return `${f.label.replace(/\?$/, "")}: ${parsed.error}`;
  const facts = factsWith(mark.facts, f, parsed);
  if (facts && JSON.stringify(facts) !== JSON.stringify(mark.facts || {})) ws.history.update(f.mark, { facts });
  return "";
}
