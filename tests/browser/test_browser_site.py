"""Whole-site checks: the palette follows the scheme toggle, the home page's reading lines, and
screenshots of Part 0 to look at. (That no page requests anything off localhost or logs an error
is test_browser_calm.py's, on the same cold loads as its other checks.)"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin, urlparse

from browser_support import SCREENSHOTS, click_nav

PALETTE = ["--ldr-subject", "--ldr-subject-soft", "--ldr-ink", "--ldr-ink-soft", "--ldr-context",
           "--ldr-context-soft", "--ldr-paper"]


def tokens(page) -> dict:
    return page.evaluate("names => { const s = getComputedStyle(document.body); "
                         "return Object.fromEntries(names.map(n => [n, s.getPropertyValue(n).trim()])); }", PALETTE)


def toggle_scheme(page, to: str):
    target = "__palette_1" if to == "slate" else "__palette_0"
    page.click(f"label[for='{target}']:visible")
    page.wait_for_function("s => document.body.getAttribute('data-md-color-scheme') === s", arg=to)


def test_scheme_toggle_changes_the_palette(project_site, open_page):
    page, watch = open_page(project_site.url("theme-check/part-00-the-map/"))
    light = tokens(page)
    assert light["--ldr-subject"] == "#b4420a" and all(light.values())
    toggle_scheme(page, "slate")
    dark = tokens(page)
    assert dark["--ldr-subject"] == "#fb923c"
    assert all(dark[n] != light[n] for n in PALETTE)
    fill = page.eval_on_selector(".ldr-instrument[data-instrument=toll-meter] .ldr-mark--current",
                                 "e => getComputedStyle(e).fill")
    assert fill == "rgb(251, 146, 60)"
    toggle_scheme(page, "default")
    assert tokens(page) == light
    watch.check()


def site_pages(site) -> list[str]:
    folder = Path(site.server.RequestHandlerClass.keywords["directory"])
    paths = (p.relative_to(folder).parent.as_posix() for p in folder.rglob("index.html") if "assets" not in p.parts)
    return sorted("" if path == "." else path for path in paths)  # "." is the home page; dots elsewhere stay


def test_reading_lines_link_every_part(project_site, open_page):
    page, watch = open_page(project_site.url("theme-check/"))
    hrefs = page.eval_on_selector_all(".ldr-metro__station",
                                      "els => els.map(a => a.getAttribute('xlink:href') || a.getAttribute('href'))")
    assert len(hrefs) == 12 and hrefs[0] == "../part-00-the-map/" and hrefs[11] == "../part-11-working-on-pytorch/"
    assert page.locator(".ldr-metro__track").count() == 3
    assert page.locator(".ldr-robot").count() == 1
    assert page.locator(".ldr-robot__says").text_content().startswith("Pick a line")
    watch.check()


def test_screenshots_of_part_0(project_site, open_page):
    """Part 0 in light and dark, desktop and phone, into tests/browser/screenshots/ to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)
    part0 = "part-00-the-map/" if "part-00-the-map" in site_pages(project_site) else "theme-check/part-00-the-map/"
    for size, (w, h) in {"desktop": (1440, 900), "phone": (390, 844)}.items():
        for scheme in ("light", "dark"):
            page, watch = open_page(project_site.url(part0), width=w, height=h)
            if scheme == "dark":
                toggle_scheme(page, "slate")
            page.wait_for_timeout(200)
            page.screenshot(path=str(SCREENSHOTS / f"part0-{scheme}-{size}-top.png"))
            targets = {kind: f".ldr-instrument[data-instrument='{kind}']" for kind in
                       ("toll-meter", "graph-walker", "two-clocks", "library-sizes")}
            targets["robot"] = ".ldr-robot"
            for kind, selector in targets.items():
                target = page.locator(selector)
                if target.count():
                    target.first.evaluate("e => { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -70); }")
                    page.wait_for_timeout(200)
                    page.screenshot(path=str(SCREENSHOTS / f"part0-{scheme}-{size}-{kind}.png"))
            watch.check()
            page.context.close()
    home = project_site.url("" if project_site.with_docs else "theme-check/")
    page, _ = open_page(home, width=1440, height=900)
    page.locator(".ldr-metro").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "home-metro-light-desktop.png"))
    assert len(list(SCREENSHOTS.glob("part0-*.png"))) >= 4


