/* Scroll boxes: a wide table, an instrument's grid or a code block that scrolls sideways takes
   the keyboard focus (tabindex="0"), so its hidden part can be reached without a pointer (WCAG
   2.1.1); one that fits again gives it back. mkdocs-material does it for code blocks too, but the
   site mounts its code blocks only once they are on screen (its content.lazy feature: measuring
   every block as the page loaded made a phone lay out the whole page), so a block further down
   would not be a tab stop yet when the keyboard reached it. */
(function () {
  "use strict";
  var BOXES = ".md-typeset__scrollwrap, .ldr-scroll, .ldr-figure--scroll, .ldr-promo__scroll, .md-content pre > code";
  var MARK = "data-ldr-scrollbox";
  var listening = false, queued = false;
  // A box's content can widen after every event below (a font that arrives late, a table
  // mkdocs-material wraps later): each box and its content are watched for a change of size.
  // A box is measured only once the observer has seen it laid out: one in a block the browser
  // skips while off screen (content-visibility: auto) has no layout yet, and reading its width
  // would make the browser lay out that whole block as the page loads (on a phone, most of the
  // page). The observer reports it when the reader comes near and it is drawn.
  var sizes = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (e) {
      var box = e.target.closest(BOXES) || e.target;
      if (drawn.indexOf(box) < 0) drawn.push(box);
    });
    queue();
  }) : null;
  var watched = [];  // the boxes (and their content) being watched, on this page
  var drawn = [];  // those the observer has reported
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

  // The first Tab measures every box, drawn or not: the keyboard may be heading for one in a block
  // still skipped. It costs a layout of the whole page, once, and only a keyboard reader pays it.
  var everyBox = false;

  function check() {
    queued = false;
    ldr.all(document, BOXES).forEach(function (box) {
      watch(box);  // a box made after the page was shown (mkdocs-material wraps tables when it gets to them)
      if (sizes && !everyBox && drawn.indexOf(box) < 0) return;  // not laid out yet: measured when reported
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
      document.addEventListener("keydown", function (e) {
        if (e.key !== "Tab" || everyBox) return;
        everyBox = true;
        check();  // now, before the focus moves
      }, true);
    }
    if (sizes) sizes.disconnect();  // the previous page's boxes are gone
    watched = [];
    drawn = [];
    everyBox = false;
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
