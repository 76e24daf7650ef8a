/* Scroll boxes: a wide table or an instrument's grid that scrolls sideways takes the keyboard
   focus (tabindex="0"), so its hidden part can be reached without a pointer (WCAG 2.1.1); one
   that fits again gives it back. mkdocs-material does the same for code blocks itself. */
(function () {
  "use strict";
  var BOXES = ".md-typeset__scrollwrap, .ldr-scroll, .ldr-figure--scroll, .ldr-promo__scroll";
  var MARK = "data-ldr-scrollbox";
  var listening = false, queued = false;
  // A box's content can widen after every event below (a font that arrives late, a table
  // mkdocs-material wraps later): each box and its content are watched for a change of size.
  var sizes = window.ResizeObserver ? new ResizeObserver(function () { queue(); }) : null;

  function check() {
    queued = false;
    ldr.all(document, BOXES).forEach(function (box) {
      // a box in a closed <details> is not rendered: measuring it would make Chromium keep its
      // styles from before a later change of scheme; it is measured when its details opens
      if (box.closest("details:not([open])")) return;
      var scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute(MARK, "");
      } else if (!scrolls && box.hasAttribute(MARK)) {
        box.removeAttribute("tabindex");
        box.removeAttribute(MARK);
      }
    });
  }

  function queue() {
    if (queued) return;
    queued = true;
    window.requestAnimationFrame(check);
  }

  ldr.onPage(function () {
    if (!document.querySelector(BOXES)) return;  // nothing to do on this page
    if (!listening) {
      listening = true;
      window.addEventListener("resize", queue, { passive: true });
      window.addEventListener("load", queue);  // the page's last styles and images are in
      document.addEventListener("toggle", queue, true);  // a <details> opened or closed
    }
    check();
    queue();  // and again a frame later: mkdocs-material may wrap a table after this runs
    if (sizes) {
      sizes.disconnect();  // the previous page's boxes are gone
      ldr.all(document, BOXES).forEach(function (box) {
        sizes.observe(box);
        if (box.firstElementChild) sizes.observe(box.firstElementChild);
      });
    }
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(queue);
  });
})();
