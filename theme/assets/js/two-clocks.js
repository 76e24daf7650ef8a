/* Two clocks: choose how the result is read; see when Python got control back and when the
   device finished. Numbers come from the embedded two_clocks record. */
(function () {
  "use strict";
  ldr.mount("two-clocks", function (root, rec) {
    if (rec.view === "step") return mountStep(root, rec);
    var reads = rec.data.READS, two = rec.clocks === 2;
    var marks = ldr.all(root, ".ldr-mark");
    var buttons = ldr.all(root, ".ldr-buttons .ldr-button");
    if (marks.length !== reads.length) throw new Error("marks and READS differ");

    function select(i) {
      var r = reads[i];
      ldr.set(root, "python_ms", r.python_ms, ldr.fmt(r.python_ms));
      if (two) {
        var free = Math.max(0, r.done_ms - r.python_ms);
        ldr.set(root, "done_ms", r.done_ms, ldr.fmt(r.done_ms));
        ldr.set(root, "free_ms", free, ldr.fmt(free));
      }
      ldr.mark(marks, i, "ldr-mark--current");
      buttons.forEach(function (b, k) { b.setAttribute("aria-pressed", k === i ? "true" : "false"); });
    }

    wire(buttons, marks, select);
    select(0);
  });

  // Buttons choose a row (arrow keys move between them); a click on a row's mark chooses it too.
  function wire(buttons, marks, select) {
    buttons.forEach(function (b, k) {
      b.addEventListener("click", function () { select(k); });
      b.addEventListener("keydown", function (event) {
        var to = event.key === "ArrowRight" ? k + 1 : event.key === "ArrowLeft" ? k - 1 : -1;
        if (to < 0 || to >= buttons.length) return;
        event.preventDefault();
        buttons[to].focus();
        select(to);
      });
    });
    marks.forEach(function (m, k) { m.addEventListener("click", function () { select(k); }); });
  }

  // A CPU record: one training step on the single clock, phase by phase.
  function mountStep(root, rec) {
    var phases = rec.phases, step = rec.step_ms;
    var marks = ldr.all(root, ".ldr-mark");
    var buttons = ldr.all(root, ".ldr-buttons .ldr-button");
    if (marks.length !== phases.length) throw new Error("marks and phases differ");

    function select(i) {
      var p = phases[i];
      ldr.set(root, "phase", p.phase, p.phase);
      // three significant digits, as the chart and the lead print it
      ldr.set(root, "us", p.ms * 1000, ldr.fmt(p.ms * 1000));
      ldr.set(root, "share", p.ms / step, ldr.fmt(100 * p.ms / step) + "%");
      ldr.mark(marks, i, "ldr-mark--current");
      buttons.forEach(function (b, k) { b.setAttribute("aria-pressed", k === i ? "true" : "false"); });
    }

    wire(buttons, marks, select);
    select(phases.length - 1);
  }
})();
