"""The depth meter marks the floor being read, after scrolling and after instant navigation."""

from __future__ import annotations

import pytest
from browser_support import SCROLL_TO, click_nav, move_and_read

PART0 = "theme-check/part-00-the-map/"
PART1 = "theme-check/part-01-the-tensor/"
CURRENT = "[data-ldr-meter] a[aria-current='location']"


def current_floor(page):
    return page.evaluate(f"() => {{ const a = document.querySelector(\"{CURRENT}\"); "
                         "return a && a.parentElement.getAttribute('data-floor'); }")


def scroll_to(page, heading_id: str):
    page.evaluate("id => document.getElementById(id).scrollIntoView({block: 'start'})", heading_id)


def floor_headings(page):
    return page.evaluate("() => Array.from(document.querySelectorAll('.md-content [data-floor]'))"
                         ".filter(h => /^H[1-6]$/.test(h.tagName)).map(h => [h.id, h.dataset.floor])")


def test_scrolling_marks_each_floor(project_site, open_page):
    page, watch = open_page(project_site.url(PART0))
    headings = floor_headings(page)
    assert [f for _, f in headings] == ["python", "binding", "dispatcher", "runtime", "hardware"]
    for heading_id, floor in headings:
        scroll_to(page, heading_id)
        page.wait_for_function(f"f => {{ const a = document.querySelector(\"{CURRENT}\"); "
                               "return a && a.parentElement.dataset.floor === f; }", arg=floor)
        assert page.locator(CURRENT).count() == 1
    # a subsection without its own floor keeps the section's floor
    scroll_to(page, "keys-and-tables")
    page.wait_for_timeout(150)
    assert current_floor(page) == "dispatcher"
    watch.check()


def test_static_meter_lists_eight_floors_and_links_present_ones(project_site, open_page):
    page, watch = open_page(project_site.url(PART0))
    floors = page.eval_on_selector_all("[data-ldr-meter] li", "els => els.map(e => e.dataset.floor)")
    assert floors == ["python", "binding", "dispatcher", "autograd", "kernel", "memory", "runtime", "hardware"]
    links = page.eval_on_selector_all("[data-ldr-meter] li > a",
                                      "els => els.map(a => [a.parentElement.dataset.floor, a.hash])")
    assert links == [["python", "#where-you-type"], ["binding", "#across-the-boundary"],
                     ["dispatcher", "#the-dispatcher-picks"], ["runtime", "#the-two-clocks"],
                     ["hardware", "#the-chip-underneath"]]
    assert page.get_attribute("[data-ldr-meter]", "aria-labelledby")
    watch.check()


def test_meter_after_instant_navigation(project_site, open_page):
    page, watch = open_page(project_site.url(PART0))
    page.evaluate("() => { window.__ldrSamePage = true; }")
    click_nav(page, PART1)
    page.wait_for_url("**/" + PART1)
    page.wait_for_function("() => document.querySelector('.md-content h2[data-floor=memory]')")
    assert page.evaluate("() => window.__ldrSamePage === true"), "navigation was not instant"
    page.wait_for_function("() => document.querySelector('[data-ldr-meter] li[data-floor=memory] > a')")
    scroll_to(page, "storage-and-bytes")
    page.wait_for_function(f"() => {{ const a = document.querySelector(\"{CURRENT}\"); "
                           "return a && a.parentElement.dataset.floor === 'memory'; }")
    page.click("[data-ldr-meter] li[data-floor=kernel] > a")  # the meter's own link, after the swap
    page.wait_for_function(f"() => {{ const a = document.querySelector(\"{CURRENT}\"); "
                           "return a && a.parentElement.dataset.floor === 'kernel'; }")
    assert page.evaluate("() => location.hash") == "#the-kernel-that-fills-it"
    assert page.evaluate("() => window.__ldrSamePage === true")
    watch.check()


