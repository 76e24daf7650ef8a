"""Light, calm pages (issue 20): every page makes at most three requests of its own (our one
stylesheet, our one script and, where a drawing needs it, one font), and nothing on a page moves
while it loads, at 1440 px and at 390 px (layout shift 0, read from the browser's own
``layout-shift`` entries, buffered from the navigation's start)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

# What any mkdocs-material page requests: its own stylesheets, scripts, favicon and search.
MATERIAL = ("assets/stylesheets/", "assets/javascripts/", "assets/images/", "search/", "sitemap.xml")
PAGES = ["", "part-00-the-map/", "part-01-the-tensor/", "part-02-autograd/", "drift/2.13.0-to-2.14.1/",
         "proofs/", "theme-check/part-01-instruments/", "theme-check/part-02-instruments/"]
WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}

OBSERVE = """
window.__ldrShifts = [];
new PerformanceObserver(list => list.getEntries().forEach(e => {
  if (e.hadRecentInput) return;
  __ldrShifts.push({at: Math.round(e.startTime), value: e.value,
    nodes: (e.sources || []).map(s => s.node ? s.node.nodeName + '.' + (s.node.className || '') : '?').join(' ')});
})).observe({type: 'layout-shift', buffered: true});
"""


def all_pages(site) -> list[str]:
    return sorted("" if p.parent == site.folder else p.parent.relative_to(site.folder).as_posix() + "/"
                  for p in site.folder.rglob("index.html") if "assets" not in p.relative_to(site.folder).parts)


def load(browser, url: str, width: int, height: int):
    """A cold load in a fresh context: the page, its same-site request paths, once it is ready."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="light")
    context.add_init_script(OBSERVE)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(url, wait_until="load")
    page.wait_for_function("() => !!document.querySelector('[data-ldr-meter][data-ldr-ready]')")
    page.wait_for_timeout(400)  # the scripts' first frame and the fonts
    return context, page, requests


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


def test_every_page_makes_at_most_three_requests_of_its_own(project_site, browser):
    pages = all_pages(project_site)
    assert len(pages) >= 20 and "drift/2.13.0-to-2.14.1/" in pages
    fonts_seen = 0
    for path in pages:
        context, page, requests = load(browser, project_site.url(path), 1440, 900)
        mine = own(requests, project_site.base, project_site.url(path))
        context.close()
        assert len(mine) <= 3, f"/{path} makes {len(mine)} requests of its own: {mine}"
        # our CSS is one stylesheet, our JS one script, and at most one font comes with them
        assert [p for p in mine if p.endswith(".css")] == ["assets/ldr/bundle.css"], (path, mine)
        assert [p for p in mine if p.endswith(".js")] == ["assets/ldr/bundle.js"], (path, mine)
        fonts = [p for p in mine if p.endswith(".woff2")]
        assert len(fonts) <= 1, (path, fonts)
        fonts_seen += len(fonts)
        assert not set(mine) - {"assets/ldr/bundle.css", "assets/ldr/bundle.js", *fonts}, (path, mine)
    assert fonts_seen >= 3  # the drawings' font is among what was counted


@pytest.mark.parametrize("size", WIDTHS, ids=list(WIDTHS))
def test_nothing_moves_while_a_page_loads(project_site, browser, size):
    width, height = WIDTHS[size]
    moved = []
    for path in PAGES:
        context, page, _ = load(browser, project_site.url(path), width, height)
        shifts = page.evaluate("() => __ldrShifts")
        context.close()
        moved += [f"/{path}: {s['value']:.4f} at {s['at']} ms: {s['nodes'][:160]}" for s in shifts]
    assert not moved, f"layout shifts at {width} px:\n" + "\n".join(moved)


def test_the_proofs_index_is_laid_out_before_any_script_runs(project_site, browser):
    # mkdocs-material wraps a table without a class in its scroll boxes once its script runs, which
    # moved the index after the first paint; and a table laid out by its contents settles its
    # columns row by row while a long page arrives
    context, page, _ = load(browser, project_site.url("proofs/"), 1440, 900)
    seen = page.evaluate("""() => { const t = document.querySelector('.ldr-index table');
      return {wrapped: !!t.closest('.md-typeset__scrollwrap'), layout: getComputedStyle(t).tableLayout,
              width: t.getBoundingClientRect().width, column: t.parentElement.getBoundingClientRect().width}; }""")
    shifts = page.evaluate("__ldrShifts")
    context.close()
    assert not seen["wrapped"] and seen["layout"] == "fixed", seen
    assert abs(seen["width"] - seen["column"]) <= 1, seen  # the text column's width, whatever the rows hold
    assert shifts == [], shifts
