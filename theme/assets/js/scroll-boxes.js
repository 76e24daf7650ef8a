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
  var watched = [];  // the boxes (and their content) being watched, on this page
  // and a box added later (mkdocs-material wraps its tables when it gets to them, which on a
  // busy machine can be after this script's turn): checked as it arrives
  var added = window.MutationObserver ? new MutationObserver(function (records) {
    var found = records.some(function (r) {
      return Array.prototype.some.call(r.addedNodes, function (n) {
        return n.nodeType === 1 && (n.matches(BOXES) || n.querySelector(BOXES) !== null);
      });
    });
    if (found) queue();
  }) : null;

  function watch(box) {
    if (!sizes || watched.indexOf(box) >= 0) return;
    watched.push(box);
    sizes.observe(box);
    if (box.firstElementChild) sizes.observe(box.firstElementChild);
  }

  function check() {
    queued = false;
    ldr.all(document, BOXES).forEach(function (box) {
      watch(box);  // a box made after the page was shown (mkdocs-material wraps tables when it gets to them)
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
    // no early return on a page without boxes yet: mkdocs-material may wrap its tables after this
    if (!listening) {
      listening = true;
      window.addEventListener("resize", queue, { passive: true });
      window.addEventListener("load", queue);  // the page's last styles and images are in
      document.addEventListener("toggle", queue, true);  // a <details> opened or closed
    }
    if (sizes) sizes.disconnect();  // the previous page's boxes are gone
    watched = [];
    var content = document.querySelector(".md-content");
    if (added && content) {
      added.disconnect();
      added.observe(content, { childList: true, subtree: true });
    }
    check();
    queue();  // and again a frame later: mkdocs-material may wrap a table after this runs
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(queue);
  });
})();
