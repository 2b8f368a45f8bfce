// @ts-check
/* The Items panel's pure parts: the marks picked for an item, in order (templates give the parts
 * in that order: the target first, then the region), the tasks list as the server's check gives it,
 * and the lines the panel says after compiling all. No DOM, no requests. */

/**
 * One task as POST /api/items/check/ answers (annotator/compiling/checks.py).
 * @typedef {object} TaskCheck
 * @property {string} task
 * @property {string} label
 * @property {string} dimension
 * @property {string} answer_format
 * @property {boolean} ok
 * @property {{field: string, message: string}[]} missing
 * @property {string[]} needs
 * @property {string} derives
 * @property {import("../lib/facts.js").FactField[]} fields the facts it reads on these marks
 */

/** Add the mark at the end, or take it out if it is picked already. @param {number[]} picked @param {number} id */
export function togglePick(picked, id) {
  return picked.includes(id) ? picked.filter((p) => p !== id) : [...picked, id];
}

/** Move a picked mark earlier (-1) or later (+1). @param {number[]} picked @param {number} id @param {number} delta */
export function movePick(picked, id, delta) {
  const i = picked.indexOf(id);
  const j = i + delta;
  if (i < 0 || j < 0 || j >= picked.length) return picked;
  const out = [...picked];
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}

/** The picked marks that still exist, under their current ids (a new mark gets its id when saved).
 * @param {number[]} picked @param {(id: number) => number} resolve @param {(id: number) => boolean} exists */
export function livePicks(picked, resolve, exists) {
  const out = [];
  for (const id of picked.map(resolve)) if (exists(id) && !out.includes(id)) out.push(id);
  return out;
}

/** Unsaved marks (negative ids) cannot be checked or compiled yet. @param {number[]} picked */
export const unsavedPicks = (picked) => picked.filter((id) => id < 0);

/** What a task's row says: ready, or the first thing missing (and how many more).
 * @param {TaskCheck} t @param {number} nPicked */
export function taskStatus(t, nPicked) {
  if (t.ok) return { ready: true, text: "ready" };
  if (!nPicked) return { ready: false, text: "needs " + t.needs.join("; ") };
  const [first, ...rest] = t.missing;
  const more = rest.length ? ` (+${rest.length} more)` : "";
  return { ready: false, text: (first ? first.message : "cannot be made from these marks") + more };
}

/**
 * One combination of marks a template refused when compiling all (annotator/compiling/batch.py).
 * @typedef {object} Refusal
 * @property {{id: number, kind: string, name: string}[]} marks the marks, named as the question would
 * @property {string} field what to fix ("facts.count_class", "marks", ...)
 * @property {string} reason the template's reason
 */

/**
 * The server's tally after compiling all, per task.
 * @typedef {{task: string, created: number, existing: number, refused: number, refusals?: Refusal[]}} TaskTally
 * @typedef {{items: any[], tasks: TaskTally[], truncated: boolean}} BatchBody
 */

/**
 * The line the panel says after compiling all, from the server's tally.
 * @param {BatchBody} body
 * @param {Record<string, string>} labels
 */
export function batchSummary(body, labels) {
  const made = body.items.length;
  const refused = body.tasks.reduce((n, t) => n + t.refused, 0);
  const existing = body.tasks.reduce((n, t) => n + t.existing, 0);
  const tasks = body.tasks.filter((t) => t.created).map((t) => `${labels[t.task] || t.task} ${t.created}`);
  const parts = [`Compiled ${made} item${made === 1 ? "" : "s"}` + (tasks.length ? ` (${tasks.join(", ")})` : "")];
  if (existing) parts.push(`${existing} already had an item`);
  if (refused) parts.push(`${refused} combination${refused === 1 ? "" : "s"} the templates refused (listed below)`);
  if (body.truncated) parts.push("stopped at the limit: compile all again for the rest");
  return parts.join("; ");
}

/**
 * Each refused combination as a line: the task, its marks by name (and id, as names repeat across
 * combinations) and the template's reason, in the server's order.
 * @param {BatchBody} body @param {Record<string, string>} labels
 * @returns {{task: string, marks: number[], text: string}[]}
 */
export function refusalLines(body, labels) {
  return body.tasks.flatMap((t) => (t.refusals || []).map((r) => ({
    task: t.task,
    marks: r.marks.map((m) => m.id),
    text: `${labels[t.task] || t.task}: ${r.marks.map((m) => `${m.name} (#${m.id})`).join(", ")} — ${r.reason}`,
  })));
}

/** Items still waiting for their model view, to ask again about. @param {Iterable<any>} items */
export function viewsPending(items) {
  return [...items].filter((it) => it.model_view && (it.model_view.state === "pending" || it.model_view.state === "running"))
    .map((it) => it.id);
}
