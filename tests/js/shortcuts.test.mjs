import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { SHORTCUTS, isTextEntry, shortcutFor } from "../../static/js/workspace/shortcuts.js";

describe("shortcutFor", () => {
  it("maps tool letters, in either case, without modifiers", () => {
    assert.deepEqual(shortcutFor({ key: "e" }), { action: "tool", arg: "ellipse" });
    assert.deepEqual(shortcutFor({ key: "P", shiftKey: true }), { action: "tool", arg: "point" });
    assert.deepEqual(shortcutFor({ key: "t" }), { action: "tool", arg: "polyline" });
    assert.equal(shortcutFor({ key: "p", ctrlKey: true }), null);
  });
  it("tells the second bindings of a row apart", () => {
    assert.deepEqual(shortcutFor({ key: "," }), { action: "step", arg: -1 });
    assert.deepEqual(shortcutFor({ key: "." }), { action: "step", arg: 1 });
    assert.deepEqual(shortcutFor({ key: "ArrowRight", shiftKey: true }), { action: "jump", arg: 1 });
    assert.deepEqual(shortcutFor({ key: "ArrowLeft", altKey: true }), { action: "jump", arg: -5 });
    assert.deepEqual(shortcutFor({ key: "ArrowRight", ctrlKey: true }), { action: "jump", arg: 5 });
    assert.deepEqual(shortcutFor({ key: "Escape" }), { action: "escape", arg: undefined });
  });
  it("tells undo from redo", () => {
    assert.equal(shortcutFor({ key: "z", ctrlKey: true }).action, "undo");
    assert.equal(shortcutFor({ key: "Z", ctrlKey: true, shiftKey: true }).action, "redo");
    assert.equal(shortcutFor({ key: "y", metaKey: true }).action, "redo");
  });
  it("leaves plain arrows and unknown keys to the browser", () => {
    assert.equal(shortcutFor({ key: "ArrowLeft" }), null);
    assert.equal(shortcutFor({ key: "x" }), null);
  });
  it("lists every action in the help with a description", () => {
    const shown = SHORTCUTS.filter((s) => s[0]);
    assert.ok(shown.length >= 20);
    assert.ok(shown.every((s) => typeof s[1] === "string" && s[1].length > 3));
  });
});

describe("isTextEntry", () => {
  it("counts text and number inputs, selects, text areas and editable content as typing", () => {
    assert.equal(isTextEntry({ tagName: "INPUT", type: "text" }), true);
    assert.equal(isTextEntry({ tagName: "INPUT", type: "number" }), true);
    assert.equal(isTextEntry({ tagName: "INPUT" }), true);  // no type: a text field
    assert.equal(isTextEntry({ tagName: "SELECT" }), true);
    assert.equal(isTextEntry({ tagName: "TEXTAREA" }), true);
    assert.equal(isTextEntry({ tagName: "DIV", isContentEditable: true }), true);
  });
  it("lets shortcuts through from buttons, check boxes and the page", () => {
    assert.equal(isTextEntry({ tagName: "INPUT", type: "checkbox" }), false);
    assert.equal(isTextEntry({ tagName: "BUTTON", type: "button" }), false);
    assert.equal(isTextEntry({ tagName: "BODY" }), false);
    assert.equal(isTextEntry(null), false);
  });
});