FETCHED = re.compile(
    r"""<(?:script|img|iframe|source|audio|video|embed)\b[^>]*\bsrc\s*=\s*["']([^"']+)"""
    r"""|<link\b(?=[^>]*\brel\s*=\s*["'](?:stylesheet|preload|prefetch|preconnect|dns-prefetch|icon|manifest|modulepreload)["'])[^>]*\bhref\s*=\s*["']([^"']+)"""
    r"""|url\(\s*["']?([^"')]+)|@import\s+["']([^"']+)""", re.I)


def test_nothing_in_the_built_site_points_a_fetch_off_site(project_site):
    """Static companion of the request log: no page, stylesheet or script names an external
    resource to fetch (links a reader may follow are fine)."""
    folder = Path(project_site.server.RequestHandlerClass.keywords["directory"])
    offenders = []
    for path in folder.rglob("*"):
        if path.suffix not in (".html", ".css", ".js") or "javascripts" in path.parts:
            continue  # mkdocs-material's own bundle is checked by the request log instead
        for match in FETCHED.finditer(path.read_text(encoding="utf-8", errors="replace")):
            url = next(g for g in match.groups() if g)
            host = urlparse(urljoin("http://127.0.0.1/", url)).hostname
            if url.startswith(("data:", "#")) or host in ("127.0.0.1", "localhost"):
                continue
            offenders.append(f"{path.relative_to(folder)}: {url}")
    assert not offenders, offenders


def test_a_cards_source_is_one_click_away_with_and_without_javascript(project_site, open_page):
    """The card's source link opens the script's own page (site/sourcepage.py) whether or not
    JavaScript runs (with it, mkdocs-material's instant navigation must let the link go); the
    page fetches nothing but itself, follows the reader's colour scheme, and leads back."""
    part0 = "part-00-the-map/" if "part-00-the-map" in site_pages(project_site) else "theme-check/part-00-the-map/"
    for javascript, scheme, background in ((True, "dark", "rgb(26, 28, 35)"), (False, "light", "rgb(255, 253, 249)")):
        page, watch = open_page(project_site.url(part0), javascript=javascript, scheme=scheme)
        assert page.locator(".ldr-proof pre.code, .ldr-proof .highlight").count() == 0
        link = page.locator(".ldr-proof__source a").first
        card = link.evaluate("a => a.closest('.ldr-proof').id")
        name = card.removeprefix("proof-")
        link.click()
        page.wait_for_url(f"**/proofs/{name}.py.html")
        page.wait_for_load_state("load")
        assert page.evaluate("performance.getEntriesByType('resource').map(e => e.name)") == []
        code = page.locator("pre.code").inner_text()
        assert code.startswith('"""') and "import torch" in code
        assert page.locator("pre.ln").inner_text().split("\n")[:3] == ["1", "2", "3"]
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == background
        page.locator("a", has_text="Back to the card").click()
        page.wait_for_url(f"**#{card}")
        assert page.locator(f"#{card}").count() == 1
        watch.check()
        page.context.close()


def test_drawing_fonts_hold_after_instant_navigation_from_another_depth(project_site, open_page):
    # the faces are declared in the page's head with URLs relative to the page; instant navigation
    # adds the next page's declaration after the address has changed, so from a page two folders
    # deep to one a folder deep the font still comes from assets/ldr/fonts/, and is used
    page, watch = open_page(project_site.url("drift/2.13.0-to-2.14.1/"))
    fonts: list[tuple[str, int]] = []
    page.on("response", lambda r: r.url.endswith(".woff2") and fonts.append((r.url, r.status)))
    page.evaluate("() => { window.__ldrSamePage = true; }")
    click_nav(page, "part-00-the-map/")
    page.wait_for_function("() => location.pathname.endsWith('/part-00-the-map/')")
    page.wait_for_function("() => !!document.querySelector('svg.ldr-drawing')")
    assert page.evaluate("() => window.__ldrSamePage === true")  # it was instant: no reload
    page.evaluate("() => document.querySelector('svg.ldr-drawing').scrollIntoView()")
    assert page.evaluate("""async () => { await document.fonts.load('20px Excalifont', 'floors');
      return [...document.fonts].some(f => f.family.replace(/"/g, '') === 'Excalifont' && f.status === 'loaded'); }""")
    assert fonts and all(status in (200, 304) and "/assets/ldr/fonts/" in url and "/drift/" not in url
                         for url, status in fonts), fonts
    watch.check()
