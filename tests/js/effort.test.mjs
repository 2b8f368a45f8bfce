import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { EffortMeter, IDLE_AFTER_MS, clockText } from "../../static/js/workspace/effort.js";

/** A meter on a clock the test moves. */
function meter() {
  const clock = { t: 0 };
  const m = new EffortMeter(() => clock.t);
  return { m, at: (/** @type {number} */ ms) => { clock.t = ms; } };
}

describe("EffortMeter", () => {
  it("counts time after input, for at most a minute without more", () => {
    const { m, at } = meter();
    at(5000); m.input();          // nothing before the first input counts
    at(35000); m.input();         // 30 s of work
    at(35000 + IDLE_AFTER_MS + 120000);  // then away for three minutes
    assert.equal(m.take(), 30 + 60);
    assert.equal(m.take(), 0);
  });

  it("stops while the page is not focused", () => {
    const { m, at } = meter();
    at(0); m.input();
    at(10000); m.focus(false);    // another tab
    at(40000); m.focus(true);
    at(50000); m.input();
    assert.equal(m.peek(), 10 + 10);
  });

  it("gives back seconds a report could not deliver", () => {
    const { m, at } = meter();
    at(0); m.input();
    at(12000);
    const s = m.take();
    m.giveBack(s);
    assert.equal(m.take(), 12);
  });

  it("writes the clock as minutes and seconds", () => {
    assert.equal(clockText(0), "0:00");
    assert.equal(clockText(187.9), "3:07");
    assert.equal(clockText(3723), "1:02:03");
  });
});
