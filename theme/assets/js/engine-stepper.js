/* Engine stepper: walk backward in the order the engine ran the nodes. At each step the node that
   runs, the nodes ready beside it and the nodes already run come from the embedded engine_order
   record (ORDER: step, name, seq, after, ready); nothing is computed but which step is shown. */
(function () {
  "use strict";
  // AccumulateGrad's sequence number is the largest uint64, which JSON hands JavaScript rounded
  function seqText(seq) { return seq >= 1.8e19 ? "max" : String(seq); }

  ldr.mount("engine-stepper", function (root, rec) {
    var rows = rec.data.ORDER, at = 0;
    var marks = ldr.all(root, ".ldr-mark");
    var edges = ldr.all(root, ".ldr-edge");
    var figure = root.querySelector(".ldr-figure");
    if (marks.length !== rows.length) throw new Error("marks and ORDER differ");
    // on a phone the graph keeps its drawn size (shrunk, labels were 7 px) and scrolls in its box,
    // each step bringing the running node into view
    var svg = figure.querySelector("svg"), drawnMin = svg.style.minWidth;
    var phone = window.matchMedia("(max-width: 44.984375em)");
    function fit() { svg.style.minWidth = phone.matches ? svg.style.maxWidth : drawnMin; }
    function reveal(mark) {
      if (figure.scrollWidth <= figure.clientWidth) return;
      var box = figure.getBoundingClientRect(), r = mark.getBoundingClientRect();
      if (r.left < box.left || r.right > box.right) figure.scrollLeft += (r.left + r.right - box.left - box.right) / 2;
    }
    fit();
    if (phone.addEventListener) phone.addEventListener("change", function () { fit(); show(at); });

    function show(i) {
      at = Math.max(0, Math.min(rows.length - 1, i));
      var row = rows[at], ready = {};
      row.ready.forEach(function (s) { ready[s] = true; });
      marks.forEach(function (m) {
        var k = Number(m.getAttribute("data-step"));
        m.classList.toggle("ldr-mark--current", k === at);
        m.classList.toggle("ldr-mark--visited", k < at);
        m.classList.toggle("ldr-mark--ready", k !== at && !!ready[k]);
        if (k === at) reveal(m);
      });
      edges.forEach(function (e) {
        e.classList.toggle("ldr-edge--current", Number(e.getAttribute("data-to")) === at);
      });
      ldr.set(root, "step", at + 1, (at + 1) + " of " + rows.length);
      ldr.set(root, "name", row.name, row.name);
      ldr.set(root, "seq", seqText(row.seq), seqText(row.seq));
      ldr.set(root, "ready", row.ready.join(","), row.ready.map(function (s) {
        return rows[s].name + " (" + seqText(rows[s].seq) + ")";
      }).join(", "));
    }

    var moves = { first: function () { return 0; }, prev: function () { return at - 1; },
                  next: function () { return at + 1; }, last: function () { return rows.length - 1; } };
    ldr.all(root, "[data-step-to]").forEach(function (b) {
      b.addEventListener("click", function () { show(moves[b.getAttribute("data-step-to")]()); });
    });
    marks.forEach(function (m) {
      m.addEventListener("click", function () { show(Number(m.getAttribute("data-step"))); });
    });
    figure.setAttribute("tabindex", "0");
    figure.setAttribute("aria-label", "Backward graph: arrow keys step through the engine's run");
    root.addEventListener("keydown", function (event) {
      var keys = { ArrowRight: "next", ArrowDown: "next", ArrowLeft: "prev", ArrowUp: "prev", Home: "first", End: "last" };
      var move = keys[event.key];
      if (!move || event.target.tagName === "SELECT") return;
      event.preventDefault();
      show(moves[move]());
    });
    show(0);
  });
})();
