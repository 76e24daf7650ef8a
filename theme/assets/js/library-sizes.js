/* Library sizes: choose a compiled file to read its exact size and share of the whole.
   Sizes come from the embedded where_code_lives record. */
(function () {
  "use strict";
  ldr.mount("library-sizes", function (root, rec) {
    var files = rec.rows, total = rec.total_bytes;
    var marks = ldr.all(root, ".ldr-mark");
    if (marks.length !== files.length) throw new Error("marks and files differ");
    var svg = root.querySelector("svg.ldr-plot");

    function select(i) {
      var f = files[i];
      ldr.set(root, "name", f.name, f.name);
      ldr.set(root, "folder", f.folder, f.folder);
      ldr.set(root, "bytes", f.bytes, ldr.group(f.bytes));
      ldr.set(root, "share", f.bytes / total, ldr.fmt(100 * f.bytes / total) + "%");
      ldr.mark(marks, i, "ldr-mark--current");
      // one tab stop for the whole chart: the chosen bar; arrow keys move between bars
      marks.forEach(function (m, k) { m.setAttribute("tabindex", k === i ? "0" : "-1"); });
    }

    // The rows become buttons: the chart is now a group of them, not a picture (an img role
    // makes its children presentational, and a button inside it is nested interactive).
    if (svg) svg.setAttribute("role", "group");
    marks.forEach(function (m, k) {
      // a row's accessible name is what it shows: name, size (the readout adds the rest)
      var texts = ldr.all(m, "text").map(function (t) { return t.textContent; });
      m.setAttribute("role", "button");
      m.setAttribute("aria-label", texts.join(", "));
      m.addEventListener("focus", function () { select(k); });
      m.addEventListener("click", function () { select(k); });
      m.addEventListener("pointerenter", function () { select(k); });
      m.addEventListener("keydown", function (event) {
        var to = event.key === "ArrowDown" ? k + 1 : event.key === "ArrowUp" ? k - 1 :
          event.key === "Home" ? 0 : event.key === "End" ? marks.length - 1 : -1;
        if (to < 0 || to >= marks.length) return;
        event.preventDefault();
        marks[to].focus();
      });
    });
    select(0);
  });
})();
