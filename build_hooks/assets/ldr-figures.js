/* Figures (build_hooks/drawing/figure.py): "Enlarge", or a tap on the drawing, opens it full screen
   in a <dialog>, fitted to the screen; drag to pan, pinch, wheel, double-tap or + and - to zoom,
   0 or Fit to fit again; Escape or Close puts it back and returns the focus. The drawing itself
   moves into the dialog and back, so its ids stay unique. Styles: ldr-drawing.css. Needs nothing
   else: mounts through mkdocs-material's document$ when there is one, else on DOMContentLoaded. */
(function () {
  "use strict";
  var v = { dialog: null, pane: null, title: null, svg: null, home: null, opener: null,
            s: 1, x: 0, y: 0, fit: 1, fitted: true, pointers: {}, pinch: null };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  function button(cls, text, label, fn) {
    var b = el("button", cls, text);
    b.type = "button";
    if (label) b.setAttribute("aria-label", label);
    b.addEventListener("click", fn);
    return b;
  }

  function size() {
    var box = v.svg.viewBox.baseVal;
    return { w: box && box.width ? box.width : 800, h: box && box.height ? box.height : 600 };
  }

  function apply() {
    var d = size(), pw = v.pane.clientWidth, ph = v.pane.clientHeight;
    // a drawing smaller than the pane stays centred; a larger one never leaves a gap at an edge
    v.x = d.w * v.s <= pw ? (pw - d.w * v.s) / 2 : Math.min(0, Math.max(pw - d.w * v.s, v.x));
    v.y = d.h * v.s <= ph ? (ph - d.h * v.s) / 2 : Math.min(0, Math.max(ph - d.h * v.s, v.y));
    v.svg.style.transform = "translate(" + v.x + "px," + v.y + "px) scale(" + v.s + ")";
    v.dialog.setAttribute("data-zoom", v.fitted ? "fit" : String(Math.round(v.s * 100) / 100));
  }

  function fit() {
    var d = size(), pad = 12;
    v.fit = Math.min((v.pane.clientWidth - 2 * pad) / d.w, (v.pane.clientHeight - 2 * pad) / d.h);
    v.s = v.fit;
    v.fitted = true;
    apply();
  }

  /* zoom by k around (cx, cy), in pane coordinates: that point of the drawing stays put */
  function zoom(k, cx, cy) {
    if (cx === undefined) { cx = v.pane.clientWidth / 2; cy = v.pane.clientHeight / 2; }
    var s = Math.min(Math.max(v.s * k, v.fit), Math.max(v.fit * 8, 4));
    v.x = cx - (cx - v.x) * s / v.s;
    v.y = cy - (cy - v.y) * s / v.s;
    v.s = s;
    v.fitted = s <= v.fit * 1.001;
    apply();
  }

  function pan(dx, dy) {
    v.x += dx;
    v.y += dy;
    apply();
  }

  function at(e) {
    var r = v.pane.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  function pinchOf() {
    var ids = Object.keys(v.pointers);
    if (ids.length !== 2) return null;
    var a = v.pointers[ids[0]], b = v.pointers[ids[1]];
    return { d: Math.hypot(a.x - b.x, a.y - b.y) || 1, x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }

  function onDown(e) {
    v.pane.setPointerCapture(e.pointerId);
    v.pointers[e.pointerId] = at(e);
    v.pinch = pinchOf();
  }

  function onMove(e) {
    var was = v.pointers[e.pointerId];
    if (!was) return;
    var now = at(e);
    v.pointers[e.pointerId] = now;
    if (v.pinch) {
      var p = pinchOf();
      v.x += p.x - v.pinch.x;
      v.y += p.y - v.pinch.y;
      zoom(p.d / v.pinch.d, p.x, p.y);
      v.pinch = p;
    } else {
      pan(now.x - was.x, now.y - was.y);
    }
  }

  function onUp(e) {
    delete v.pointers[e.pointerId];
    v.pinch = pinchOf();
  }

  function onKey(e) {
    var step = 48, k = { "+": 1.25, "=": 1.25, "-": 0.8, "_": 0.8 }[e.key];
    var moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (k) zoom(k);
    else if (e.key === "0") fit();
    else if (moves[e.key] && e.target === v.pane) pan(moves[e.key][0], moves[e.key][1]);
    else return;
    e.preventDefault();
  }

  function build() {
    var d = el("dialog", "ldr-zoom"), bar = el("div", "ldr-zoom__bar");
    d.setAttribute("aria-labelledby", "ldr-zoom-title");
    v.title = el("p", "ldr-zoom__title");
    v.title.id = "ldr-zoom-title";
    v.pane = el("div", "ldr-zoom__pane");
    v.pane.tabIndex = 0;
    v.pane.setAttribute("role", "group");
    v.pane.setAttribute("aria-label", "The drawing: arrow keys or drag to move, + and - or pinch to zoom, 0 to fit");
    bar.append(v.title,
      button("ldr-zoom__out", "\u2212", "Zoom out", function () { zoom(0.8); }),
      button("ldr-zoom__fit", "Fit", "Fit to the screen", fit),
      button("ldr-zoom__in", "+", "Zoom in", function () { zoom(1.25); }),
      button("ldr-zoom__close", "Close", null, shut));
    d.append(bar, v.pane);
    v.pane.addEventListener("pointerdown", onDown);
    v.pane.addEventListener("pointermove", onMove);
    v.pane.addEventListener("pointerup", onUp);
    v.pane.addEventListener("pointercancel", onUp);
    v.pane.addEventListener("wheel", function (e) {
      e.preventDefault();
      var p = at(e);
      zoom(Math.exp(-e.deltaY * (e.deltaMode ? 0.05 : 0.002)), p.x, p.y);
    }, { passive: false });
    v.pane.addEventListener("dblclick", function (e) {
      var p = at(e);
      if (v.fitted) zoom(2.5, p.x, p.y); else fit();
    });
    d.addEventListener("keydown", onKey);
    // back as the viewer shuts (Close, Escape): the "close" event comes a task later
    d.addEventListener("cancel", putBack);
    d.addEventListener("close", putBack);
    window.addEventListener("resize", function () {
      if (v.svg) { if (v.fitted) fit(); else apply(); }
    });
    document.body.appendChild(d);
    v.dialog = d;
  }

  function open(svg, opener, title) {
    if (!v.dialog || !document.body.contains(v.dialog)) build();
    if (v.dialog.open) return;
    var use = svg.querySelector("use[data-ldr-src]");  // a drawing's file not yet asked for (ldr-figure-files.js)
    if (use) { use.setAttribute("href", use.getAttribute("data-ldr-src")); use.removeAttribute("data-ldr-src"); }
    // keep the page's layout (and scroll position) while the drawing is away
    v.home = el("div", "ldr-figure-away");
    v.home.style.height = svg.getBoundingClientRect().height + "px";
    svg.parentNode.insertBefore(v.home, svg);
    v.svg = svg;
    v.opener = opener;
    v.pointers = {};
    v.pinch = null;
    v.title.textContent = title || "Drawing";
    var d = size();
    svg.style.width = d.w + "px";
    svg.style.height = d.h + "px";
    v.pane.appendChild(svg);
    v.dialog.showModal();
    fit();
    v.dialog.querySelector(".ldr-zoom__close").focus();
  }

  function shut() {
    putBack();
    v.dialog.close();
  }

  function putBack() {
    if (!v.svg) return;
    ["width", "height", "transform"].forEach(function (p) { v.svg.style[p] = ""; });
    if (v.home && v.home.parentNode) v.home.parentNode.replaceChild(v.svg, v.home);
    var opener = v.opener;
    v.svg = v.home = v.opener = null;
    if (opener && document.body.contains(opener)) opener.focus();
  }

  function mount(figure) {
    var svg = figure.querySelector("svg.ldr-drawing");
    if (!svg) return;
    var caption = figure.querySelector("figcaption");
    var title = caption ? caption.textContent.trim() : "";
    // a visible button beside the drawing (its name holds its visible text, WCAG 2.5.3), in the
    // row that the download link already holds, so nothing below it moves; it names the drawing
    // by the first sentence of its caption (or of its description), not by the whole description
    var named = (title || svg.getAttribute("aria-label") || "drawing").split(/[.:;](?:\s|$)/)[0];
    // the drawing is looked up when it is opened, never kept: a script may have put another
    // element in its place since (ldr-figure-files.js draws a file's <img> as an <svg>)
    function openHere() {
      var now = figure.querySelector("svg.ldr-drawing");
      if (now) open(now, b, title);
    }
    var b = button("ldr-figure-open", "Enlarge", "Enlarge the drawing: " + named, openHere);
    var row = figure.querySelector(".ldr-figure-tools");
    if (row) row.insertBefore(b, row.firstChild); else svg.parentNode.insertBefore(b, svg.nextSibling);
    // a tap on the drawing opens it too; while it is open it sits in the dialog, outside the figure
    figure.addEventListener("click", function (e) {
      if (e.target.closest && e.target.closest("svg.ldr-drawing")) openHere();
    });
    figure.setAttribute("data-ldr-ready", "");
  }

  function onPage() {
    // a page swapped in (back button, instant navigation) while a drawing was open closes it
    if (v.dialog && v.dialog.open) shut();
    var figures = document.querySelectorAll("figure.ldr-figure[data-ldr-zoom]:not([data-ldr-ready])");
    Array.prototype.forEach.call(figures, mount);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(onPage);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", onPage);
  } else {
    onPage();
  }
})();