def test_meter_is_keyboard_usable(project_site, open_page):
    page, watch = open_page(project_site.url(PART0))
    page.focus("[data-ldr-meter] li[data-floor=python] > a")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("() => document.activeElement.parentElement.dataset.floor") == "binding"
    page.keyboard.press("End")
    assert page.evaluate("() => document.activeElement.parentElement.dataset.floor") == "hardware"
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => {{ const a = document.querySelector(\"{CURRENT}\"); "
                           "return a && a.parentElement.dataset.floor === 'hardware'; }")
    watch.check()


def test_phone_meter_is_a_compact_bar(project_site, open_page):
    page, watch = open_page(project_site.url(PART0), width=390, height=844)
    box = page.locator(".ldr-rail").bounding_box()
    assert box["width"] == 390 and box["y"] + box["height"] <= 844 + 1 and box["height"] < 80
    scroll_to(page, "the-two-clocks")
    page.wait_for_function("() => document.querySelector('.ldr-meter__now').textContent === 'Device runtime'")
    watch.check()


def test_without_javascript_the_meter_and_marks_are_static(project_site, open_page):
    page, _ = open_page(project_site.url(PART0), javascript=False)
    assert page.locator("[data-ldr-meter] li > a").count() == 5
    assert page.locator(CURRENT).count() == 0
    assert page.locator(".ldr-instrument[data-instrument=toll-meter] circle.ldr-mark").count() == 12
    assert page.locator(".ldr-instrument .ldr-controls:visible").count() == 0


def test_the_real_part_0_marks_its_floors(project_site, open_page):
    """The project's own Part 0, when its chapters build: every floor section it declares is
    marked as the reader reaches it (sections shorter than the reading line excepted)."""
    if not project_site.with_docs:
        pytest.skip("the project's chapters do not build yet")
    page, watch = open_page(project_site.url("part-00-the-map/"))
    headings = floor_headings(page)
    assert headings, "Part 0 declares no floors"
    checked = 0
    for k, (heading_id, floor) in enumerate(headings):
        scroll_to(page, heading_id)
        page.wait_for_timeout(120)
        nxt = headings[k + 1][0] if k + 1 < len(headings) else None
        gap = page.evaluate("ids => ids[1] ? document.getElementById(ids[1]).getBoundingClientRect().top"
                            " - document.getElementById(ids[0]).getBoundingClientRect().top : 1e9", [heading_id, nxt])
        at_bottom = page.evaluate("() => innerHeight + scrollY >= document.documentElement.scrollHeight - 2")
        if gap < 300 or at_bottom:
            continue
        assert current_floor(page) == floor, heading_id
        checked += 1
    assert checked >= len(headings) // 2
    watch.check()


# --- keyboard, touch and a page that keeps still (issue 20) ----------------------------------------

TAB_STOP = """() => { const e = document.activeElement;
  return e && e !== document.body ? {meter: !!e.closest('[data-ldr-meter]'),
    nav: !!e.closest('.md-sidebar, .md-content'), floor: e.parentElement && e.parentElement.dataset.floor} : null; }"""


def test_meter_is_early_in_the_tab_order(project_site, open_page):
    """The meter's links come right after the header's controls: before the site's navigation,
    the contents and the text (its markup comes first; CSS puts it beside the text)."""
    page, watch = open_page(project_site.url(PART0))
    stops = []
    for _ in range(20):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(TAB_STOP))
        if stops[-1] and stops[-1]["meter"]:
            break
    first = next((k for k, stop in enumerate(stops) if stop and stop["meter"]), None)
    assert first is not None and first < 8, f"the meter is not among the first Tab stops: {stops}"
    assert not any(stop and stop["nav"] for stop in stops[:first]), stops
    assert stops[first]["floor"] == "python"
    # and it is still drawn right of the text on a wide screen
    rail, text = (page.locator(sel).bounding_box() for sel in (".ldr-rail", ".md-content"))
    assert rail["x"] >= text["x"] + text["width"] - 1
    watch.check()


@pytest.mark.parametrize("width", [1440, 390])
def test_meter_targets_are_at_least_24_px(project_site, open_page, width):
    page, watch = open_page(project_site.url(PART0), width=width, height=900 if width > 800 else 844)
    boxes = page.eval_on_selector_all("[data-ldr-meter] li > a",
                                      "els => els.map(a => { const r = a.getBoundingClientRect();"
                                      " return [a.parentElement.dataset.floor, r.width, r.height]; })")
    assert len(boxes) == 5
    small = [b for b in boxes if b[1] < 24 or b[2] < 24]
    assert not small, f"meter links under 24 x 24 px at {width} px: {small}"
    watch.check()


SHIFTS = """() => { window.__ldrShifts = [];
  new PerformanceObserver(l => l.getEntries().forEach(e => { if (!e.hadRecentInput) __ldrShifts.push(
    [e.value, (e.sources || []).map(s => s.node ? s.node.nodeName + '.' + s.node.className : '?').join(' ')]); }))
    .observe({type: 'layout-shift'}); }"""


# The meter's column (or the phone's bar), the text column, and the floor the bar names.
SIZES = """() => { const box = s => { const r = document.querySelector(s).getBoundingClientRect();
    return {width: r.width, height: r.height}; };
  return [box('.ldr-rail'), box('.md-content'), document.querySelector('.ldr-meter__now').textContent]; }"""


@pytest.mark.parametrize("width", [1440, 390])
def test_nothing_moves_while_scrolling(project_site, open_page, width):
    """The phone bar keeps one height whatever floor it names (it was 41 px, then 57 px once it
    named one); the meter's column keeps its width beside the text; no layout shift down the page."""
    page, watch = open_page(project_site.url("part-00-the-map/"), width=width, height=900 if width > 800 else 844)
    page.evaluate(SHIFTS)
    height = page.evaluate("() => document.documentElement.scrollHeight - innerHeight")
    seen: dict[tuple, set] = {}
    for y in list(range(0, height, 350)) + [height]:
        rail, text, now = move_and_read(page, SCROLL_TO, y, SIZES)
        seen.setdefault((round(rail["height"], 1), round(rail["width"], 1), round(text["width"], 1)), set()).add(now)
    names = set().union(*seen.values())
    assert len(names) >= 6, names  # the bar named several floors, and none
    assert len(seen) == 1, f"the meter or the text changed size while scrolling: {seen}"
    assert page.evaluate("() => __ldrShifts") == []
    if width < 800:  # the longest name fits the bar whole
        page.evaluate("() => { document.querySelector('.ldr-meter__now').textContent = 'Device runtime'; }")
        assert page.evaluate("() => { const n = document.querySelector('.ldr-meter__now');"
                             " return n.scrollWidth <= n.clientWidth; }")
    watch.check()
