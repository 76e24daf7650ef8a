/* Drawings published as files (build_hooks/site/lazyfigures.py). The page holds an
   <img class="ldr-drawing-file"> of each, which shows the file as it is when there is no
   JavaScript. Here it becomes an inline <svg> of the same size whose <use> points at the file,
   so the page draws the drawing in its own palette (light and slate) and drawing font; the link
   is set once the figure is a screen away, before the page prints, or when the viewer
   (ldr-figures.js, which comes after this file) opens it. Mounts through mkdocs-material's
   document$ when there is one, else on DOMContentLoaded. */
(function () {
  "use strict";
  var near = null;

  /* the drawing of a file, drawn by the page: the <img>'s size, name and font; no link yet */
  function fromFile(img) {
    var w = img.getAttribute("width"), h = img.getAttribute("height");
    var made = document.createElement("template");
    made.innerHTML = "<svg><use></use></svg>";  // the parser puts both in the SVG namespace
    var svg = made.content.firstChild, use = svg.firstChild;
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", img.getAttribute("alt") || "");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("width", w);
    svg.setAttribute("height", h);
    svg.setAttribute("class", "ldr-drawing");
    if (img.hasAttribute("data-ldr-font")) svg.setAttribute("font-family", img.getAttribute("data-ldr-font"));
    svg.setAttribute("style", "content-visibility: auto; aspect-ratio: " + w + " / " + h);
    use.setAttribute("data-ldr-src", img.getAttribute("src") + "#ldr-drawing");
    img.parentNode.replaceChild(svg, img);
    return svg;
  }

  function arrive(svg) {
    var use = svg.querySelector("use[data-ldr-src]");
    if (near) near.unobserve(svg);
    if (!use) return;
    use.setAttribute("href", use.getAttribute("data-ldr-src"));
    use.removeAttribute("data-ldr-src");
  }

  function onPage() {
    if (near) near.disconnect();  // the last page's drawings are gone
    var files = document.querySelectorAll("figure.ldr-figure img.ldr-drawing-file");
    Array.prototype.forEach.call(files, fromFile);
    var waiting = document.querySelectorAll("figure.ldr-figure svg.ldr-drawing");
    Array.prototype.forEach.call(waiting, function (svg) {
      if (!svg.querySelector("use[data-ldr-src]")) return;
      if (!("IntersectionObserver" in window)) { arrive(svg); return; }
      if (!near) {
        near = new IntersectionObserver(function (entries) {
          entries.forEach(function (e) { if (e.isIntersecting) arrive(e.target); });
        }, { rootMargin: "100% 0px" });
      }
      near.observe(svg);
    });
  }

  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("figure.ldr-figure svg.ldr-drawing"), arrive);
  });

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(onPage);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", onPage);
  } else {
    onPage();
  }
})();
