"""Reading and operating the series' elements: the copy button never covers an excerpt's first
line, dragging across an instrument selects no text, and every number follows one rule
(build_hooks/render/numbers.py, mirrored by ldr.fmt/ldr.count in ldr-common.js)."""

from __future__ import annotations

import re

import pytest
from browser_support import draw_all, mount_code

from build_hooks.render.numbers import count, sig

PAGES = ["part-00-the-map/", "part-01-the-tensor/", "part-02-autograd/"]
INSTRUMENT_PAGES = {"part-00-the-map/": 4, "theme-check/part-01-instruments/": 2, "part-02-autograd/": 2}

FIRST_LINES = """() => Array.from(document.querySelectorAll('.ldr-excerpt pre, .ldr-proof__output')).map(pre => {
  const code = pre.querySelector('code'), button = pre.querySelector('.md-code__nav, .md-clipboard');
  if (!code || !button || !code.firstChild) return null;
  const text = code.firstChild, range = document.createRange();
  const end = text.textContent.indexOf('\\n');
  range.setStart(text, 0);
  range.setEnd(text, end < 0 ? text.textContent.length : end);
  const line = range.getClientRects()[0], b = button.getBoundingClientRect();
  return {proof: pre.closest('[data-proof]') && pre.closest('[data-proof]').dataset.proof,
          line: [line.left, line.top, line.right, line.bottom], button: [b.left, b.top, b.right, b.bottom]};
})"""


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width", [1440, 390])
def test_copy_button_never_covers_the_first_line_of_an_excerpt(project_site, open_page, width):
    for path in PAGES:
        page, watch = open_page(project_site.url(path), width=width)
        mount_code(page)
        blocks = page.evaluate(FIRST_LINES)
        assert len(blocks) >= 5 and None not in blocks, (path, blocks)  # every excerpt has its button
        covered = [b for b in blocks if overlaps(b["line"], b["button"])]
        assert not covered, (path, width, covered)
        watch.check()
        page.context.close()


def drag_across(page, locator) -> str:
    """Press at the element's top left corner, drag to its bottom right, release: the selected text."""
    # at once, not smoothly (mkdocs-material scrolls smoothly): the box must stay where it was measured
    locator.evaluate("e => e.scrollIntoView({block: 'center', behavior: 'instant'})")
    page.evaluate("() => window.getSelection().removeAllRanges()")
    box = locator.bounding_box()
    # corner to corner: the drag crosses every row of text the element draws
    page.mouse.move(box["x"] + 3, box["y"] + 3)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 3, box["y"] + box["height"] - 3, steps=12)
    page.mouse.up()
    return page.evaluate("() => String(window.getSelection())")


def test_dragging_across_an_instrument_selects_no_text(project_site, open_page):
    for path, expected in INSTRUMENT_PAGES.items():
        page, watch = open_page(project_site.url(path))
        page.wait_for_function("n => document.querySelectorAll('.ldr-instrument[data-ldr-ready]').length === n",
                               arg=expected)
        parts = page.locator(".ldr-instrument .ldr-figure, .ldr-instrument .ldr-strides, "
                             ".ldr-instrument .ldr-promo__scroll, .ldr-instrument .ldr-controls")
        assert parts.count() >= expected
        for i in range(parts.count()):
            assert drag_across(page, parts.nth(i)) == "", (path, i)
        # the same drag does select text where text is for quoting: the lead, and the prose
        assert drag_across(page, page.locator(".ldr-instrument .ldr-instrument__lead").first) != ""
        assert drag_across(page, page.locator(".md-content article > p").first) != ""
        watch.check()
        page.context.close()


VALUES = [0, 1, 1.2122, 9.996, 30.3483, 999.6, 1779.53, 10000, 824943.2, 0.0123456, -1234.5, 1.005, 2.5, 1e6 / 1.2122]


def test_live_readouts_format_numbers_as_the_build_does(project_site, open_page):
    page, watch = open_page(project_site.url("part-00-the-map/"))
    page.wait_for_function("() => window.ldr && document.querySelector('.ldr-instrument[data-ldr-ready]')")
    assert page.evaluate("vs => vs.map(v => ldr.fmt(v))", VALUES) == [sig(v) for v in VALUES]
    counts = [(1, "element"), (2, "element"), (1024, "tensor"), (0, "file")]
    assert page.evaluate("cs => cs.map(([n, w]) => ldr.count(n, w))", counts) == [count(n, w) for n, w in counts]
    # ldr-common.js rounds and groups by hand (Intl cost a phone 60-80 ms): the browser's own
    # toLocaleString, which the build's rule follows, agrees on 30,000 numbers of every size
    assert page.evaluate(AGAINST_INTL) == []
    watch.check()


