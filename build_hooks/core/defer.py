"""Keep bulky, unsearchable markup out of other plugins' way.

Inline SVG (figures, instrument fallbacks), the highlighted source inside proof cards and the
instruments' widgets make a chapter's HTML several times larger, and the search plugin would
parse and index every path and token of it (and every card's provenance and run lines, the
same words on each card). After rendering, such blocks are swapped for placeholders; the
placeholders are swapped back into the final page. Captions, alt text and card text (title,
purpose, output) stay searchable.
"""

from __future__ import annotations

import re

START = re.compile(r'<svg\b|<div class="language-python highlight ldr-source">|<div class="ldr-instrument"'
                   r'|<p class="ldr-proof__(?:provenance|run)">')
SVG_TAG = re.compile(r"<svg\b|</svg>")
DIV_TAG = re.compile(r"<div\b|</div>")
SOURCE_END = "</code></pre></div>"
TOKEN = "<!--ldr-deferred-{}-->"


def defer(html: str, min_size: int = 1024, stash: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """Swap bulky blocks for placeholders, adding them to ``stash`` (tokens stay unique)."""
    parts: list[str] = []
    stash = {} if stash is None else stash
    pos = 0
    while True:
        match = START.search(html, pos)
        if match is None:
            break
        start, opening = match.start(), match.group(0)
        if opening.startswith(("<svg", '<div class="ldr-instrument"')):
            # An instrument is all widget markup and embedded data; its title is not worth a
            # search hit. Nested blocks of the same tag are counted to find the end.
            pattern, tag_open = (SVG_TAG, "<svg") if opening.startswith("<svg") else (DIV_TAG, "<div")
            depth, end = 0, None
            for tag in pattern.finditer(html, start):
                depth += 1 if tag.group(0) == tag_open else -1
                if depth == 0:
                    end = tag.end()
                    break
        elif opening.startswith("<p"):  # a card's provenance and run lines: the same on every card
            found = html.find("</p>", start)
            end = None if found < 0 else found + len("</p>")
        else:
            found = html.find(SOURCE_END, start)
            end = None if found < 0 else found + len(SOURCE_END)
        if end is None:  # unbalanced: leave the rest alone
            break
        block = html[start:end]
        if len(block) >= min_size or opening.startswith(("<p", '<div class="ldr-instrument"')):
            token = TOKEN.format(len(stash))
            stash[token] = block
            parts.append(html[pos:start])
            parts.append(token)
        else:
            parts.append(html[pos:end])
        pos = end
    parts.append(html[pos:])
    return "".join(parts), stash


TOKENS = re.compile(r"<!--ldr-deferred-\d+-->")


def restore(html: str, stash: dict[str, str]) -> str:
    """One pass over the page, whatever the number of blocks; each token is put back once."""
    if not stash:
        return html
    left = dict(stash)
    return TOKENS.sub(lambda m: left.pop(m.group(0), m.group(0)), html)
