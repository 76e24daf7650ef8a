/* In-place lab: pick an op and a write; show what the node saved, both versions and what backward
   did. Every state is one row of the embedded version_counter record (LAB); nothing is computed
   here but the choice of row. */
(function () {
  "use strict";
  var TARGET = { input: "a", output: "out" };
  var HOLDS = { a: "input", out: "output" };

  function program(row) {
    var call = row.op.split(" ").indexOf("a") >= 0 ? row.op : "a." + row.op + "()";
    var write = { none: "", input: "a.add_(1); ", output: "out.add_(1); " }[row.write];
    return "a = x * 1; out = " + call + "; " + write + "out.sum().backward()";
  }
  function slotsText(row) {
    if (!row.saved.length) return "nothing";
    return row.saved.map(function (s) {
      return s.slot + " = " + (s.holds === "input" ? "a" : "out") + ", saved at version " + s.saved_version;
    }).join(", ");
  }
  function verdict(row) {
    if (row.ran) return "backward ran: x.grad = [" + row.grad.map(function (g) { return ldr.fmt(g); }).join(", ") + "]";
    return "backward raised RuntimeError: " + row.error;
  }

  ldr.mount("inplace-lab", function (root, rec) {
    var rows = rec.data.LAB;
    var select = root.querySelector(".ldr-select");
    var radios = ldr.all(root, 'input[type="radio"]');
    var figure = root.querySelector(".ldr-lab");
    var code = root.querySelector(".ldr-lab__program");
    var boxes = {};
    ldr.all(root, ".ldr-lab__tensor").forEach(function (b) { boxes[b.getAttribute("data-tensor")] = b; });
    if (!select || radios.length !== 3 || !boxes.a || !boxes.out) throw new Error("lab controls missing");
    // radios of two labs on one page must not share a group
    var group = "ldr-lab-write-" + Array.prototype.indexOf.call(
      document.querySelectorAll('.ldr-instrument[data-instrument="inplace-lab"]'), root);
    radios.forEach(function (r) { r.name = group; });

    function find(op, write) {
      for (var i = 0; i < rows.length; i++) if (rows[i].op === op && rows[i].write === write) return rows[i];
      throw new Error("no LAB row for " + op + " / " + write);
    }

    function show() {
      var write = radios.filter(function (r) { return r.checked; })[0].value;
      var row = find(select.value, write);
      code.textContent = program(row);
      ["a", "out"].forEach(function (t) {
        var kept = row.saved.some(function (s) { return s.holds === HOLDS[t]; });
        boxes[t].classList.toggle("ldr-lab__tensor--saved", kept);
        boxes[t].classList.toggle("ldr-lab__tensor--written", TARGET[row.write] === t);
        ldr.set(root, t + "_version", row.versions[t], String(row.versions[t]));
        ldr.set(root, t + "_kept", kept, kept ? "saved by the node" : "not saved");
      });
      ldr.set(root, "node", row.node, row.node);
      ldr.set(root, "saved", row.saved.length, slotsText(row));
      ldr.set(root, "verdict", row.ran ? "ran" : "error", verdict(row));
      figure.setAttribute("data-state", row.ran ? "ran" : "error");
    }

    select.addEventListener("change", show);
    radios.forEach(function (r) { r.addEventListener("change", show); });
    show();
  });
})();
