/* Depth meter: marks the floor of the section being read (aria-current="location").
   The section being read is the one the table of contents marks (mkdocs-material's
   md-nav__link--active), so the two always agree; without a table of contents the same rule is
   applied here. A heading's floor is the one it declares; a subsection without one is on its
   section's floor; a section without one (the territory, the references) is on no floor. */
(function () {
  "use strict";
  var HEADINGS = ".md-content h1[id], .md-content h2[id], .md-content h3[id], .md-content h4[id], " +
    ".md-content h5[id], .md-content h6[id]";
  var state = { meter: null, headings: [], floors: [], toc: null, watcher: null, current: undefined, queued: false };

  /* each heading's floor: its own, else its parent section's (the nearest heading above it of a
     higher level), else none */
  function floorsOf(headings) {
    var open = [], out = [];
    headings.forEach(function (h) {
      var level = +h.tagName.charAt(1);
      while (open.length && open[open.length - 1].level >= level) open.pop();
      var floor = h.getAttribute("data-floor") || (open.length ? open[open.length - 1].floor : null);
      open.push({ level: level, floor: floor });
      out.push(floor);
    });
    return out;
  }

  /* mkdocs-material's rule when there is no table of contents to ask: the last heading that has
     passed the header (its height plus most of the gap above the content), or the last one of
     all at the bottom of the page */
  function passedHeading() {
    var header = document.querySelector(".md-header");
    var main = document.querySelector('[data-md-component="main"]');
    var grid = main && main.firstElementChild;
    var line = (header ? header.offsetHeight : 0) + (grid ? 0.8 * (grid.offsetTop - main.offsetTop) : 0);
    var bottom = window.innerHeight + window.scrollY >= Math.floor(document.body.scrollHeight);
    var found = -1;
    for (var i = 0; i < state.headings.length; i++) {
      if (!bottom && state.headings[i].getBoundingClientRect().top >= line) break;
      found = i;
    }
    return found;
  }

  function readingIndex() {
    if (!state.toc) return passedHeading();
    var link = state.toc.querySelector(".md-nav__link--active");
    if (!link || !link.hash) return -1;
    return state.headings.indexOf(document.getElementById(decodeURIComponent(link.hash.slice(1))));
  }

  function update() {
    state.queued = false;
    if (!state.meter) return;
    var at = readingIndex();
    var floor = at >= 0 ? state.floors[at] : null;
    if (floor === state.current) return;
    state.current = floor;
    var label = "";
    ldr.all(state.meter, ".ldr-meter__floor").forEach(function (li) {
      var link = li.querySelector("a");
      var here = li.getAttribute("data-floor") === floor;
      li.classList.toggle("ldr-meter__floor--current", here);
      if (!link) return;
      if (here) {
        link.setAttribute("aria-current", "location");
        label = link.textContent;
      } else {
        link.removeAttribute("aria-current");
      }
    });
    state.meter.setAttribute("data-ldr-floor", floor || "");
    var now = state.meter.querySelector(".ldr-meter__now");
    if (now) now.textContent = label;
  }

  function queue() {
    if (state.queued) return;
    state.queued = true;
    window.requestAnimationFrame(update);
  }

  function onKey(event) {
    var links = ldr.all(state.meter, ".ldr-meter__floor > a");
    var at = links.indexOf(document.activeElement), to = -1;
    if (at < 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowRight") to = Math.min(links.length - 1, at + 1);
    else if (event.key === "ArrowUp" || event.key === "ArrowLeft") to = Math.max(0, at - 1);
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = links.length - 1;
    if (to < 0) return;
    event.preventDefault();
    links[to].focus();
  }

  var listening = false;
  ldr.onPage(function () {
    state.meter = document.querySelector("[data-ldr-meter]");
    if (state.meter && !listening) {  // a page without the meter pays nothing while it scrolls
      listening = true;
      window.addEventListener("scroll", queue, { passive: true });
      window.addEventListener("resize", queue, { passive: true });
    }
    state.headings = state.meter ? ldr.all(document, HEADINGS) : [];
    state.floors = floorsOf(state.headings);
    state.toc = state.meter ? document.querySelector('[data-md-component="toc"]') : null;
    state.current = undefined;
    if (state.watcher) state.watcher.disconnect();
    state.watcher = null;
    if (state.toc && window.MutationObserver) {
      // the table of contents moves its mark after its own scroll handling: follow it
      state.watcher = new MutationObserver(queue);
      state.watcher.observe(state.toc, { attributes: true, attributeFilter: ["class"], subtree: true });
    }
    if (state.meter) {
      state.meter.addEventListener("keydown", onKey);
      state.meter.setAttribute("data-ldr-ready", "");
    }
    update();
  });
})();
