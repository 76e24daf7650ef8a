/* Shared helpers for the series' widgets: mount through mkdocs-material's document$, read the
   proof record embedded in an instrument, write a readout. No framework, no network. */
(function () {
  "use strict";
  // The site's one rule for numbers (build_hooks/render/numbers.py, which this mirrors):
  // thousands grouped with commas from 1,000 up; a measurement keeps three significant digits
  // and no exponent; a count keeps every digit and a singular noun for exactly one.
  // Written out rather than asked of Intl.NumberFormat (toLocaleString): a page's first formatter
  // cost a phone about 80 ms as it loaded. The same result: the number's shortest decimal form
  // (what String() gives), rounded half away from zero, its thousands grouped with commas.
  function grouped(sign, whole, frac) {
    return sign + whole.replace(/\B(?=(\d{3})+$)/g, ",") + (frac ? "." + frac : "");
  }
  function fixed(v, dec) {
    var m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(v)));
    if (!m) return String(v);  // not finite
    var digits = m[1] + (m[2] || ""), point = m[1].length + Number(m[3] || 0);
    if (point < 1) { digits = "0".repeat(1 - point) + digits; point = 1; }
    var keep = point + dec;
    if (digits.length <= keep) digits += "0".repeat(keep + 1 - digits.length);
    var head = digits.slice(0, keep).split("").map(Number);
    if (Number(digits.charAt(keep)) >= 5) {
      var k = head.length - 1;
      while (k >= 0 && head[k] === 9) head[k--] = 0;
      if (k >= 0) head[k] += 1; else head.unshift(1);
    }
    var text = head.join(""), whole = text.slice(0, text.length - dec).replace(/^0+(?=\d)/, "");
    var sign = v < 0 || Object.is(v, -0) ? "-" : "";
    return grouped(sign, whole, text.slice(text.length - dec));
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
    if (typeof v !== "number") return String(v);
    var m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(v));
    // one that String() writes with an exponent (below 1e-6, from 1e21), with more than 20
    // decimals, or -0, is left to Intl, as before
    if (m && (m[3] || "").length <= 20 && !Object.is(v, -0)) return grouped(m[1], m[2], m[3] || "");
    return v.toLocaleString("en-US", {maximumFractionDigits: 20});
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
