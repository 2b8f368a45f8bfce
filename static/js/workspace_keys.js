/* Keyboard shortcuts for every frequent action, and the help overlay (`?`) that lists them.
 * Nothing fires while the focus is in a text field, a select or a text area; Esc leaves the field. */
(function () {
  "use strict";
  const { el } = window.Skymark;

  const plain = (e) => !e.ctrlKey && !e.metaKey && !e.altKey;
  const letter = (k) => (e) => plain(e) && e.key.toLowerCase() === k;
  const ctrl = (e) => e.ctrlKey || e.metaKey;

  /** [keys shown in help, what it does, matcher, action name, argument] */
  const SHORTCUTS = [
    ["Space", "Play / pause", (e) => plain(e) && e.key === " ", "toggle"],
    [",  /  .", "One frame back / forward", (e) => plain(e) && e.key === ",", "step", -1],
    [null, null, (e) => plain(e) && e.key === ".", "step", 1],
    ["Shift + ←  /  →", "1 s back / forward", (e) => e.shiftKey && !ctrl(e) && !e.altKey && e.key === "ArrowLeft", "jump", -1],
    [null, null, (e) => e.shiftKey && !ctrl(e) && !e.altKey && e.key === "ArrowRight", "jump", 1],
    ["Alt/Ctrl + ←  /  →", "5 s back / forward", (e) => (e.altKey || ctrl(e)) && e.key === "ArrowLeft", "jump", -5],
    [null, null, (e) => (e.altKey || ctrl(e)) && e.key === "ArrowRight", "jump", 5],
    ["E", "Ellipse tool (target instance)", letter("e"), "tool", "ellipse"],
    ["P", "Point tool (key location)", letter("p"), "tool", "point"],
    ["G", "Polygon tool (region)", letter("g"), "tool", "polygon"],
    ["T", "Trajectory tool (each click = vertex at the video time)", letter("t"), "tool", "polyline"],
    ["V  /  Esc", "Select tool (Esc also cancels the shape being drawn)", letter("v"), "tool", "none"],
    [null, null, (e) => e.key === "Escape", "escape"],
    ["Enter", "Finish the polygon or trajectory being drawn", (e) => plain(e) && e.key === "Enter", "finish"],
    ["Backspace", "Remove the last corner / vertex while drawing", (e) => plain(e) && e.key === "Backspace", "backspace"],
    ["Delete", "Delete the selected mark", (e) => plain(e) && e.key === "Delete", "remove"],
    ["Ctrl + Z", "Undo", (e) => ctrl(e) && !e.shiftKey && e.key.toLowerCase() === "z", "undo"],
    ["Ctrl + Shift + Z  /  Ctrl + Y", "Redo", (e) => ctrl(e) && ((e.shiftKey && e.key.toLowerCase() === "z") || e.key.toLowerCase() === "y"), "redo"],
    ["C", "Copy the selected mark to the cursor time", letter("c"), "copy"],
    ["[", "Time anchor: start = now", (e) => !ctrl(e) && e.key === "[", "anchor", "start"],
    ["]", "Time anchor: end = now", (e) => !ctrl(e) && e.key === "]", "anchor", "end"],
    ["I", "Time anchor: instant at now", letter("i"), "anchor", "instant"],
    ["F", "Fit the whole image", letter("f"), "fit"],
    ["?", "This help", (e) => e.key === "?", "help"],
  ];

  function typing() {
    const a = document.activeElement;
    if (!a) return false;
    if (a.isContentEditable || a.tagName === "TEXTAREA" || a.tagName === "SELECT") return true;
    return a.tagName === "INPUT" && !["button", "checkbox", "radio", "range", "submit", "reset"].includes(a.type);
  }

  function init(ws) {
    const overlay = document.getElementById("help-overlay");
    const table = document.getElementById("help-keys");
    table.replaceChildren(...SHORTCUTS.filter((s) => s[0]).map(([keys, desc]) =>
      el("div", { class: "ws-key" }, el("span", {}, ...keys.split(/(\s+\/\s+|\s+\+\s+)/).map((part) =>
        /^\s+[/+]\s+$/.test(part) ? el("span", { class: "muted" }, " " + part.trim() + " ") : el("kbd", {}, part))), el("span", {}, desc))));

    const help = {
      get open() { return !overlay.classList.contains("hidden"); },
      show() { overlay.classList.remove("hidden"); document.getElementById("help-close").focus(); },
      hide() { overlay.classList.add("hidden"); },
      toggle() { if (help.open) help.hide(); else help.show(); },
    };
    ws.help = help;
    document.getElementById("help-open").addEventListener("click", () => help.toggle());
    document.getElementById("help-close").addEventListener("click", () => help.hide());
    overlay.addEventListener("click", (ev) => { if (ev.target === overlay) help.hide(); });

    document.addEventListener("keydown", (ev) => {
      if (ev.defaultPrevented || ev.isComposing) return;
      if (typing()) {
        if (ev.key === "Escape") document.activeElement.blur();
        return;
      }
      if (help.open && (ev.key === "Escape" || ev.key === "?")) { ev.preventDefault(); help.hide(); return; }
      const hit = SHORTCUTS.find((s) => s[2](ev));
      if (!hit) return;
      const [, , , action, arg] = hit;
      if (action === "help") { ev.preventDefault(); help.toggle(); return; }
      const run = ws.actions[action];
      if (!run) return;
      // Enter and Backspace only mean something while drawing; elsewhere (a focused button, say)
      // leave them to the browser.
      if ((action === "backspace" || action === "finish") && !ws.drawingInProgress()) return;
      ev.preventDefault();
      run(arg);
    });
  }

  window.Skymark.keys = { init, SHORTCUTS };
})();
