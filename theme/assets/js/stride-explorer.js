/* Stride explorer: pick a view of x and see which storage cells it reads. Sizes, strides and
   the cells come from the embedded view_ops record; nothing is computed from guesses. */
(function () {
  "use strict";
  function dims(s) { return s.length ? s.join("×") : "scalar"; }
  function tup(s) { return "(" + s.join(", ") + (s.length === 1 ? ",)" : ")"); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // the multi-index of element k (row-major) in a tensor of these sizes
  function index(k, sizes) {
    var out = [];
    for (var d = sizes.length - 1; d >= 0; d--) { out.unshift(k % sizes[d]); k = Math.floor(k / sizes[d]); }
    return out;
  }

  ldr.mount("stride-explorer", function (root, rec) {
    var views = rec.data.VIEWS;
    var select = root.querySelector(".ldr-select");
    var store = ldr.all(root, ".ldr-storage .ldr-cell");
    var holder = root.querySelector(".ldr-strides__view");
    var opText = root.querySelector(".ldr-strides__op");
    var shape = root.querySelector(".ldr-strides__shape");
    var status = root.querySelector(".ldr-strides__status");
    var view = views[0], elems = [], at = 0;
    if (store.length !== rec.data.BASE.numel) throw new Error("storage cells and BASE.numel differ");
    if (status) status.hidden = true;
    root.querySelector(".ldr-strides__readout").hidden = false;

    function cells(v) { return v.shares_storage ? v.reads : v.values; }

    function hot(k) {
      at = k;
      var c = cells(view)[k];
      elems.forEach(function (e, j) {
        e.classList.toggle("ldr-cell--hot", j === k);
        e.setAttribute("tabindex", j === k ? "0" : "-1");
      });
      store.forEach(function (s, j) { s.classList.toggle("ldr-cell--hot", j === c); });
      var ix = index(k, view.sizes);
      ldr.set(root, "element", c, (ix.length ? "[" + ix.join(", ") + "]" : "x") +
        (view.shares_storage ? " reads cell " : " holds a copy of cell ") + c);
    }

    // the other way round: a storage cell lights every element that reads it
    function readers(c) {
      var all = cells(view), n = 0;
      elems.forEach(function (e, j) { e.classList.toggle("ldr-cell--hot", all[j] === c); if (all[j] === c) n++; });
      store.forEach(function (s, j) { s.classList.toggle("ldr-cell--hot", j === c); });
      ldr.set(root, "element", c, "cell " + c + (view.shares_storage ? " is read by " : " was copied to ") +
        ldr.count(n, "element"));
    }
    store.forEach(function (s, c) { s.addEventListener("pointerenter", function () { readers(c); }); });

    function grid(v) {
      holder.textContent = "";
      elems = [];
      var s = v.sizes, cols = s.length ? s[s.length - 1] : 1, rows = s.length > 1 ? s[s.length - 2] : 1;
      var per = Math.max(1, cols * rows), all = cells(v), slices = Math.max(1, Math.ceil(all.length / per));
      for (var n = 0; n < slices; n++) {
        var slice = el("div", "ldr-slice");
        if (s.length > 2) slice.appendChild(el("p", "ldr-slice__label", "[" + index(n, s.slice(0, -2)).join(", ") + "]"));
        var g = el("div", "ldr-viewgrid");
        g.style.setProperty("--ldr-cols", String(cols));
        all.slice(n * per, (n + 1) * per).forEach(function (c, j) {
          var k = n * per + j, e = el("span", "ldr-cell", String(c));
          e.setAttribute("data-k", String(k));
          e.setAttribute("data-cell", String(c));
          e.setAttribute("tabindex", "-1");
          e.addEventListener("pointerenter", function () { hot(k); });
          e.addEventListener("focus", function () { hot(k); });
          g.appendChild(e);
          elems.push(e);
        });
        slice.appendChild(g);
        holder.appendChild(slice);
      }
    }

    function choose(i) {
      view = views[i];
      var all = cells(view), count = {};
      all.forEach(function (c) { count[c] = (count[c] || 0) + 1; });
      store.forEach(function (s, c) {
        s.classList.toggle("ldr-cell--read", !!count[c]);
        var badge = s.querySelector(".ldr-cell__count");
        if (count[c] > 1) {
          if (!badge) { badge = el("small", "ldr-cell__count"); s.appendChild(badge); }
          badge.textContent = "×" + count[c];
        } else if (badge) {
          s.removeChild(badge);
        }
      });
      root.classList.toggle("ldr-strides--copy", !view.shares_storage);
      opText.textContent = view.op;
      shape.textContent = dims(view.sizes);
      grid(view);
      select.value = String(i);
      ldr.set(root, "sizes", view.sizes.join(","), tup(view.sizes));
      ldr.set(root, "strides", view.strides.join(","), tup(view.strides));
      ldr.set(root, "offset", view.storage_offset, String(view.storage_offset));
      ldr.set(root, "contiguous", view.is_contiguous, view.is_contiguous ? "yes" : "no");
      ldr.set(root, "storage", view.shares_storage, view.shares_storage ? "shared with x" : "a copy: new storage");
      ldr.set(root, "cells", all.join(" "), all.join(" "));
      if (elems.length) hot(0);
    }

    select.addEventListener("change", function () { choose(Number(select.value)); });
    holder.addEventListener("keydown", function (event) {
      var cols = view.sizes.length ? view.sizes[view.sizes.length - 1] : 1;
      var step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols }[event.key];
      var k = event.key === "Home" ? 0 : event.key === "End" ? elems.length - 1 : step === undefined ? -1 : at + step;
      if (k < 0 || k >= elems.length) return;
      event.preventDefault();
      elems[k].focus();
    });
    choose(0);
  });
})();
