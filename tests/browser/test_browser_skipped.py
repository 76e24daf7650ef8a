"""Runs of blocks skipped off screen (issue 20): past a page's first screens, each run of
top-level blocks between two headings is a ``<div class="ldr-far">`` with ``content-visibility:
auto``, so a phone does no style, layout or paint work for it until the reader comes near;
scrolled to, each is drawn; nothing on the page's first screens is skipped; the headings stay
outside the runs; a run stands in at about its real height while skipped, and once drawn the page
is laid out as it would be without runs; a fragment link lands on its card; and a run with the
focus inside is a plain block again, since a skipped one would hold and clip a quoted value's bar,
fixed at the foot of the screen.

The page is a fixture of its own (fixtures/project-docs/skipped-blocks.md, built with the
project's plugin and records), so no test here depends on what the series' chapters hold.
"""

from __future__ import annotations

import pytest
from browser_support import draw_all, settle

PAGE = "theme-check/skipped-blocks/"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1440, "height": 900}

# Each top-level block of the article: its kind, whether the browser skips it now (its first
# child is not drawn), its computed content-visibility, whether it holds a quoted value or a
# heading, and where it is.
BLOCKS = """() => [...document.querySelectorAll('.md-content .md-typeset > *')].map(e => ({
  kind: e.tagName.toLowerCase() + (e.classList[0] ? '.' + e.classList[0] : ''),
  cv: getComputedStyle(e).contentVisibility,
  skipped: !!e.firstElementChild && !e.firstElementChild.checkVisibility({contentVisibilityAuto: true}),
  value: !!e.querySelector('.ldr-value[data-proof]'),
  heading: !!e.querySelector('h1, h2, h3, h4, h5, h6'),
  holds: [...e.children].map(c => c.tagName.toLowerCase() + (c.classList[0] ? '.' + c.classList[0] : '')),
  top: Math.round(e.getBoundingClientRect().top)}))"""
RUN = "div.ldr-far"


def blocks(page) -> list[dict]:
    return page.evaluate(BLOCKS)


def test_runs_off_screen_are_skipped_and_drawn_when_scrolled_to(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE), **PHONE)
    seen = blocks(page)
    first = next(k for k, b in enumerate(seen) if b["kind"] == RUN)
    # the first screens are never skipped: Chromium finds out what is on screen only after its
    # first frames, and a skipped block there would be blank and too tall until then
    near = seen[:first]
    assert "ul" in {b["kind"] for b in near}
    assert all(b["cv"] == "visible" for b in near), [b for b in near if b["cv"] != "visible"]
    # from there on, everything but the headings is in a run, and no run holds a heading
    rest = seen[first:]
    assert {b["kind"] for b in rest} <= {RUN, "h2"}, {b["kind"] for b in rest}
    assert not any(b["heading"] for b in rest if b["kind"] == RUN)
    held = {kind for b in rest if b["kind"] == RUN for kind in b["holds"]}
    assert {"section.ldr-proof", "figure.ldr-quote", "ol", "ul", "p"} <= held, held
    far = [b for b in rest if b["kind"] == RUN and b["top"] > 2 * PHONE["height"]]
    assert far and any(b["value"] for b in far)  # a run with a value in it is skipped too, until focused
    for b in far:
        assert b["cv"] == "auto" and b["skipped"], b
    # scrolled to, each is drawn (the card's run last: it ends the page)
    for k, b in enumerate(seen):
        if b["kind"] == RUN:
            page.evaluate("k => document.querySelectorAll('.md-content .md-typeset > *')[k]"
                          ".scrollIntoView({block: 'start'})", k)
            page.wait_for_function("k => document.querySelectorAll('.md-content .md-typeset > *')[k]"
                                   ".firstElementChild.checkVisibility({contentVisibilityAuto: true})", arg=k)
    watch.check()


HEIGHTS = """() => [...document.querySelectorAll('.md-content .md-typeset > div.ldr-far')]
  .map(e => Math.round(e.getBoundingClientRect().height))"""
