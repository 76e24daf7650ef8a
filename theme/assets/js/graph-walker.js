/* Graph walker: step from the loss to the leaves, one node at a time, and see what each node
   saved for backward. The graph comes from the embedded autograd_graph record. */
(function () {
  "use strict";
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function shape(s) {
    if (s === null || s === undefined) return "?";
    return s.length ? s.join("×") : "scalar";
  }

  ldr.mount("graph-walker", function (root, rec) {
    var nodes = rec.data.GRAPH.nodes, at = 0;
    var byId = {};
    nodes.forEach(function (n) { byId[n.id] = n; });
    var marks = ldr.all(root, ".ldr-mark");
    var edges = ldr.all(root, ".ldr-edge");
    var detail = root.querySelector(".ldr-walker__detail");
    var figure = root.querySelector(".ldr-figure");
    if (marks.length !== nodes.length) throw new Error("marks and nodes differ");

    function select(i) {
      at = Math.max(0, Math.min(nodes.length - 1, i));
      var n = nodes[at];
      marks.forEach(function (m, k) {
        m.classList.toggle("ldr-mark--current", k === at);
        m.classList.toggle("ldr-mark--visited", k < at);
      });
      edges.forEach(function (e) {
        e.classList.toggle("ldr-edge--current", Number(e.getAttribute("data-from")) === n.id);
      });
      ldr.set(root, "step", at + 1, "Node " + (at + 1) + " of " + nodes.length);
      ldr.set(root, "name", n.name, n.name);
      detail.textContent = "";
      if (n.variable) {
        var leaf = el("p", "Accumulates the gradient into leaf ");
        leaf.appendChild(el("code", n.variable.name));
        leaf.appendChild(document.createTextNode(" (" + shape(n.variable.shape) + ")."));
        detail.appendChild(leaf);
      }
      var slots = n.saved || [];
      var empty = function (s) { return s.empty || s.shape === null || s.shape === undefined; };
      var count = slots.filter(function (s) { return !empty(s); }).length;
      detail.appendChild(el("p", "Saved for backward: " + ldr.count(count, "tensor")));
      if (slots.length) {
        var list = el("ul", undefined, "ldr-walker__saved");
        slots.forEach(function (s) {
          var item = el("li");
          item.appendChild(el("code", s.name));
          item.appendChild(document.createTextNode(empty(s) ? " empty, not saved here"
            : " " + shape(s.shape) + (s.dtype ? " " + s.dtype : "")));
          item.setAttribute("data-saved", s.name);
          list.appendChild(item);
        });
        detail.appendChild(list);
      }
      var next = (n.next || []).map(function (id) { return byId[id].name; });
      detail.appendChild(el("p", "Passes gradients to: " + (next.length ? next.join(", ") : "nothing: a leaf")));
    }

    var steps = { first: function () { return 0; }, prev: function () { return at - 1; },
                  next: function () { return at + 1; }, last: function () { return nodes.length - 1; } };
    ldr.all(root, "[data-step]").forEach(function (b) {
      b.addEventListener("click", function () { select(steps[b.getAttribute("data-step")]()); });
    });
    marks.forEach(function (m, k) { m.addEventListener("click", function () { select(k); }); });
    figure.setAttribute("tabindex", "0");
    figure.setAttribute("aria-label", "Autograd graph: arrow keys step through the nodes");
    root.addEventListener("keydown", function (event) {
      if (event.target.tagName === "INPUT") return;
      var keys = { ArrowRight: "next", ArrowDown: "next", ArrowLeft: "prev", ArrowUp: "prev", Home: "first", End: "last" };
      var step = keys[event.key];
      if (!step) return;
      event.preventDefault();
      select(steps[step]());
    });
    select(0);
  });
})();
