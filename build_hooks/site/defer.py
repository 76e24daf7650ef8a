"""Keep bulky, unsearchable markup out of other plugins' way.

Inline SVG (figures, instrument fallbacks) and the instruments' widgets make a chapter's HTML
several times larger, and the search plugin would parse and index every path and token of it.
After rendering, such blocks are swapped for placeholders; the placeholders are swapped back
into the final page. So is the chrome that every card or figure repeats word for word (the
card's "Proof" label, source link, provenance and run lines, a figure's zoom hint and download
line), which would make every page a hit for "download" or "source". Captions, alt text and
card text (title, purpose) stay searchable; a card's whole output does not (the excerpts the
text quotes from it do). (A card's source is a page of its own,
site/sourcepage.py: no page carries it.) So does a claim's statement, while what it checked (the
expression, the values, the torch: the same words on every claim) and a source quote's lines (the
pinned torch's code; its caption stays) are left out of the index, which every reader downloads,
and so are the drift report's tables of values, output diffs and claim lists (its prose and
headings stay) and the proofs index's lists of records and of what each page quotes (each proof's
title and the pages that quote it stay). An instrument is all widget markup and embedded data; its
title is not worth a search hit either.

What stays searchable of ours goes to the search plugin as text (:func:`as_text`, below), and
:func:`restore` puts both back when the page is written.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

START = re.compile(r'<svg\b|<div class="ldr-instrument"|<p class="ldr-proof__(?:provenance|run|label|source)">'
                   r'|<span class="ldr-figure-(?:hint|source)"|<p class="ldr-claim__check">'
                   r'|<code class="ldr-claim__values">|<pre class="ldr-quote__code">'
                   r'|<(?:table class="ldr-drift__values|pre class="ldr-drift__output|ul class="ldr-drift__claims)"'
                   r'|<(?:ul class="ldr-index__records|details class="ldr-index__quoted)"'
                   r'|<pre class="ldr-proof__output">')
TAG = re.compile(r"<(\w+)")
TOKEN = "<!--ldr-deferred-{}-->"


@functools.cache
def _tags(name: str) -> re.Pattern:
    return re.compile(rf"<{name}\b|</{name}>")


def element_end(html: str, start: int, name: str) -> int | None:
    """Where the element opened at ``start`` ends (nested elements of its tag are counted);
    None when it is not closed."""
    depth = 0
    for tag in _tags(name).finditer(html, start):
        depth += -1 if tag.group(0).startswith("</") else 1
        if depth == 0:
            return tag.end()
    return None


def split(html: str, min_size: int = 1024) -> list[str]:
    """``[text, block, text, block, ..., text]``: the bulky blocks at odd places, to be swapped
    for placeholders (:func:`join`)."""
    parts: list[str] = []
    text: list[str] = []  # what stays, since the last block
    pos = 0
    while True:
        match = START.search(html, pos)
        if match is None:
            break
        start, opening = match.start(), match.group(0)
        end = element_end(html, start, TAG.match(opening).group(1))  # type: ignore[union-attr]
        if end is None:  # unbalanced: leave the rest alone
            break
        block = html[start:end]
        if len(block) >= min_size or not opening.startswith("<svg"):
            text.append(html[pos:start])
            parts += ["".join(text), block]
            text = []
        else:
            text.append(html[pos:end])
        pos = end
    text.append(html[pos:])
    parts.append("".join(text))
    return parts


def join(parts: Sequence[str], stash: dict[str, str]) -> str:
    """The text of :func:`split` with each block swapped for a new placeholder in ``stash``."""
    out = [parts[0]]
    for index in range(1, len(parts), 2):
        token = TOKEN.format(len(stash))
        stash[token] = parts[index]
        out.append(token)
        out.append(parts[index + 1])  # split() ends with text: the list has odd length
    return "".join(out)


def defer(html: str, min_size: int = 1024, stash: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """Swap bulky blocks for placeholders, adding them to ``stash`` (tokens stay unique)."""
    stash = {} if stash is None else stash
    return join(split(html, min_size), stash), stash


TOKENS = re.compile(r"<!--ldr-deferred-\d+-->")

# -- what the search plugin reads of the rest: text ------------------------------------------------
# The markup that stays searchable (a card's title and purpose, captions, a claim's statement,
# excerpts, values, the corrections note) is still most of the tags on a page of ours, and the
# search plugin's HTML parser pays for every tag and attribute, though it keeps the text. So each
# element of ours that holds none of those below goes to the search plugin as its text alone, between two
# markers, and comes back whole when the page is written: 15,159 tags of a 12-chapter site's
# pages became 5,719 (plain mkdocs-material's pages: 5,432), and the search plugin's time 124 ms
# became 46 ms. A heading stays markup: the search plugin starts a section at each; so does a
# script, style or template, whose content the search plugin skips and text would not. A paragraph
# that only carries a claim's mark (``ldr-claimed``) is prose: it keeps its markup, and the values
# in it go as text; so is a run of far blocks (``ldr-far``, site/farblocks.py), which only holds
# the author's blocks.
OURS = re.compile(r'<([a-z][a-z0-9]*)\b[^>]*?\sclass="(ldr-[^"\s]*)')
PROSE = frozenset({"ldr-claimed", "ldr-far"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                  "track", "wbr"})
KEEPS_MARKUP = re.compile(r"<(?:h[1-6]|script|style|template)[\s>]")  # what holds one stays markup
TAGS = re.compile(r"<[^>]*>")
SPACE = re.compile(r"\s+")
TEXTS = re.compile(r"<!--ldr-text-(\d+)-->[^<]*<!--/ldr-text-\1-->")


def as_text(html: str, stash: dict[str, str]) -> str:
    """``html`` with each element of ours that holds no heading, script, style or template
    swapped for its text between two markers; the element goes into ``stash`` (:func:`restore` puts it back)."""
    out: list[str] = []
    pos = 0
    while True:
        match = OURS.search(html, pos)
        if match is None:
            break
        start, name = match.start(), match.group(1)
        opened = html.find(">", match.end())
        if opened < 0:
            break
        if name in VOID or match.group(2) in PROSE or html[opened - 1] == "/":
            out.append(html[pos:opened + 1])
            pos = opened + 1
            continue
        end = element_end(html, start, name)
        if end is None or KEEPS_MARKUP.search(html, start, end):
            out.append(html[pos:opened + 1])  # unbalanced, or holds markup that stays: look inside it
            pos = opened + 1
            continue
        number = len(stash)
        stash[f"<!--ldr-text-{number}-->"] = html[start:end]
        text = SPACE.sub(" ", TAGS.sub(" ", html[start:end])).strip().replace("<", "&lt;")
        out += [html[pos:start], f"<!--ldr-text-{number}-->{text}<!--/ldr-text-{number}-->"]
        pos = end
    out.append(html[pos:])
    return "".join(out)


def restore(html: str, stash: dict[str, str]) -> str:
    """One pass over the page for the elements :func:`as_text` swapped, then one for the blocks
    :func:`defer` held out (an element's markup holds their tokens); each is put back once."""
    if not stash:
        return html
    left = dict(stash)
    html = TEXTS.sub(lambda m: left.pop(f"<!--ldr-text-{m.group(1)}-->", m.group(0)), html)
    return TOKENS.sub(lambda m: left.pop(m.group(0), m.group(0)), html)
