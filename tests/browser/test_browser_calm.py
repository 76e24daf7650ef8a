"""Light, calm pages (issue 20): every page makes at most three requests of its own (our one
stylesheet, our one script and, where a drawing needs it, one font), and nothing on a page moves
while it loads, at 1440 px and at 390 px (layout shift 0, read from the browser's own
``layout-shift`` entries, buffered from the navigation's start). And no page requests anything
off localhost or logs an error, read on the same cold loads."""

from __future__ import annotations

import json
from urllib.parse import urlparse

import pytest
from browser_support import READY, SEARCH_INDEX, SETTLED, Watch, two_at_a_time

# What any mkdocs-material page requests: its own stylesheets, scripts, favicon and search.
MATERIAL = ("assets/stylesheets/", "assets/javascripts/", "assets/images/", "search/", "sitemap.xml")
PAGES = ["", "part-00-the-map/", "part-01-the-tensor/", "part-02-autograd/", "drift/2.13.0-to-2.14.1/",
         "proofs/", "theme-check/part-01-instruments/", "theme-check/part-02-instruments/"]
WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}

# Every layout shift since the navigation started; ``__ldrTakeShifts()`` adds those the observer
# holds and has not delivered yet (its callback runs in a later task), so a read misses none.
OBSERVE = """(() => {
  window.__ldrShifts = [];
  const keep = entries => entries.forEach(e => {
    if (e.hadRecentInput) return;
    __ldrShifts.push({at: Math.round(e.startTime), value: e.value,
      nodes: (e.sources || []).map(s => s.node ? s.node.nodeName + '.' + (s.node.className || '') : '?').join(' ')});
  });
  const observer = new PerformanceObserver(list => keep(list.getEntries()));
  observer.observe({type: 'layout-shift', buffered: true});
  window.__ldrTakeShifts = () => { keep(observer.takeRecords()); return __ldrShifts; };
})();
"""


def all_pages(site) -> list[str]:
    return sorted("" if p.parent == site.folder else p.parent.relative_to(site.folder).as_posix() + "/"
                  for p in site.folder.rglob("index.html") if "assets" not in p.relative_to(site.folder).parts)


WINDOW_MS = 400
"""How long after its scripts' ready mark a page is watched, at least: what the fixed wait gave."""