SKIP_ALL = ".md-typeset > div.ldr-far { content-visibility: hidden !important; }"


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_skipped_run_stands_in_at_about_its_height(project_site, open_page, viewport):
    """A run's stand-in (site/farblocks.py, guessed from what it holds) is about as tall as the
    run drawn, on a phone and on a laptop: the page's length, and a position restored on going
    back, are about right before the reader has scrolled through it."""
    page, watch = open_page(project_site.url(PAGE), **viewport)
    style = page.add_style_tag(content=SKIP_ALL)  # every run at its stand-in height
    standing = page.evaluate(HEIGHTS)
    style.evaluate("s => s.remove()")
    draw_all(page)
    drawn = page.evaluate(HEIGHTS)
    assert len(standing) == len(drawn) >= 2
    for guess, real in zip(standing, drawn):
        assert 0.6 * real <= guess <= 1.6 * real, (standing, drawn)
    assert abs(sum(standing) - sum(drawn)) <= 0.25 * sum(drawn), (standing, drawn)
    watch.check()


LAID_OUT = """() => [...document.querySelectorAll(
  '.md-content .md-typeset h2, .md-content .md-typeset > div.ldr-far > *')]
  .map(e => [e.tagName, Math.round(e.getBoundingClientRect().top + scrollY)])"""


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_drawn_runs_lay_out_the_page_as_without_them(project_site, open_page, viewport):
    """A drawn run lays its blocks out where they would be without it: a run lays out on its own
    (content-visibility keeps its children's margins from joining the headings'), so its first
    and last blocks leave the spacing to the blocks around. Compared with each run taken out of
    the layout (display: contents), every heading and every block is where it was."""
    page, watch = open_page(project_site.url(PAGE), **viewport)
    # each run drawn as the reader would find it (scrolled to, contained, still content-visibility:
    # auto): its real height is kept from then on (the stand-in's `auto`)
    count = page.locator(".md-content .md-typeset > div.ldr-far").count()
    for k in range(count):
        page.evaluate("k => document.querySelectorAll('.md-content .md-typeset > div.ldr-far')[k]"
                      ".scrollIntoView({block: 'start'})", k)
        page.wait_for_function("k => document.querySelectorAll('.md-content .md-typeset > div.ldr-far')[k]"
                               ".firstElementChild.checkVisibility({contentVisibilityAuto: true})", arg=k)
    page.evaluate("() => scrollTo(0, 0)")
    settle(page)
    assert page.evaluate("() => getComputedStyle(document.querySelector('div.ldr-far')).contentVisibility") == "auto"
    with_runs = page.evaluate(LAID_OUT)
    page.add_style_tag(content=".md-typeset > div.ldr-far { display: contents !important; }")
    settle(page)
    assert page.evaluate(LAID_OUT) == with_runs
    watch.check()


def test_a_focused_value_in_a_skippable_run_shows_its_bar(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE), **PHONE)
    holders = [b for b in blocks(page) if b["value"]]
    assert holders and all(b["kind"] == RUN for b in holders), holders
    value = page.locator(".md-typeset > div.ldr-far ol .ldr-value[data-proof]").first
    value.evaluate("v => v.closest('ol').scrollIntoView({block: 'start'})")
    settle(page)  # the run is drawn
    foot = {"x": 0, "y": PHONE["height"] - 90, "width": PHONE["width"], "height": 90}
    before = page.screenshot(clip=foot)
    value.focus()
    page.wait_for_function("() => document.activeElement.classList.contains('ldr-value')")
    # the bar is the value's title, at the foot of the screen: a skipped run would have clipped it
    # to itself, and the foot would look the same
    assert page.screenshot(clip=foot) != before, "the focused value's bar does not show at the foot of the screen"
    bar = page.evaluate("() => getComputedStyle(document.activeElement, '::after').position")
    assert bar == "fixed"
    run = "v => getComputedStyle(v.closest('div.ldr-far')).contentVisibility"
    assert value.evaluate(run) == "visible"
    page.evaluate("() => document.activeElement.blur()")
    assert value.evaluate(run) == "auto"
    watch.check()


def test_a_fragment_link_lands_on_a_card_past_skipped_blocks(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE) + "#proof-where_code_lives", **PHONE)
    # the blocks near the card are drawn and scroll anchoring keeps the card in place: waited for
    # as a state of the page, not a span of time (wait_for_function's timeout fails it otherwise)
    page.wait_for_function("h => { const t = document.getElementById('proof-where_code_lives')"
                           ".getBoundingClientRect().top; return t >= 0 && t < h / 2; }", arg=PHONE["height"])
    assert page.evaluate("() => scrollY") > 4 * PHONE["height"]
    watch.check()
