/* Depth meter: marks the floor of the section being read (aria-current="location").
   A section's floor holds until the next heading that declares one. */
(function () {
  "use strict";
  var HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"].map(function (h) {
    return ".md-content " + h + "[data-floor]";
  }).join(",");
  var state = { meter: null, headings: [], current: undefined, queued: false };

  function threshold() {
    var header = document.querySelector(".md-header");
    var top = header ? header.getBoundingClientRect().bottom : 0;
    return top + (window.innerHeight - top) * 0.3;
  }

  function update() {
    state.queued = false;
    if (!state.meter) return;
    var line = threshold(), floor = null;
    for (var i = 0; i < state.headings.length; i++) {
      if (state.headings[i].getBoundingClientRect().top > line) break;
      floor = state.headings[i].getAttribute("data-floor");
    }
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

  window.addEventListener("scroll", queue, { passive: true });
  window.addEventListener("resize", queue, { passive: true });
  ldr.onPage(function () {
    state.meter = document.querySelector("[data-ldr-meter]");
    state.headings = state.meter ? ldr.all(document, HEADINGS) : [];
    state.current = undefined;
    if (state.meter) {
      state.meter.addEventListener("keydown", onKey);
      state.meter.setAttribute("data-ldr-ready", "");
    }
    update();
  });
})();