AGAINST_INTL = r"""() => {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const fixed = (v, d) => v.toLocaleString("en-US", {minimumFractionDigits: d, maximumFractionDigits: d});
  const sig = (v, n) => {
    if (v === 0 || !isFinite(v)) return v === 0 ? "0" : String(v);
    const d = Math.max(0, n - 1 - Math.floor(Math.log10(Math.abs(v))));
    const t = fixed(v, d);
    return d > 0 && t.replace(/[,.\-]/g, "").replace(/^0+/, "").length > n ? fixed(v, d - 1) : t;
  };
  const wrong = [];
  for (let i = 0; i < 30000; i++) {
    let v = (next() - 0.3) * Math.pow(10, Math.floor(next() * 30) - 12);
    if (i % 3 === 0) v = Math.round(v * 1000) / 1000;
    if (i % 7 === 0) v = Math.round(v);
    for (const n of [1, 2, 3]) if (ldr.fmt(v, n) !== sig(v, n)) wrong.push(["fmt", v, n, ldr.fmt(v, n)]);
    if (Math.abs(v) < 1e15 && ldr.group(v) !== v.toLocaleString("en-US", {maximumFractionDigits: 20}))
      wrong.push(["group", v, ldr.group(v)]);
  }
  return wrong.slice(0, 10);
}"""


UNGROUPED = re.compile(r"(?<![\w.,/\-])\d{4,}(?:\.\d+)?(?![\w/\-])")
WRONG_PLURAL = re.compile(r"(?<![\d.,])1 (elements|tensors|files|bytes|operations|nodes|records|steps|cells)\b")


def instrument_texts(page) -> list[str]:
    """Every text an instrument shows or names: drawings, tooltips, readouts, leads, labels."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.ldr-instrument')).flatMap(root => {
      const out = [];
      root.querySelectorAll('text, title, output, p:not(.ldr-provenance), td, dd, button, li')
        .forEach(e => out.push(e.textContent));
      root.querySelectorAll('[aria-label], [aria-valuetext]').forEach(e =>
        out.push(e.getAttribute('aria-label') || '', e.getAttribute('aria-valuetext') || ''));
      return out;
    })""")


def test_instruments_group_thousands_and_count_in_the_singular(project_site, open_page):
    for path, expected in INSTRUMENT_PAGES.items():
        page, watch = open_page(project_site.url(path))
        page.wait_for_function("n => document.querySelectorAll('.ldr-instrument[data-ldr-ready]').length === n",
                               arg=expected)
        texts = instrument_texts(page)
        # step the toll meter to its largest size, where the readout reaches the thousands
        slider = page.locator(".ldr-instrument[data-instrument='toll-meter'] input[type=range]")
        if slider.count():
            slider.focus()
            page.keyboard.press("End")
            texts += instrument_texts(page)
            page.keyboard.press("Home")
            texts += instrument_texts(page)
        assert len(texts) > 50
        ungrouped = [UNGROUPED.search(t)[0] for t in texts if UNGROUPED.search(t)]
        assert not ungrouped, ungrouped
        assert not [t for t in texts if WRONG_PLURAL.search(t)], [t for t in texts if WRONG_PLURAL.search(t)]
        watch.check()
        page.context.close()


def test_tooltips_and_labels_say_one_element(project_site, open_page):
    page, watch = open_page(project_site.url("part-00-the-map/"))
    page.wait_for_function("() => document.querySelector("
                           "'.ldr-instrument[data-instrument=toll-meter][data-ldr-ready]')")
    base = ".ldr-instrument[data-instrument='toll-meter']"
    first = page.text_content(f"{base} circle.ldr-mark[data-i='0'] title")
    assert first.startswith("1 element: ") and first.endswith(" µs")
    slider = page.locator(f"{base} input[type=range]")
    slider.focus()
    page.keyboard.press("Home")
    assert slider.get_attribute("aria-valuetext").startswith("1 element: ")
    page.keyboard.press("ArrowRight")
    assert slider.get_attribute("aria-valuetext").startswith("4 elements: ")
    watch.check()


# --- nothing hidden, everything reachable (issue 20) ----------------------------------------------

UNDERLINED = """() => Array.from(document.querySelectorAll('.md-content a')).filter(a =>
  a.textContent.includes('_') && a.getClientRects().length
  && getComputedStyle(a).textDecorationLine.includes('underline')).map(a => {
    const s = getComputedStyle(a), offset = parseFloat(s.textUnderlineOffset) / parseFloat(s.fontSize);
    return {text: a.textContent.trim().slice(0, 40), offset: offset};
  })"""


def test_no_underline_hides_an_underscore(project_site, open_page):
    """A link's underline sits below the descenders, where an underscore's stroke is not: nearer,
    `native_functions.yaml` read "native functions.yaml" and a claim's "proof view_or_copy" read
    "proof view or copy" (at 1x, in code and in plain text alike)."""
    seen = 0
    for path in PAGES:
        page, watch = open_page(project_site.url(path))
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        links = page.evaluate(UNDERLINED)
        near = [link for link in links if link["offset"] < 0.3]
        assert not near, (path, near[:5])
        seen += len(links)
        watch.check()
        page.context.close()
    assert seen >= 20  # plain-text names (claims, downloads) and code names (captions) both

