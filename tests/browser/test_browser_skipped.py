"""Blocks skipped off screen (issue 20): the page's long blocks (proof cards, source quotes,
instruments, corrections, lists and block quotes) carry ``content-visibility: auto``, so a phone
does no style, layout or paint work for them until the reader comes near; scrolled to, each is
drawn; none is skipped on the page's first screens (above the block the Markdown extension marks
data-ldr-far); a fragment link lands on its card; and a block with the focus inside is a plain
block again, since a skipped block would hold and clip a quoted value's bar, fixed at the foot of
the screen.

The page is a fixture of its own (fixtures/project-docs/skipped-blocks.md, built with the
project's plugin and records), so no test here depends on what the series' chapters hold.
"""

from __future__ import annotations

from browser_support import settle

PAGE = "theme-check/skipped-blocks/"
PHONE = {"width": 390, "height": 844}

# Each top-level block of the article: its kind, whether the browser skips it now (its first
# child is not drawn), its computed content-visibility, and whether it holds a quoted value.
BLOCKS = """() => [...document.querySelectorAll('.md-content .md-typeset > *')].map(e => ({
  kind: e.tagName.toLowerCase() + (e.classList[0] ? '.' + e.classList[0] : ''),
  cv: getComputedStyle(e).contentVisibility,
  skipped: !!e.firstElementChild && !e.firstElementChild.checkVisibility({contentVisibilityAuto: true}),
  value: !!e.querySelector('.ldr-value[data-proof]'),
  far: e.hasAttribute('data-ldr-far'),
  top: Math.round(e.getBoundingClientRect().top)}))"""

SKIPPABLE = {"section.ldr-proof", "figure.ldr-quote", "ul", "ol"}


def blocks(page) -> list[dict]:
    return page.evaluate(BLOCKS)


def test_blocks_off_screen_are_skipped_and_drawn_when_scrolled_to(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE), **PHONE)
    seen = blocks(page)
    # the first screens are never skipped: Chromium finds out what is on screen only after its
    # first frames, and a skipped block there would be blank and too tall until then
    near = seen[:next(k for k, b in enumerate(seen) if b["far"])]
    assert "ul" in {b["kind"] for b in near}
    assert all(b["cv"] == "visible" for b in near), [b for b in near if b["cv"] != "visible"]
    far = [b for b in seen if b["top"] > 2 * PHONE["height"]]
    assert SKIPPABLE <= {b["kind"] for b in far}, sorted({b["kind"] for b in far})
    assert any(b["value"] for b in far)  # a list with a value in it is skipped too, until focused
    for b in far:
        if b["kind"] in SKIPPABLE:
            assert b["cv"] == "auto" and b["skipped"], b
    # scrolled to, each is drawn (the card last: it ends the page)
    for k, b in enumerate(seen):
        if b["kind"] in SKIPPABLE:
            page.evaluate("k => document.querySelectorAll('.md-content .md-typeset > *')[k]"
                          ".scrollIntoView({block: 'center'})", k)
            page.wait_for_function("k => document.querySelectorAll('.md-content .md-typeset > *')[k]"
                                   ".firstElementChild.checkVisibility({contentVisibilityAuto: true})", arg=k)
    watch.check()


def test_a_focused_value_in_a_skippable_block_shows_its_bar(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE), **PHONE)
    holders = [b for b in blocks(page) if b["value"]]
    assert holders and all(b["kind"] == "ol" for b in holders), holders
    value = page.locator(".md-typeset > ol .ldr-value[data-proof]").first
    value.evaluate("v => v.closest('ol').scrollIntoView({block: 'start'})")
    settle(page)  # the list is drawn
    foot = {"x": 0, "y": PHONE["height"] - 90, "width": PHONE["width"], "height": 90}
    before = page.screenshot(clip=foot)
    value.focus()
    page.wait_for_function("() => document.activeElement.classList.contains('ldr-value')")
    # the bar is the value's title, at the foot of the screen: a skipped list would have clipped it
    # to itself, near the top of the screen, and the foot would look the same
    assert page.screenshot(clip=foot) != before, "the focused value's bar does not show at the foot of the screen"
    bar = page.evaluate("() => getComputedStyle(document.activeElement, '::after').position")
    assert bar == "fixed"
    assert value.evaluate("v => getComputedStyle(v.closest('ol')).contentVisibility") == "visible"
    page.evaluate("() => document.activeElement.blur()")
    assert value.evaluate("v => getComputedStyle(v.closest('ol')).contentVisibility") == "auto"
    watch.check()


def test_a_fragment_link_lands_on_a_card_past_skipped_blocks(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE) + "#proof-where_code_lives", **PHONE)
    # the blocks near the card are drawn and scroll anchoring keeps the card in place: waited for
    # as a state of the page, not a span of time (wait_for_function's timeout fails it otherwise)
    page.wait_for_function("h => { const t = document.getElementById('proof-where_code_lives')"
                           ".getBoundingClientRect().top; return t >= 0 && t < h / 2; }", arg=PHONE["height"])
    assert page.evaluate("() => scrollY") > 4 * PHONE["height"]
    watch.check()
