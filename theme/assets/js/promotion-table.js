/* Promotion table: pick a cell (pointer, click or arrow keys) and read which dtype a + b gives
   and why. Dtypes come from the embedded type_promotion record; each cell carries its rule,
   worded at build time from the record's categories and sizes. */
(function () {
  "use strict";
  ldr.mount("promotion-table", function (root, rec) {
    var promo = rec.data.PROMOTION, dtypes = promo.dtypes, n = dtypes.length;
    var cells = ldr.all(root, ".ldr-promo__cell");
    var rowHeads = ldr.all(root, "tbody th[data-r]");
    var colHeads = ldr.all(root, "thead th[data-c]");
    var at = 0;
    if (cells.length !== n * n) throw new Error("cells and PROMOTION.table differ");

    function choose(k, focus) {
      at = k;
      var r = Math.floor(k / n), c = k % n, a = dtypes[r], b = dtypes[c], out = promo.table[r][c];
      cells.forEach(function (cell, j) {
        cell.classList.toggle("ldr-promo__cell--current", j === k);
        cell.classList.toggle("ldr-promo__cell--line", j !== k && (Math.floor(j / n) === r || j % n === c));
        cell.setAttribute("tabindex", j === k ? "0" : "-1");
        cell.setAttribute("aria-selected", j === k ? "true" : "false");
      });
      rowHeads.forEach(function (h, j) { h.classList.toggle("ldr-promo__head--current", j === r); });
      colHeads.forEach(function (h, j) { h.classList.toggle("ldr-promo__head--current", j === c); });
      ldr.set(root, "pair", a + "," + b, a + " + " + b);
      ldr.set(root, "result", out, out);
      var rule = cells[k].getAttribute("data-rule") || "";
      ldr.set(root, "rule", rule, rule.slice(rule.indexOf(": ") + 2));
      if (focus) cells[k].focus();
    }

    cells.forEach(function (cell, k) {
      cell.addEventListener("pointerenter", function (event) { if (event.pointerType === "mouse") choose(k); });
      cell.addEventListener("click", function () { choose(k); });
      cell.addEventListener("focus", function () { if (at !== k) choose(k); });
    });
    root.querySelector(".ldr-promo").setAttribute("role", "grid");
    root.addEventListener("keydown", function (event) {
      if (!event.target.classList.contains("ldr-promo__cell")) return;
      var r = Math.floor(at / n), c = at % n;
      var moves = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };
      var m = moves[event.key];
      if (event.key === "Home") m = [0, -c];
      if (event.key === "End") m = [0, n - 1 - c];
      if (!m) return;
      event.preventDefault();
      r = Math.max(0, Math.min(n - 1, r + m[0]));
      c = Math.max(0, Math.min(n - 1, c + m[1]));
      choose(r * n + c, true);
    });
    choose(0);
  });
})();
