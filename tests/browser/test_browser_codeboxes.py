"""Our code boxes (a source quote, an excerpt, a card's output) at 1440 and 390 px: their text
starts on the box's first row (no blank row kept for the copy button), wraps instead of scrolling
sideways, and is never under the copy button."""

from __future__ import annotations

import pytest
from browser_support import draw_all, mount_code

PART0 = "part-00-the-map/"
BOXES = """() => {
  const out = [];
  const sel = '.ldr-quote pre > code, .ldr-excerpt pre > code, .ldr-proof__output > code';
  for (const code of document.querySelectorAll('.md-content ' + sel)) {
    if (!code.offsetParent) continue;  // folded away
    const box = code.getBoundingClientRect(), style = getComputedStyle(code);
    const nav = code.parentElement.querySelector('.md-code__nav');
    const button = nav ? nav.getBoundingClientRect() : null;
    const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let firstTop = null, covered = 0;
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      for (let i = 0; i < t.data.length; i++) {
        if (/\\s/.test(t.data[i])) continue;
        const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + 1);
        const rect = r.getBoundingClientRect();
        if (rect.width < 1) continue;
        if (firstTop === null) firstTop = rect.top;
        if (button && rect.right > button.left && rect.left < button.right
            && rect.bottom > button.top && rect.top < button.bottom) covered++;
      }
    }
    out.push({kind: code.closest('.ldr-quote') ? 'quote' : code.closest('.ldr-excerpt') ? 'excerpt' : 'output',
              sideways: code.scrollWidth - code.clientWidth, button: !!button, covered,
              firstRow: firstTop === null ? 0 : firstTop - box.top, font: parseFloat(style.fontSize)});
  }
  return out;
}"""


@pytest.mark.parametrize("width,height", [(1440, 900), (390, 844)])
def test_code_boxes_start_at_the_top_wrap_and_keep_text_clear_of_the_copy_button(project_site, open_page,
                                                                                  width, height):
    page, watch = open_page(project_site.url(PART0), width=width, height=height)
    mount_code(page)
    draw_all(page)
    boxes = page.evaluate(BOXES)
    kinds = {b["kind"] for b in boxes}
    assert {"quote", "excerpt", "output"} <= kinds, kinds
    for box in boxes:
        assert box["button"], box  # each has its copy button
        assert box["covered"] == 0, box  # and no character under it
        assert box["sideways"] <= 1, box  # nothing scrolled out of sight
        assert box["firstRow"] < 2 * box["font"], box  # the text starts on the first row
    watch.check()


def test_code_boxes_that_never_scroll_take_no_tab_stop(project_site, open_page):
    # a box that wraps never scrolls sideways, so it is no tab stop. A quote's code carried
    # tabindex="0" in its markup; mkdocs-material takes it away once it has measured the box (it
    # gives one only while a box scrolls), so a reader who tabbed onto it before then lost the
    # focus to the page's body. The markup, before any script, has none.
    page, watch = open_page(project_site.url(PART0), javascript=False)
    stops = page.evaluate("""() => [...document.querySelectorAll('.md-content :is(.ldr-quote pre > code,'
      + ' .ldr-excerpt pre > code, .ldr-proof__output > code)')].map(c => c.hasAttribute('tabindex'))""")
    assert len(stops) >= 10 and not any(stops), stops
    watch.check()
