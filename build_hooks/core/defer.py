"""Keep bulky, unsearchable markup out of other plugins' way.

Inline SVG (figures, instrument fallbacks) and the highlighted source inside proof cards make
a chapter's HTML several times larger, and the search plugin would parse and index every path
and token of it. After rendering, such blocks are swapped for placeholders; the placeholders
are swapped back into the final page. Captions, alt text and card text stay searchable.
"""

from __future__ import annotations

import re

START = re.compile(r'<svg\b|<div class="language-python highlight ldr-source">')
SVG_TAG = re.compile(r"<svg\b|</svg>")
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
        start = match.start()
        if match.group(0).startswith("<svg"):
            depth, end = 0, None
            for tag in SVG_TAG.finditer(html, start):
                depth += 1 if tag.group(0) == "<svg" else -1
                if depth == 0:
                    end = tag.end()
                    break
        else:
            found = html.find(SOURCE_END, start)
            end = None if found < 0 else found + len(SOURCE_END)
        if end is None:  # unbalanced: leave the rest alone
            break
        block = html[start:end]
        if len(block) >= min_size:
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
