"""Reading on a phone (issue 11, item 7): drawings open full screen where they would be too small,
the depth meter agrees with the table of contents and stays off floorless sections, each part
leads to the next, the first visit follows the system's colour scheme, and the figure's download
link says what it gives and how to open it."""

from __future__ import annotations

import re

import pytest
from browser_support import SCREENSHOTS

PHONE = {"width": 390, "height": 844}
LEGIBLE_PX = 9.0  # the smallest label a reader can make out, as shown on the screen
PART0 = "part-00-the-map/"

# The smallest label of a drawing as shown: its font size in the scene times the drawing's scale.
SMALLEST_LABEL = """svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return Math.min(...Array.from(svg.querySelectorAll('text'))
    .map(t => parseFloat(getComputedStyle(t).fontSize) * scale));
}"""


def drawing_pages(site) -> list[str]:
    """Every built page that shows an Excalidraw drawing, as a path below the site."""
    return sorted(p.parent.relative_to(site.folder).as_posix() + "/"
                  for p in site.folder.rglob("index.html") if "ldr-drawing" in p.read_text(encoding="utf-8"))


def settle(page):
    """Two animation frames: the scroll handlers (mkdocs-material's and the meter's) have run."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# --- drawings -------------------------------------------------------------------------------------

def test_every_drawing_is_legible_on_a_phone_or_a_tap_opens_it_legible(project_site, open_page):
    pages = drawing_pages(project_site)
    assert PART0 in pages and "part-01-the-tensor/" in pages
    checked, smallest_inline, smallest_shown = 0, 1e9, 1e9
    for path in pages:
        page, watch = open_page(project_site.url(path), **PHONE)
        figures = page.locator("figure.ldr-figure:has(svg.ldr-drawing)")
        for k in range(figures.count()):
            figure = figures.nth(k)
            name = figure.get_attribute("id")
            inline = figure.locator("svg.ldr-drawing").evaluate(SMALLEST_LABEL)
            smallest_inline = min(smallest_inline, inline)
            button = figure.locator("button.ldr-figure-open")
            assert button.count() == 1, f"{path}#{name}: the drawing does not open full screen"
            assert figure.locator(".ldr-figure-hint").is_visible(), f"{path}#{name}: no hint on a phone"
            assert "full screen" in figure.locator(".ldr-figure-hint").inner_text()
            button.click()
            dialog = page.locator("dialog.ldr-zoom[open]")
            dialog.wait_for()
            shown = dialog.locator("svg.ldr-drawing").evaluate(SMALLEST_LABEL)
            smallest_shown = min(smallest_shown, max(inline, shown))
            assert max(inline, shown) >= LEGIBLE_PX, f"{path}#{name}: labels {inline:.1f} px, enlarged {shown:.1f} px"
            # native pan and pinch zoom (Chromium names pan-x pan-y pinch-zoom "manipulation")
            assert dialog.evaluate("d => getComputedStyle(d.querySelector('.ldr-zoom__pane')).touchAction") \
                in ("pan-x pan-y pinch-zoom", "manipulation")
            box = dialog.bounding_box()
            assert box["width"] == PHONE["width"] and box["height"] == PHONE["height"], "not full screen"
            page.keyboard.press("Escape")
            page.wait_for_function("() => !document.querySelector('dialog.ldr-zoom[open]')")
            assert figure.locator("svg.ldr-drawing").count() == 1, "drawing not put back"
            checked += 1
        watch.check()
    assert checked >= 13
    print(f"smallest label on a phone: inline {smallest_inline:.2f} px, as shown after a tap "
          f"{smallest_shown:.2f} px")


def test_the_viewer_works_from_the_keyboard_and_keeps_the_page(project_site, open_page):
    page, watch = open_page(project_site.url(PART0), width=1440, height=900)
    button = page.locator("#figure-two-clocks button.ldr-figure-open")
    assert "Enlarge" in button.get_attribute("aria-label")
    button.focus()
    before = page.evaluate("() => [scrollY, document.documentElement.scrollHeight]")
    page.keyboard.press("Enter")
    dialog = page.locator("dialog.ldr-zoom[open]")
    dialog.wait_for()
    assert page.evaluate("() => document.activeElement.textContent") == "Close"
    assert dialog.locator(".ldr-zoom__title").inner_text().startswith("Two clocks")
    # shown at the size it was drawn; "Fit to screen" brings it inside the pane and back
    svg = dialog.locator("svg.ldr-drawing")
    drawn = svg.evaluate("s => s.viewBox.baseVal.width")
    assert abs(svg.bounding_box()["width"] - drawn) < 1
    fit = dialog.locator(".ldr-zoom__fit")
    fit.click()
    assert fit.get_attribute("aria-pressed") == "true"
    pane = dialog.locator(".ldr-zoom__pane").bounding_box()
    assert svg.bounding_box()["width"] <= pane["width"]
    fit.click()
    assert abs(svg.bounding_box()["width"] - drawn) < 1
    # the page behind keeps its length while the drawing is away (no jump on return)
    assert page.evaluate("() => [scrollY, document.documentElement.scrollHeight]") == before
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('dialog.ldr-zoom[open]')")
    assert page.evaluate("() => document.activeElement.classList.contains('ldr-figure-open')"
                         " && !!document.activeElement.closest('#figure-two-clocks')")
    assert page.locator("#figure-two-clocks svg.ldr-drawing").evaluate("s => s.style.width") == ""
    # the Close button too
    button.click()
    dialog.wait_for()
    dialog.locator(".ldr-zoom__close").click()
    page.wait_for_function("() => !document.querySelector('dialog.ldr-zoom[open]')")
    assert page.locator("#figure-two-clocks svg.ldr-drawing").count() == 1
    # a tap on the drawing itself opens it as well
    page.locator("#figure-two-clocks svg.ldr-drawing").click()
    dialog.wait_for()
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('dialog.ldr-zoom[open]')")
    assert page.locator("svg.ldr-drawing[id], svg.ldr-drawing [id]").evaluate_all(
        "els => els.length === new Set(els.map(e => e.id)).size"), "ids repeated"
    # the hint is for small screens; a wide screen shows the drawing large enough
    assert not page.locator("#figure-two-clocks .ldr-figure-hint").is_visible()
    watch.check()


def test_without_javascript_a_figure_is_the_plain_drawing(project_site, open_page):
    page, _ = open_page(project_site.url(PART0), javascript=False, **PHONE)
    assert page.locator("button.ldr-figure-open").count() == 0
    assert page.locator("figure.ldr-figure .ldr-figure-hint:visible").count() == 0


def test_drawing_screenshots_light_and_dark(project_site, open_page):
    SCREENSHOTS.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        page, watch = open_page(project_site.url(PART0), scheme=scheme, **PHONE)
        for size, viewport in (("phone", PHONE), ("desktop", {"width": 1440, "height": 900})):
            page.set_viewport_size(viewport)
            figure = page.locator("#figure-two-clocks")
            figure.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / f"phone-figure-{scheme}-{size}.png"))
            figure.locator("button.ldr-figure-open").click()
            page.locator("dialog.ldr-zoom[open]").wait_for()
            page.screenshot(path=str(SCREENSHOTS / f"phone-zoom-{scheme}-{size}.png"))
            page.keyboard.press("Escape")
        watch.check()


# --- the depth meter ------------------------------------------------------------------------------

EXPECTED_FLOOR = """() => {
  // the section the table of contents marks, and the floor it is on: its own, else its
  // parent section's, else none
  const link = document.querySelector('[data-md-component=toc] .md-nav__link--active');
  if (!link) return [null, null];
  const target = document.getElementById(decodeURIComponent(link.hash.slice(1)));
  const heads = Array.from(document.querySelectorAll('.md-content :is(h1,h2,h3,h4,h5,h6)[id]'));
  let level = 7;
  for (let i = heads.indexOf(target); i >= 0; i--) {
    const h = heads[i], l = +h.tagName[1];
    if (l >= level) continue;
    if (h.dataset.floor) return [target.id, h.dataset.floor];
    level = l;
  }
  return [target.id, null];
}"""

METER_FLOOR = """() => {
  const lit = document.querySelectorAll('[data-ldr-meter] a[aria-current=location]');
  return [lit.length, lit.length ? lit[0].parentElement.dataset.floor : null,
          document.querySelector('.ldr-meter__now').textContent];
}"""


@pytest.mark.parametrize("viewport", [{"width": 1440, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_meter_and_table_of_contents_agree_down_part_0(project_site, open_page, viewport):
    page, watch = open_page(project_site.url(PART0), **viewport)
    height = page.evaluate("() => document.documentElement.scrollHeight - innerHeight")
    step = viewport["height"] // 2
    seen_sections, floorless = set(), set()
    for y in list(range(0, height, step)) + [height]:
        page.evaluate("y => window.scrollTo(0, y)", y)
        settle(page)
        section, floor = page.evaluate(EXPECTED_FLOOR)
        count, lit, now = page.evaluate(METER_FLOOR)
        assert (lit if count else None) == floor and count == (1 if floor else 0), \
            f"at {y}px the contents mark #{section} (floor {floor}), the meter lights {lit} ({count})"
        if not floor:
            assert now == "", f"at {y}px the phone bar still names {now!r}"
            floorless.add(section)
        seen_sections.add(section)
    assert len(seen_sections) >= 15
    # the sections on no floor light none
    for section in ("the-territory", "twelve-ideas", "how-to-read-the-series", "references"):
        assert section in floorless or section not in seen_sections, section
    assert {"the-territory", "twelve-ideas", "references"} <= floorless
    watch.check()


def test_without_a_table_of_contents_the_meter_applies_the_same_rule(project_site, open_page):
    """A page whose table of contents is not there (hidden, or another theme's): the meter finds
    the section itself and lights what the contents would have marked."""
    positions, expected = [], []
    page, _ = open_page(project_site.url(PART0))
    height = page.evaluate("() => document.documentElement.scrollHeight - innerHeight")
    # near every heading (where the two rules could part) and a stride through the rest
    tops = page.evaluate("() => Array.from(document.querySelectorAll('.md-content h2[id], .md-content h3[id]'))"
                         ".map(h => Math.round(h.getBoundingClientRect().top + scrollY))")
    near = [t - d for t in tops for d in (40, 60, 80) if 0 <= t - d <= height]
    for y in sorted(set(near + list(range(0, height, 1400)) + [height])):
        page.evaluate("y => window.scrollTo(0, y)", y)
        settle(page)
        positions.append(y)
        expected.append(page.evaluate(EXPECTED_FLOOR)[1])
    assert None in expected and len(set(expected)) >= 6
    page.context.route("**/" + PART0, lambda route: route.fulfill(
        response=(r := route.fetch()), body=r.text().replace('data-md-component="toc"', "")))
    page.goto(project_site.url(PART0), wait_until="load")
    page.wait_for_function("() => !!document.querySelector('[data-ldr-meter][data-ldr-ready]')")
    assert page.locator("[data-md-component=toc]").count() == 0
    for y, floor in zip(positions, expected):
        page.evaluate("y => window.scrollTo(0, y)", y)
        settle(page)
        count, lit, _ = page.evaluate(METER_FLOOR)
        assert (lit if count else None) == floor, f"at {y}px"


def test_floorless_sections_and_subsections(project_site, open_page):
    page, watch = open_page(project_site.url(PART0))
    cases = [("the-territory", None), ("twelve-ideas", None), ("try-it-yourself", None),
             ("device-runtime", "runtime"), ("dispatcher", "dispatcher")]
    for heading, floor in cases:
        page.evaluate("id => { const h = document.getElementById(id); window.scrollTo(0, h.getBoundingClientRect().top"
                      " + scrollY - 20 - document.querySelector('.md-header').offsetHeight); }", heading)
        settle(page)
        count, lit, _ = page.evaluate(METER_FLOOR)
        assert (lit if count else None) == floor, heading
    watch.check()


def test_floorless_page_shows_no_meter_bar_on_a_phone(project_site, open_page):
    floorless = [p.parent.relative_to(project_site.folder).as_posix() + "/"
                 for p in sorted(project_site.folder.glob("part-*/index.html"))
                 if "ldr-rail--empty" in p.read_text(encoding="utf-8")]
    assert floorless, "no part without floors to check"
    page, watch = open_page(project_site.url(floorless[0]), **PHONE)
    assert not page.locator(".ldr-rail").is_visible()
    assert page.evaluate("() => getComputedStyle(document.querySelector('.md-main')).paddingBottom") == "0px"
    watch.check()
    # beside the text on a wide screen it still says the page has no floor
    page, _ = open_page(project_site.url(floorless[0]))
    assert page.locator(".ldr-meter__none").is_visible()
    # a page with floors keeps its bar
    page, _ = open_page(project_site.url(PART0), **PHONE)
    assert page.locator(".ldr-rail").is_visible()


# --- reading flow ---------------------------------------------------------------------------------

def test_each_part_ends_with_a_link_to_the_next(project_site, open_page):
    parts = sorted(p.parent.name for p in project_site.folder.glob("part-*/index.html"))
    assert len(parts) >= 12
    for here, there in zip(parts, parts[1:] + [None]):
        html = (project_site.folder / here / "index.html").read_text(encoding="utf-8")
        links = re.findall(r'<nav class="ldr-next-part"[^>]*>\s*<a href="([^"]+)"', html)
        assert links == ([f"../{there}/"] if there else []), here
    # the link is the end of the chapter, and instant navigation follows it
    page, watch = open_page(project_site.url(PART0))
    last = page.evaluate("() => { const a = document.querySelector('.md-content__inner');"
                         " return Array.from(a.children).filter(e => e.offsetParent).pop().className; }")
    assert "ldr-next-part" in last
    assert page.locator(".ldr-next-part__title").inner_text() == "Part 1: The Tensor"
    page.evaluate("() => { window.__ldrSamePage = true; }")
    page.click(".ldr-next-part a")
    page.wait_for_url("**/part-01-the-tensor/")
    page.wait_for_function("() => document.querySelector('.ldr-next-part__title')"
                           " && document.querySelector('.ldr-next-part__title').textContent === 'Part 2: Autograd'")
    assert page.evaluate("() => window.__ldrSamePage === true"), "navigation was not instant"
    # the swapped page's drawings open full screen too
    page.wait_for_function("() => document.querySelectorAll("
                           "'figure.ldr-figure[data-ldr-ready] button.ldr-figure-open').length"
                           " === document.querySelectorAll('figure.ldr-figure svg.ldr-drawing').length")
    page.locator("#figure-part1-transpose button.ldr-figure-open").click()
    page.locator("dialog.ldr-zoom[open] svg.ldr-drawing").wait_for()
    page.keyboard.press("Escape")
    watch.check()


@pytest.mark.parametrize("scheme, expected", [("dark", "slate"), ("light", "default")])
def test_first_visit_follows_the_system_scheme(project_site, open_page, scheme, expected):
    page, watch = open_page(project_site.url(PART0), scheme=scheme, **PHONE)
    assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == expected
    watch.check()


def test_the_scene_link_says_it_downloads_and_how_to_open_it(project_site, open_page):
    page, watch = open_page(project_site.url(PART0), **PHONE)
    source = page.locator("#figure-floors .ldr-figure-source")
    text = source.inner_text()
    assert "download" in text and ".excalidraw" in text and "excalidraw.com" in text and "Open" in text
    link = source.locator("a.ldr-figure-edit")
    assert link.get_attribute("download") is not None
    assert link.get_attribute("href").endswith("drawings/floors.excalidraw")
    watch.check()  # and the page asked nothing of excalidraw.com
