/* Shared helpers for the series' widgets: mount through mkdocs-material's document$, read the
   proof record embedded in an instrument, write a readout. No framework, no network. */
(function () {
  "use strict";
  // The site's one rule for numbers (build_hooks/render/numbers.py, which this mirrors):
  // thousands grouped with commas from 1,000 up; a measurement keeps three significant digits
  // and no exponent; a count keeps every digit and a singular noun for exactly one.
  function fixed(v, dec) {
    return v.toLocaleString("en-US", {minimumFractionDigits: dec, maximumFractionDigits: dec});
  }
  function fmt(v, digits) {
    digits = digits || 3;
    if (v === 0 || !isFinite(v)) return v === 0 ? "0" : String(v);
    var dec = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(v))));
    var text = fixed(v, dec);
    // rounding can carry into a new digit (9.996 -> "10.00"): keep the significant count
    if (dec > 0 && text.replace(/[,.\-]/g, "").replace(/^0+/, "").length > digits) text = fixed(v, dec - 1);
    return text;
  }
  function group(v) {
    return typeof v === "number" ? v.toLocaleString("en-US", {maximumFractionDigits: 20}) : String(v);
  }
  function plural(n, one, many) { return n === 1 ? one : (many || one + "s"); }
  function count(n, one, many) { return group(n) + " " + plural(n, one, many); }
  function onPage(fn) {
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(function () { fn(); });
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", fn);
    } else {
      fn();
    }
  }
  function mount(kind, setup) {
    onPage(function () {
      var roots = document.querySelectorAll('.ldr-instrument[data-instrument="' + kind + '"]');
      Array.prototype.forEach.call(roots, function (root) {
        if (root.hasAttribute("data-ldr-ready")) return;
        // After instant navigation mkdocs-material has re-created the script without its
        // type and class: take the instrument's first script, a one-element JSON array.
        var script = root.querySelector("script");
        var controls = root.querySelector(".ldr-controls");
        try {
          setup(root, JSON.parse(script.textContent)[0]);
          if (controls) controls.hidden = false;
          root.setAttribute("data-ldr-ready", "");
        } catch (err) {
          // leave the static drawing in place, and say why in the console
          root.setAttribute("data-ldr-error", String(err && err.message));
          if (window.console) console.error("ldr " + kind + ":", err);
        }
      });
    });
  }
  function set(root, key, value, text) {
    var out = root.querySelector('output[data-key="' + key + '"]');
    if (!out) return;
    out.value = text;
    out.textContent = text;
    out.setAttribute("data-value", String(value));
  }
  function all(root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }
  function mark(list, i, cls) {
    list.forEach(function (el, k) { el.classList.toggle(cls, k === i); });
  }
  window.ldr = { fmt: fmt, group: group, plural: plural, count: count, onPage: onPage, mount: mount, set: set, all: all, mark: mark };
})();
