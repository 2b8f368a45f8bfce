// @ts-check
/* The review pages' keyboard, as a pure function of the key and the page's stage, so the rules
 * are tested without a browser: 1–8 pick an option, Enter commits the blind answer, A approves,
 * R rejects, N goes to the next item. */

/** @typedef {"blind" | "decide" | "decided"} Stage */
/** @typedef {{type: "choose", index: number} | {type: "answer"} | {type: "approve"} | {type: "reject"} | {type: "next"}} KeyAction */

/**
 * @param {{key: string, ctrlKey?: boolean, metaKey?: boolean, altKey?: boolean}} ev
 * @param {Stage} stage
 * @param {number} optionCount how many options the item has (0 for numbers and times)
 * @param {boolean} typing the focus is in a text field (only Enter counts there, and only blind)
 * @returns {KeyAction | null}
 */
export function reviewKeyAction(ev, stage, optionCount, typing) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return null;
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (typing) return stage === "blind" && key === "Enter" ? { type: "answer" } : null;
  if (key === "n") return { type: "next" };
  if (stage === "blind") {
    if (/^[1-8]$/.test(key) && Number(key) <= optionCount) return { type: "choose", index: Number(key) - 1 };
    if (key === "Enter") return { type: "answer" };
    return null;
  }
  if (stage === "decide") {
    if (key === "a") return { type: "approve" };
    if (key === "r") return { type: "reject" };
  }
  return null;
}

/** Seconds between two performance.now() readings, rounded to milliseconds.
 * @param {number} start @param {number} end */
export function elapsedSeconds(start, end) {
  return Math.max(0, Math.round(end - start)) / 1000;
}