def start_load(browser, site, path: str, width: int, height: int):
    """Start a cold load in a fresh context; return once its scripts are ready and its first
    frames and its fonts are done (SETTLED: a wait on the page's own events, which no busy machine
    can outrun), the page still watched (finish_load) until WINDOW_MS after the ready mark.
    ``watch`` sees every request of the page and its workers, and every error it logs. The page
    gets the site's whole search index, as a reader's browser does."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="light")
    site.full_search(context)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    watch = Watch(page)
    page.goto(site.url(path), wait_until="load")
    page.wait_for_function(READY)
    page.evaluate("ms => { window.__ldrUntil = performance.now() + ms; }", WINDOW_MS)
    page.evaluate(SETTLED)
    return context, page, requests, watch


FINISH = """async () => {
  const left = __ldrUntil - performance.now();
  if (left > 0) await new Promise(done => setTimeout(done, left));
}"""


# Once its window is over, a page that is explored (``cold_loads(explore=True)``) is left until its
# network is idle, then wheeled 4000 px down (lazy things load): the wheel's scroll has ended (or the
# page cannot scroll), then two frames (what the scroll set off has started), and at least the
# 100 ms after the wheel that a fixed wait gave.
WHEELED = """() => { window.__ldrWheelAt = performance.now(); window.__ldrScrollEnd = false;
  addEventListener("scrollend", () => { __ldrScrollEnd = true; }, {once: true}); }"""
SCROLLED = "() => __ldrScrollEnd || document.scrollingElement.scrollHeight <= innerHeight"
AFTER_SCROLL = """async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => done()));
  await frame(); await frame();
  const left = __ldrWheelAt + 100 - performance.now();
  if (left > 0) await new Promise(done => setTimeout(done, left));
}"""


def explore(page) -> None:
    page.wait_for_load_state("networkidle")
    page.evaluate(WHEELED)
    page.mouse.wheel(0, 4000)
    page.wait_for_function(SCROLLED)
    page.evaluate(AFTER_SCROLL)


def cold_loads(browser, site, paths: list[str], width: int, height: int, probes: dict | None = None,
               explored: bool = False) -> dict:
    """Each path loaded cold, each in a fresh context: what it requests of its own in its window
    (``own``), every layout shift it made (``shifts``) and what its probe, a script, returns
    (``probed``); explored, also every request it and its workers made and every error it logged
    up to the end of the exploring (``all`` and ``errors``). Two pages at a time: while one is
    watched to the end of its window, or waits for its network, doing nothing, the next one loads
    (each its own window, context and renderer; nothing of one is read on the other)."""
    probes = probes or {}

    def finish(path, context, page, requests, watch):
        try:
            page.evaluate(FINISH)
            probed = page.evaluate(probes[path]) if path in probes else None
            shifts = page.evaluate("() => __ldrTakeShifts()")
            mine = own(requests, site.base, site.url(path))  # the page's own, before any scrolling
            if explored:
                explore(page)
        finally:
            context.close()
        return path, {"own": mine, "shifts": shifts, "probed": probed,
                      "all": list(watch.requests), "external": watch.external(), "errors": list(watch.errors)}

    return dict(two_at_a_time(paths, lambda path: start_load(browser, site, path, width, height), finish))


# How the proofs index's table is laid out (test_the_proofs_index_is_laid_out_before_any_script_runs).
INDEX = """() => { const t = document.querySelector('.ldr-index table');
  return {wrapped: !!t.closest('.md-typeset__scrollwrap'), layout: getComputedStyle(t).tableLayout,
          width: t.getBoundingClientRect().width, column: t.parentElement.getBoundingClientRect().width}; }"""


@pytest.fixture(scope="module")
def desktop_loads(project_site, browser) -> dict:
    """Every page loaded cold once at 1440 px, and explored: the request tests, the desktop shift
    test and the proofs index test read the same loads (a cold load in a fresh context costs the
    same whatever is read from it)."""
    width, height = WIDTHS["desktop"]
    return cold_loads(browser, project_site, all_pages(project_site), width, height, {"proofs/": INDEX},
                      explored=True)


def own(requests: list[str], base: str, url: str) -> list[str]:
    """The requests a plain mkdocs-material page would not make (the page itself left out)."""
    paths = []
    for req in requests:
        if not req.startswith(base) or req.split("#")[0] == url:
            continue
        path = urlparse(req).path.lstrip("/")
        if not path.startswith(MATERIAL) and path not in paths:
            paths.append(path)
    return paths


def test_every_page_makes_at_most_three_requests_of_its_own(project_site, desktop_loads):
    pages = all_pages(project_site)
    assert len(pages) >= 20 and "drift/2.13.0-to-2.14.1/" in pages
    assert sorted(desktop_loads) == pages
    fonts_seen = 0
    for path in pages:
        mine = desktop_loads[path]["own"]
        assert len(mine) <= 3, f"/{path} makes {len(mine)} requests of its own: {mine}"
        # our CSS is one stylesheet, our JS one script, and at most one font comes with them
        assert [p for p in mine if p.endswith(".css")] == ["assets/ldr/bundle.css"], (path, mine)
        assert [p for p in mine if p.endswith(".js")] == ["assets/ldr/bundle.js"], (path, mine)
        fonts = [p for p in mine if p.endswith(".woff2")]
        assert len(fonts) <= 1, (path, fonts)
        fonts_seen += len(fonts)
        assert not set(mine) - {"assets/ldr/bundle.css", "assets/ldr/bundle.js", *fonts}, (path, mine)
    assert fonts_seen >= 3  # the drawings' font is among what was counted


def test_no_request_leaves_localhost_and_no_console_errors(project_site, desktop_loads):
    """Every page, loaded cold in a fresh context, until its network is idle, then scrolled 4000 px
    down (lazy things load): what it and its workers requested, and what it logged."""
    pages = all_pages(project_site)
    assert any(p.startswith("theme-check") for p in pages)
    assert sorted(desktop_loads) == pages
    for path in pages:
        load = desktop_loads[path]
        assert load["all"], path
        assert not load["external"], (f"/{path}: requests left localhost", load["external"])
        assert not load["errors"], (f"/{path}: console errors", load["errors"])


@pytest.mark.parametrize("size", WIDTHS, ids=list(WIDTHS))
def test_nothing_moves_while_a_page_loads(project_site, browser, request, size):
    width, height = WIDTHS[size]
    if size == "desktop":
        loads = request.getfixturevalue("desktop_loads")
    else:
        loads = cold_loads(browser, project_site, PAGES, width, height)
    assert set(PAGES) <= set(loads), sorted(set(PAGES) - set(loads))
    moved = [f"/{path}: {s['value']:.4f} at {s['at']} ms: {s['nodes'][:160]}"
             for path in PAGES for s in loads[path]["shifts"]]
    assert not moved, f"layout shifts at {width} px:\n" + "\n".join(moved)


def test_the_proofs_index_is_laid_out_before_any_script_runs(desktop_loads):
    # mkdocs-material wraps a table without a class in its scroll boxes once its script runs, which
    # moved the index after the first paint; and a table laid out by its contents settles its
    # columns row by row while a long page arrives
    seen, shifts = desktop_loads["proofs/"]["probed"], desktop_loads["proofs/"]["shifts"]
    assert not seen["wrapped"] and seen["layout"] == "fixed", seen
    assert abs(seen["width"] - seen["column"]) <= 1, seen  # the text column's width, whatever the rows hold
    assert shifts == [], shifts


# The tops of every heading and figure on the page, and its height.
TOPS = """() => [document.documentElement.scrollHeight,
  ...[...document.querySelectorAll('h1, h2, h3, h4, figure, .ldr-instrument, svg')]
     .map(e => Math.round(e.getBoundingClientRect().top + scrollY))]"""


@pytest.mark.parametrize("size", WIDTHS, ids=list(WIDTHS))
def test_figures_skipped_off_screen_are_as_tall_as_drawn(project_site, open_page, size):
    # a drawing or chart off screen is left undrawn (content-visibility: auto, so the browser does
    # not work out the style of its hundreds of elements every time the page's palette changes),
    # and keeps the height it has when drawn: every heading and figure is where it would be
    width, height = WIDTHS[size]
    for path in ("part-00-the-map/", "part-01-the-tensor/"):
        page, watch = open_page(project_site.url(path), width=width, height=height)
        skipped = page.evaluate("() => [...document.querySelectorAll('svg')].filter(s =>"
                                " getComputedStyle(s).contentVisibility === 'auto').length")
        assert skipped >= 3, path  # drawings and charts
        # the page's long blocks stand in at an estimated height while skipped (ldr-proofs.css),
        # a different rule: they are drawn first, so only the drawings' own skipping is compared
        page.add_style_tag(content=".md-typeset > * { content-visibility: visible !important; }")
        lazy = page.evaluate(TOPS)
        page.add_style_tag(content="svg { content-visibility: visible !important; }")
        assert page.evaluate(TOPS) == lazy, path
        watch.check()


# What a chart draws outside its viewBox: a chart's SVG lets its content overflow (overflow:
# visible), but content-visibility brings paint containment, which clips it to its box, so no chart
# may rely on overflowing. (A drawing's SVG clips to its box as any SVG does: nothing changed there.)
OUTSIDE = """() => [...document.querySelectorAll('svg.ldr-plot')].flatMap(s => {
  const vb = s.viewBox.baseVal, out = [];
  for (const e of s.querySelectorAll('text, rect, line, path, circle, ellipse, polyline, polygon')) {
    let b; try { b = e.getBBox(); } catch (x) { continue; }
    if (!b.width && !b.height) continue;
    if (b.x < vb.x - 1 || b.y < vb.y - 1
        || b.x + b.width > vb.x + vb.width + 1 || b.y + b.height > vb.y + vb.height + 1)
      out.push(`${s.getAttribute('aria-label').slice(0, 30)}: <${e.tagName}> ${(e.textContent || '').slice(0, 20)}`);
  }
  return out; })"""


def test_charts_draw_inside_their_box(project_site, open_page):
    pages = ["part-00-the-map/", "part-01-the-tensor/", "part-02-autograd/", "theme-check/part-01-instruments/",
             "theme-check/part-02-instruments/"]
    charts = 0
    for path in pages:
        page, watch = open_page(project_site.url(path))
        charts += page.evaluate("() => document.querySelectorAll('svg.ldr-plot').length")
        assert page.evaluate(OUTSIDE) == [], path
        watch.check()
        page.context.close()
    assert charts >= 5  # the instruments' charts were found


def test_a_cold_load_gets_the_whole_search_index_and_other_pages_a_one_page_one(project_site, browser):
    """The loads above are a reader's: the theme's search worker fetches the site's whole index.
    Every other browser test's page gets a one-page index from the test server (0.3 s of CPU
    a page saved: browser_support._Quiet), through the same worker."""
    whole = json.loads((project_site.folder / SEARCH_INDEX).read_text(encoding="utf-8"))
    assert len(whole["docs"]) > 20
    for full in (True, False):
        context = browser.new_context()
        try:
            if full:
                project_site.full_search(context)
            page = context.new_page()
            with context.expect_event("response", lambda r: r.url.endswith("/" + SEARCH_INDEX)) as got:
                page.goto(project_site.url("part-00-the-map/"))
            docs = got.value.json()["docs"]
        finally:
            context.close()
        assert docs == (whole["docs"] if full else whole["docs"][:1]), full