HIDDEN = """() => Array.from(document.querySelectorAll('.ldr-excerpt pre > code')).map(code => ({
  proof: code.closest('[data-proof]') ? code.closest('[data-proof]').dataset.proof : '?',
  hidden: Math.max(0, code.scrollWidth - code.clientWidth), width: code.scrollWidth}))"""

SCROLLERS = """() => Array.from(document.querySelectorAll('.md-content *')).filter(e => {
  if (e.closest('details:not([open])')) return false;  // not shown, nothing to reach
  const s = getComputedStyle(e);
  return (/auto|scroll/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1)
      || (/auto|scroll/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1);
}).map(e => ({box: e.nodeName + '.' + String(e.className).slice(0, 60), focusable: e.tabIndex >= 0}))"""


def test_excerpts_hide_no_text_on_a_phone(project_site, open_page):
    """An output excerpt wraps its long lines at 390 px instead of scrolling 11-42% of them out of
    sight."""
    checked = 0
    for path in PAGES:
        page, watch = open_page(project_site.url(path), width=390, height=844)
        draw_all(page)
        found = page.evaluate(HIDDEN)
        checked += len(found)
        hidden = [f for f in found if f["hidden"] > 1]
        assert not hidden, (path, hidden)
        watch.check()
        page.context.close()
    assert checked >= 15


def test_a_scroll_box_added_after_the_page_is_shown_takes_the_keyboard(project_site, open_page):
    """mkdocs-material wraps a table when it gets to it, on a busy machine after our script's
    turn: a wide box that arrives then, and nothing else happening, still gets its tab stop."""
    page, watch = open_page(project_site.url(PAGES[0]), width=390, height=844)
    page.evaluate("""() => {
      const wrap = document.createElement('div');
      wrap.className = 'md-typeset__scrollwrap';
      wrap.id = 'late-box';
      wrap.innerHTML = '<div class="md-typeset__table"><table><tr><td style="white-space:nowrap">'
        + 'x'.repeat(400) + '</td></tr></table></div>';
      document.querySelector('.md-content article').appendChild(wrap);
    }""")
    page.wait_for_function("() => document.getElementById('late-box').tabIndex === 0", timeout=5000)
    watch.check()


@pytest.mark.parametrize("width", [1440, 390])
def test_every_scroll_box_takes_the_keyboard(project_site, open_page, width):
    """A box that scrolls (code, a wide table, an instrument's grid) can be focused and scrolled
    from the keyboard: tabindex="0" where it scrolls, and a visible ring on focus."""
    seen = 0
    for path in [*PAGES, "theme-check/part-01-instruments/"]:
        page, watch = open_page(project_site.url(path), width=width, height=900 if width > 800 else 844)
        draw_all(page)
        page.wait_for_timeout(300)  # mkdocs-material marks its code blocks after a frame
        boxes = page.evaluate(SCROLLERS)
        # and those inside folded details (an instrument's table), once opened
        page.evaluate("() => document.querySelectorAll('.md-content details').forEach(d => { d.open = true; })")
        page.wait_for_timeout(300)
        boxes += page.evaluate(SCROLLERS)
        seen += len(boxes)
        unreachable = [b for b in boxes if not b["focusable"]]
        assert not unreachable, (path, width, unreachable)
        watch.check()
        page.context.close()
    assert seen >= 3, "no scroll box found: the check looked at nothing"


# Every control of ours a finger or pointer aims at: claim marks, the folded lists of the
# corrections and the drift report, instruments' sliders, selects and buttons, a figure's tools.
CONTROLS = """() => Array.from(document.querySelectorAll(
  '.md-content :is(summary, input, select, button, [role=button], .ldr-figure-tools a)')).filter(e => {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'
      && !e.closest('details:not([open]) > :not(summary)');
  }).map(e => { const r = (e.closest('label') || e).getBoundingClientRect();  // a label takes its input's clicks
    const named = e.className ? e : e.parentElement;  // a summary by its details' class
    return {what: e.tagName + '.' + String(named.className.baseVal ?? named.className).split(' ')[0],
            w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10}; })"""


@pytest.mark.parametrize("width", [390, 1440])
def test_every_control_is_at_least_24_px_square(project_site, open_page, width):
    """WCAG 2.5.8's 24 x 24 CSS px for every control the series adds (a claim's "checked" mark
    sits inline at the end of its paragraph; its box reaches 24 px without moving a line)."""
    kinds = set()
    for path in PAGES + ["drift/2.13.0-to-2.14.1/"]:
        page, watch = open_page(project_site.url(path), width=width)
        draw_all(page)
        controls = page.evaluate(CONTROLS)
        small = [c for c in controls if c["w"] < 24 or c["h"] < 24]
        assert not small, (path, width, sorted({(c["what"], c["w"], c["h"]) for c in small}))
        kinds |= {c["what"] for c in controls}
        watch.check()
        page.context.close()
    assert {"SUMMARY.ldr-claim", "INPUT.ldr-slider", "BUTTON.ldr-figure-open"} <= kinds, kinds
