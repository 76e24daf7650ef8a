"""How tall a run of a page's far blocks will be, guessed from its HTML (issue 20).

Past a page's first screens, the Markdown extension (hosts/markdown/extension.py) puts each run
of top-level blocks between two headings in a ``<div class="ldr-far">``, which the browser skips
while it is off screen (``content-visibility: auto``): on a phone, most of a long page then costs
no style or layout work as it loads. A skipped run is as tall as its stand-in
(``contain-intrinsic-block-size``) until it is drawn, and the page's length, its scroll bar and a
position restored on going back are only as right as those stand-ins. This module guesses a run's
height on a phone and on a laptop from what its HTML holds: characters of visible text, lines of
code, blocks, and the drawings' sizes.

The factors were fitted by least squares to the real heights of the 50 runs of Parts 0-2,
measured in Chromium at 390 px (a 358 px column) and 1440 px (672 px): the median error was 4%
on the phone and 6% on the laptop, and the pages' total lengths came within 1%.
"""

from __future__ import annotations

import html as htmllib
import re
from typing import NamedTuple

from build_hooks.site.defer import element_end

CLASS = "ldr-far"
"""The class of the ``<div>`` around each run (prose of the author's, not an element of ours)."""

# (pixels per character of text, per line of code, per block; the column's width in pixels)
PHONE = (0.615, 35.9, 36.5, 358)
WIDE = (0.385, 19.4, 23.9, 672)

# An element up to its first closing tag. "[^<]*(?:<(?!/tag)[^<]*)*" says what ".*?" would, but
# takes a run of text at a time instead of trying the end at every character (a third of the
# time on the series' pages, whose drawings are long runs of SVG).
_HIDDEN = re.compile(r"<(script|style|template)\b[^<]*(?:<(?!/\1\s*>)[^<]*)*</\1\s*>", re.I)
_CLOSED = re.compile(r"<details\b(?![^>]*\bopen\b)[^>]*>", re.I)
_SUMMARY = re.compile(r"<summary\b[^<]*(?:<(?!/summary\s*>)[^<]*)*</summary\s*>", re.I)
_PRE = re.compile(r"<pre\b[^<]*(?:<(?!/pre\s*>)[^<]*)*</pre\s*>", re.I)
_ART = re.compile(r"<(?:svg|img)\b([^>]*)>", re.I)
_SVG = re.compile(r"<svg\b[^<]*(?:<(?!/svg\s*>)[^<]*)*</svg\s*>", re.I)
_BLOCK = re.compile(r'<(?:p|li|figure|section|aside|table|tr|details|div class="ldr-instrument)\b', re.I)
_TAG = re.compile(r"<[^>]+>")
_WIDTH = re.compile(r'\bwidth="([\d.]+)"')
_HEIGHT = re.compile(r'\bheight="([\d.]+)"')


class Measure(NamedTuple):
    """What a run of blocks holds that its height follows."""
    chars: int
    """Characters of text a reader sees (a closed ``<details>`` shows its summary alone)."""
    code: int
    """Lines of ``<pre>`` blocks."""
    blocks: int
    """Paragraphs, list items, figures, sections, table rows and the like (their margins)."""
    art: tuple[tuple[float, float], ...]
    """Each drawing's or image's drawn width and height, in CSS pixels."""


def _closed_details_out(html: str) -> str:
    """``html`` with each closed ``<details>`` cut down to its ``<summary>``."""
    kept, pos = [], 0
    while (m := _CLOSED.search(html, pos)) is not None:
        kept.append(html[pos:m.start()])
        end = element_end(html, m.start(), "details")
        if end is None:  # not closed: nothing after it shows
            return "".join(kept)
        summary = _SUMMARY.search(html, m.start(), end)
        kept.append(summary.group(0) if summary else "")
        pos = end
    kept.append(html[pos:])
    return "".join(kept)


def measure(html: str) -> Measure:
    """What the blocks in ``html`` hold, as :class:`Measure` counts it."""
    html = _closed_details_out(_HIDDEN.sub("", html))
    code = 0
    for m in _PRE.finditer(html):
        code += _TAG.sub("", m.group(0)).strip("\n").count("\n") + 1
    html = _PRE.sub("", html)
    art = []
    for m in _ART.finditer(html):
        w, h = _WIDTH.search(m.group(1)), _HEIGHT.search(m.group(1))
        if w and h and float(w.group(1)) > 0:
            art.append((float(w.group(1)), float(h.group(1))))
    html = _SVG.sub("", html)
    words = htmllib.unescape(_TAG.sub(" ", html)).split()
    return Measure(sum(map(len, words)) + len(words), code, len(_BLOCK.findall(html)), tuple(art))


def height(m: Measure, fit: tuple[float, float, float, int]) -> int:
    """The guessed height in CSS pixels of what ``m`` counts, in a column ``fit`` describes."""
    per_char, per_line, per_block, column = fit
    drawn = sum(min(column, w) * h / w for w, h in m.art)
    return round(per_char * m.chars + per_line * m.code + per_block * m.blocks + drawn)


def rounded(px: int) -> int:
    """``px`` to two significant digits (a few per cent, under the guess's own error): fewer
    distinct digits in the page, which compresses better."""
    return px if px < 100 else round(px, 2 - len(str(px)))


def stand_in(html: str) -> str:
    """The ``style`` of a run of blocks: its guessed heights in CSS pixels, as the custom
    properties that the stylesheet's stand-in reads (``--ldr-far-p`` on a phone's column,
    ``--ldr-far-w`` on a wider one)."""
    m = measure(html)
    return f"--ldr-far-p:{rounded(height(m, PHONE))};--ldr-far-w:{rounded(height(m, WIDE))}"
