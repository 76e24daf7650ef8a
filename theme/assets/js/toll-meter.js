/* Toll meter: move across sizes; read cost, fixed share and operations per second.
   Every number comes from the embedded dispatch_cost record. */
(function () {
  "use strict";
  ldr.mount("toll-meter", function (root, rec) {
    var sweep = rec.data.SWEEP, small = rec.data.TOLL.small_us;
    var marks = ldr.all(root, ".ldr-mark");
    var slider = root.querySelector(".ldr-slider");
    var cursor = root.querySelector(".ldr-cursor");
    var svg = root.querySelector("svg.ldr-plot");
    if (marks.length !== sweep.length) throw new Error("marks and SWEEP differ");

    function select(i) {
      var p = sweep[i], us = p.us, share = Math.min(1, small / us), ops = 1e6 / us;
      ldr.set(root, "numel", p.numel, ldr.group(p.numel));
      ldr.set(root, "us", us, ldr.fmt(us));
      ldr.set(root, "fixed_share", share, ldr.fmt(share * 100) + "%");
      ldr.set(root, "ops_per_s", ops, ldr.fmt(ops));
      ldr.mark(marks, i, "ldr-mark--current");
      var cx = marks[i].getAttribute("cx");
      cursor.setAttribute("x1", cx);
      cursor.setAttribute("x2", cx);
      cursor.setAttribute("visibility", "visible");
      slider.value = String(i);
      slider.setAttribute("aria-valuetext", ldr.count(p.numel, "element") + ": " +
        ldr.fmt(us) + " microseconds, " + ldr.fmt(share * 100) + "% fixed machinery");
    }

    slider.addEventListener("input", function () { select(Number(slider.value)); });
    function nearest(event) {
      var best = 0, dist = Infinity;
      marks.forEach(function (m, k) {
        var r = m.getBoundingClientRect(), d = Math.abs(r.left + r.width / 2 - event.clientX);
        if (d < dist) { dist = d; best = k; }
      });
      select(best);
    }
    svg.addEventListener("pointermove", nearest);
    svg.addEventListener("pointerdown", nearest);
    select(0);
  });
})();
