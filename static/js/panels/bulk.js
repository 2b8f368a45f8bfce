// @ts-check
/* Bulk actions of the Items panel, as pure logic (tests/js/bulk.test.mjs): which items a filter
 * shows, which are selected, which of those an action applies to, and the sentence that sums up
 * the server's answer (POST /api/items/bulk/). The server decides: these only say what to offer. */

/** @typedef {import("../lib/types.js").Item} Item */
/** @typedef {"submit"|"recompile"|"revise"|"withdraw"} BulkAction */

/** What the filter of the Items panel can show: value -> words. @type {Record<string, string>} */
export const FILTERS = {
  all: "All items",
  open: "To work on (drafts, rejected)",
  stale: "Stale",
  draft: "Drafts",
  rejected: "Rejected",
  in_review: "In review",
  approved: "Approved",
};

const replaced = (/** @type {Item} */ it) => Boolean(it.replaced_by);

/** Whether the filter shows the item. @param {Item} it @param {string} filter */
export function shows(it, filter) {
  if (filter === "open") return !replaced(it) && (it.state === "draft" || it.state === "rejected");
  if (filter === "stale") return !replaced(it) && Boolean(it.stale);
  if (filter in FILTERS && filter !== "all") return it.state === filter;
  return true;
}

/** @param {Iterable<Item>} items @param {string} filter @returns {Item[]} */
export function filterItems(items, filter) {
  return [...items].filter((it) => shows(it, filter));
}

/** Whether the action can apply to the item, as the lifecycle would decide with what the page
 * knows (a first draft is never withdrawn: it was never reviewed). @param {Item} it @param {BulkAction} action */
export function canAct(it, action) {
  if (replaced(it)) return false;
  if (action === "submit") return it.state === "draft" && !it.stale;
  if (action === "recompile") return Boolean(it.stale) && (it.state === "draft" || it.state === "rejected");
  if (action === "revise") return it.state === "rejected";
  return it.state === "rejected" || (it.state === "draft" && (it.revision || 1) > 1);
}

/** The items chosen with their checkboxes. */
export class Selection {
  constructor() {
    /** @type {Set<number>} */
    this.ids = new Set();
  }

  /** @param {number} id */
  has(id) { return this.ids.has(id); }
  get size() { return this.ids.size; }

  /** @param {number} id @param {boolean} [on] toggles when left out */
  toggle(id, on) {
    if (on === undefined ? !this.ids.has(id) : on) this.ids.add(id); else this.ids.delete(id);
  }

  /** Select or unselect all of these (the items the filter shows). @param {number[]} ids @param {boolean} on */
  setAll(ids, on) { ids.forEach((id) => this.toggle(id, on)); }

  /** Forget items no longer shown (filtered out, replaced or gone). @param {number[]} ids */
  keepOnly(ids) {
    const keep = new Set(ids);
    for (const id of [...this.ids]) if (!keep.has(id)) this.ids.delete(id);
  }

  /** The select-all box: all shown selected, some, or none. @param {number[]} shown
   * @returns {"all"|"some"|"none"} */
  state(shown) {
    const n = shown.filter((id) => this.ids.has(id)).length;
    return n === 0 ? "none" : n === shown.length ? "all" : "some";
  }

  /** The selected items the action applies to, in the order listed. @param {Item[]} listed @param {BulkAction} action */
  actionable(listed, action) {
    return listed.filter((it) => this.ids.has(it.id) && canAct(it, action)).map((it) => it.id);
  }
}

/**
 * One entry of the server's answer.
 * @typedef {{id: number, ok: boolean, error: string, item: Item|null}} BulkResult
 */

/** @type {Record<BulkAction, [string, string]>} done / none-done wording */
const WORDS = {
  submit: ["Submitted {n} for review", "None submitted"],
  recompile: ["Compiled {n} again from the current marks", "None compiled again"],
  revise: ["Revised {n}: each is a new draft to check and submit", "None revised"],
  withdraw: ["Withdrew {n}", "None withdrawn"],
};

const plural = (/** @type {number} */ n) => `${n} item${n === 1 ? "" : "s"}`;

/** The sentence that sums up a bulk answer, naming each refused item and why.
 * @param {BulkAction} action @param {BulkResult[]} results
 * @param {(id: number) => string} uidOf how the page names an item (its uid) */
export function summary(action, results, uidOf) {
  const done = results.filter((r) => r.ok).length;
  const refused = results.filter((r) => !r.ok);
  const head = done ? WORDS[action][0].replace("{n}", plural(done)) : WORDS[action][1];
  if (!refused.length) return head + ".";
  const why = refused.map((r) => `${uidOf(r.id)}: ${r.error}`).join("; ");
  return `${head}; ${plural(refused.length)} refused — ${why}.`;
}
