import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { factsWith, factWords, fieldId, MAX_COUNT, needsInput, parseInput, shownValue } from "../../static/js/lib/facts.js";

/** A field as the server's check gives it. */
const field = (kind, extra = {}) => ({
  mark: 12, name: "van", key: "k", kind, label: "Label?", what: "", required: true, value: null,
  choices: [], suggestions: [], suggest_labels: false, max_length: 20, problem: "", ...extra,
});

describe("a fact field shows the stored value", () => {
  it("as the input holds it, empty when unset", () => {
    assert.equal(shownValue(field("yes_no", { value: false })), "no");
    assert.equal(shownValue(field("time", { value: 0 })), "0");
    assert.equal(shownValue(field("text")), "");
    assert.equal(shownValue(field("relation", { value: "hides" })), "hides");
  });

  it("needs input when required and empty, or when the template has something to say", () => {
    assert.equal(needsInput(field("text")), true);
    assert.equal(needsInput(field("text", { required: false })), false);
    assert.equal(needsInput(field("count", { value: 3, problem: "the count says 3 but 2 marked cars are in it" })), true);
    assert.equal(fieldId(field("text", { key: "event" })), "12:event");
  });
});

describe("what a person types becomes a fact", () => {
  it("converts each kind, and an emptied field removes the fact", () => {
    assert.deepEqual(parseInput(field("yes_no"), "yes", 0), { value: true });
    assert.deepEqual(parseInput(field("count"), " 4 ", 0), { value: 4 });
    assert.deepEqual(parseInput(field("time"), "3.14159", 10), { value: 3.142 });
    assert.deepEqual(parseInput(field("text"), "  the  van stops ", 0), { value: "the van stops" });
    assert.deepEqual(parseInput(field("text"), "   ", 0), { remove: true });
    const choice = field("choice", { choices: [{ value: "enters", label: "enters it" }] });
    assert.deepEqual(parseInput(choice, "enters", 0), { value: "enters" });
  });

  it("writes a relation about the other mark", () => {
    const rel = field("relation", { other: 40, choices: [{ value: "hides", label: "the van hides part of the tree" }] });
    assert.deepEqual(parseInput(rel, "hides", 0), { value: { other: 40, relation: "hides" } });
  });

  it("refuses what the server would refuse, saying why", () => {
    assert.match(parseInput(field("count"), "2.5", 0).error, /whole number/);
    assert.match(parseInput(field("count"), String(MAX_COUNT + 1), 0).error, /from 0 to/);
    assert.match(parseInput(field("time"), "-1", 0).error, /0 or more/);
    assert.match(parseInput(field("time"), "12", 10).error, /past the end of the video \(10.00 s\)/);
    assert.equal("value" in parseInput(field("time"), "12", 0), true);  // length unknown: the server decides
    assert.match(parseInput(field("text"), "x".repeat(21), 0).error, /at most 20/);
    assert.match(parseInput(field("choice", { choices: [] }), "flies", 0).error, /one of the options/);
  });

  it("puts the value into a copy of the mark's facts, or takes the fact out", () => {
    const facts = { visible: true, k: "old" };
    assert.deepEqual(factsWith(facts, field("text"), { value: "new" }), { visible: true, k: "new" });
    assert.deepEqual(factsWith(facts, field("text"), { remove: true }), { visible: true });
    assert.equal(factsWith(facts, field("text"), { error: "no" }), null);
    assert.deepEqual(facts, { visible: true, k: "old" });
  });

  it("sets or takes out the relation about the field's other mark and keeps the others", () => {
    const rel = field("relation", { key: "occlusion", other: 40 });
    const facts = { visible: true, occlusion: [{ other: 40, relation: "none" }, { other: 41, relation: "hides" }] };
    assert.deepEqual(factsWith(facts, rel, { value: { other: 40, relation: "hidden_by" } }), {
      visible: true, occlusion: [{ other: 41, relation: "hides" }, { other: 40, relation: "hidden_by" }] });
    assert.deepEqual(factsWith(facts, rel, { remove: true }), { visible: true, occlusion: [{ other: 41, relation: "hides" }] });
    assert.deepEqual(factsWith({ visible: true }, rel, { value: { other: 40, relation: "mutual" } }),
      { visible: true, occlusion: [{ other: 40, relation: "mutual" }] });
    assert.deepEqual(factsWith({ occlusion: [{ other: 40, relation: "none" }] }, rel, { remove: true }), {});
    assert.equal(facts.occlusion.length, 2);
  });
});

describe("factWords: a fact in words on a mark's card", () => {
  const labels = new Map([[2, "tree"], [7, "car"]]);
  const labelOf = (id) => labels.get(id);
  it("words a relation list with the other marks' labels", () => {
    assert.equal(factWords([{ other: 2, relation: "hidden_by" }], labelOf), "hidden by tree #2");
    assert.equal(factWords([{ other: 2, relation: "hidden_by" }, { other: 7, relation: "hides" }], labelOf),
      "hidden by tree #2, hides car #7");
    assert.equal(factWords([{ other: 7, relation: "mutual" }, { other: 2, relation: "none" }], labelOf),
      "hides and is hidden by car #7, neither hides nor is hidden by tree #2");
  });
  it("names a mark it does not know by its id", () => {
    assert.equal(factWords([{ other: 9, relation: "hides" }], labelOf), "hides mark #9");
    assert.equal(factWords([{ other: 9, relation: "hides" }]), "hides mark #9");
  });
  it("never prints [object Object]", () => {
    assert.equal(factWords({ relation: "hidden_by", other: 2 }, labelOf), "hidden by tree #2");
    assert.equal(factWords({ a_b: 1, c: [true, false] }), "a b 1, c yes, no");
    assert.doesNotMatch(factWords([{ x: { y: 1 } }]), /object Object/);
  });
  it("keeps plain values as they are", () => {
    assert.equal(factWords(true), "yes");
    assert.equal(factWords(false), "no");
    assert.equal(factWords(3), "3");
    assert.equal(factWords("the van stops"), "the van stops");
    assert.equal(factWords(null), "");
  });
});
