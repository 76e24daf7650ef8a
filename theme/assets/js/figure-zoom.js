/* Figure zoom: a tap (or Enter) on a drawing opens it full screen in a <dialog>, at the size it
   was drawn, where it scrolls and pinch-zooms natively; Escape or Close puts it back and returns
   the focus. The drawing itself moves into the dialog and back, so its ids stay unique. */
(function () {
  "use strict";
  var FIGURES = ".md-content figure.ldr-figure[data-ldr-zoom]";
  var view = { dialog: null, pane: null, title: null, fit: null, svg: null, home: null, opener: null };

  function build() {
    var dialog = document.createElement("dialog");
    dialog.className = "ldr-zoom";
    dialog.setAttribute("aria-labelledby", "ldr-zoom-title");
    dialog.innerHTML =
      '<div class="ldr-zoom__bar">' +
      '<p class="ldr-zoom__title" id="ldr-zoom-title"></p>' +
      '<button type="button" class="ldr-zoom__fit" aria-pressed="false">Fit to screen</button>' +
      '<button type="button" class="ldr-zoom__close">Close</button></div>' +
      '<div class="ldr-zoom__pane" tabindex="0"></div>';
    view.pane = dialog.querySelector(".ldr-zoom__pane");
    view.title = dialog.querySelector(".ldr-zoom__title");
    view.fit = dialog.querySelector(".ldr-zoom__fit");
    dialog.querySelector(".ldr-zoom__close").addEventListener("click", function () { dialog.close(); });
    view.fit.addEventListener("click", function () {
      setFit(view.fit.getAttribute("aria-pressed") !== "true");
    });
    dialog.addEventListener("close", putBack);
    // a click on the backdrop around the drawing closes too
    dialog.addEventListener("click", function (event) {
      if (event.target === view.pane) dialog.close();
    });
    document.body.appendChild(dialog);
    view.dialog = dialog;
  }

  function setFit(fit) {
    var box = view.svg.viewBox.baseVal;
    view.fit.setAttribute("aria-pressed", fit ? "true" : "false");
    view.fit.textContent = fit ? "Actual size" : "Fit to screen";
    // the size it was drawn at: its labels as large as in Excalidraw
    view.svg.style.width = fit ? "100%" : Math.round(box.width) + "px";
    view.pane.classList.toggle("ldr-zoom__pane--fit", fit);
  }

  function captionText(figure) {
    var caption = figure.querySelector("figcaption");
    if (!caption) return "";
    var copy = caption.cloneNode(true);
    ldr.all(copy, ".ldr-figure-hint, .ldr-figure-source").forEach(function (el) { el.remove(); });
    return copy.textContent.trim();
  }

  function open(svg, opener, title) {
    if (!view.dialog || !document.body.contains(view.dialog)) build();
    if (view.dialog.open) return;
    var rect = svg.getBoundingClientRect();
    // keep the page's layout (and scroll position) while the drawing is away
    view.home = document.createElement("div");
    view.home.className = "ldr-figure-away";
    view.home.style.height = rect.height + "px";
    svg.parentNode.insertBefore(view.home, svg);
    view.svg = svg;
    view.opener = opener;
    view.title.textContent = title || "Drawing";
    view.pane.appendChild(svg);
    view.dialog.showModal();
    setFit(false);
    view.pane.scrollTop = 0;
    view.pane.scrollLeft = 0;
    view.dialog.querySelector(".ldr-zoom__close").focus();
  }

  function putBack() {
    if (!view.svg) return;
    view.svg.style.width = "";
    if (view.home && view.home.parentNode) {
      view.home.parentNode.replaceChild(view.svg, view.home);
    }
    var opener = view.opener;
    view.svg = view.home = view.opener = null;
    if (opener && document.body.contains(opener)) opener.focus();
  }

  function mount(figure) {
    var svg = figure.querySelector("svg.ldr-drawing");
    if (!svg) return;
    // A small visible "Enlarge" button beside the drawing (not around it: the drawing's own
    // labels would then be the button's text, which its name must contain, WCAG 2.5.3); a tap
    // or click on the drawing itself opens it too, for pointers.
    var button = document.createElement("button");
    button.type = "button";
    button.className = "ldr-figure-open";
    button.textContent = "Enlarge";
    button.setAttribute("aria-label", "Enlarge the drawing: " + (svg.getAttribute("aria-label") || "drawing"));
    svg.parentNode.insertBefore(button, svg.nextSibling);
    svg.classList.add("ldr-drawing--zoomable");
    var title = captionText(figure);
    button.addEventListener("click", function () { open(svg, button, title); });
    svg.addEventListener("click", function () {
      if (svg.closest("dialog")) return;  // already open
      open(svg, button, title);
    });
    var hint = figure.querySelector(".ldr-figure-hint");
    if (hint) hint.hidden = false;
    figure.setAttribute("data-ldr-ready", "");
  }

  ldr.onPage(function () {
    // a page swapped in (back button, instant navigation) while a drawing was open closes it
    if (view.dialog && view.dialog.open) view.dialog.close();
    ldr.all(document, FIGURES).forEach(function (figure) {
      if (!figure.hasAttribute("data-ldr-ready")) mount(figure);
    });
  });
})();
