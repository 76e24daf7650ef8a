"""Drawings that arrive when the reader nears them, each published as a file of its own.

A drawing is the heaviest thing on a page: Part 0's six are a third of its gzipped HTML, and a
phone on a slow network loads every one of them, with the font their text is set in, before the
page's load event, though the reader sees one screen at a time. So, in a page the MkDocs plugin
builds, a drawing that comes after the page's first :data:`EARLY_TEXT` characters of text is
published as ``assets/ldr/figures/<figure>.<digest>.svg`` (named by its bytes, so a browser never
pairs a kept file with a newer page), and the page holds only an ``<img>`` of it, as large as the
drawing, with ``loading="lazy"``:

* with JavaScript, ``ldr-figure-files.js`` puts in its place an inline ``<svg>`` of the same size
  whose ``<use>`` points at the file, and sets that link once the figure is a screen away (or
  when the figure is opened, or the page printed): the drawing is drawn by the page, so it
  follows the palette (light and slate) and is set in the page's drawing font;
* without it, the ``<img>`` shows the file as it is: the light palette, the system's fonts.

A drawing's colours outside the palette come with rules for the slate scheme (a ``<style>`` in
its ``<defs>``); those stay in the page, before the ``<img>``, and the file leaves them out (it
falls back to each colour's light value). A drawing near the top (the first screens)
stays inline, as does one that names ids (a mask) or carries any other ``<style>``: Chromium
draws a mask through a ``<use>``, but such a drawing is not trusted to every browser's handling
of ids inside a file a ``<use>`` draws. Only the package's own markup is read
(``drawing/figure.py`` writes it); anything else is left as it is.
Knows nothing of MkDocs: :func:`lazy_figures` takes the page and its held-out blocks
(``site/defer.py``) and returns the files to publish.
"""

from __future__ import annotations

import hashlib
import html as htmllib
import re
from collections.abc import Callable

from build_hooks.site.defer import TOKENS

FOLDER = "assets/ldr/figures/"
EARLY_TEXT = 5000
"""Characters of the page's text (tags left out) before which a drawing stays inline: about four
screens of a phone, two of a laptop. The script asks for a file one screen ahead, so a drawing
any nearer would be asked for as the page loads: one more request, for no bytes saved. The
held-out blocks (outputs, quotes' lines, instruments: site/defer.py) are not counted: with them
above, the mark falls further down the page, so a drawing errs towards staying inline, never
towards arriving late on the first screens."""
ROOT_ID = "ldr-drawing"
"""The id of the group, in a published file, that the page's ``<use>`` points at."""

_DRAWING = re.compile(r'<svg (role="img" [^>]*class="ldr-drawing"[^>]*)>(.*)</svg>\Z', re.S)
_ATTR = re.compile(r'([a-zA-Z:-]+)="([^"]*)"')
_FIGURE = re.compile(r'<figure class="ldr-figure" id="figure-([A-Za-z0-9_-]+)"[^>]*>\Z')  # just before the drawing
_TAG = re.compile(r"<[^>]*>")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?\Z")
_KEPT = ("xmlns", "viewBox", "width", "height", "font-family")
# The slate values of a drawing's colours outside the palette (drawing/render.py): rules for the
# page (`[data-md-color-scheme="slate"] svg.ldr-drawing { --ldr-c-<hex>: ... }`), nothing else.
_COLOURS = re.compile(r'<defs>(<style>\[data-md-color-scheme="slate"\] svg\.ldr-drawing \{[^<{}]*\}</style>)</defs>')


def _parts(block: str) -> tuple[dict[str, str], str, str] | None:
    """The attributes, the content and the colour rules of a drawing's ``<svg>`` as figure.py
    writes it, or None for any other block, or one that could not be drawn through a ``<use>``
    (ids, any other style)."""
    match = _DRAWING.match(block)
    if match is None:
        return None
    attrs = dict(_ATTR.findall(match.group(1)))
    inner, rules = match.group(2), ""
    colours = _COLOURS.match(inner)
    if colours is not None:  # page-level rules: they stay in the page, beside the <img>
        rules, inner = colours.group(1), inner[colours.end():]
    width, height = attrs.get("width", ""), attrs.get("height", "")
    if (attrs.get("viewBox") != f"0 0 {width} {height}" or not _NUMBER.match(width)
            or not _NUMBER.match(height) or "<svg" in inner or "<style" in inner or " id=" in inner
            or "url(#" in inner or "xmlns" not in attrs):
        return None
    return attrs, inner, rules


def standalone(attrs: dict[str, str], inner: str) -> bytes:
    """The drawing as an SVG file of its own: the page's ``<use>`` draws its group, an ``<img>``
    or a reader's viewer the whole file (the palette's light values, from each paint's fallback)."""
    head = " ".join(f'{key}="{attrs[key]}"' for key in _KEPT if key in attrs)
    title = f"<title>{attrs['aria-label']}</title>" if attrs.get("aria-label") else ""
    return f'<svg {head}>{title}<g id="{ROOT_ID}">{inner}</g></svg>\n'.encode()


def stand_in(attrs: dict[str, str], src: str, rules: str = "") -> str:
    """The ``<img>`` a page holds in the drawing's place (attribute values already escaped),
    after the drawing's colour rules, if any: they reach the inline ``<svg>`` the script makes."""
    font = f' data-ldr-font="{attrs["font-family"]}"' if "font-family" in attrs else ""
    return (f'{rules}<img class="ldr-drawing-file" src="{htmllib.escape(src, quote=True)}" '
            f'alt="{attrs.get("aria-label", "")}" width="{attrs["width"]}" height="{attrs["height"]}"'
            f'{font} loading="lazy" decoding="async">')


def text_length(html: str) -> int:
    """The characters of text in ``html``, tags left out and entities read as one (the count
    :data:`EARLY_TEXT` is measured in; hosts/markdown/extension.py counts its mark the same way)."""
    return len(htmllib.unescape(_TAG.sub("", html)).strip())


def lazy_figures(html: str, stash: dict[str, str], href: Callable[[str], str],
                 early: int = EARLY_TEXT) -> list[tuple[str, bytes]]:
    """Swap, in ``stash``, each drawing of the page ``html`` that comes after its first ``early``
    characters of text for an ``<img>`` of a file; return those files as ``(site uri, bytes)``.
    ``href(uri)`` is the link from the page to a site uri."""
    files: list[tuple[str, bytes]] = []
    if not any('class="ldr-drawing"' in block for block in stash.values()):
        return files  # no drawing on this page: its text is not read
    text, pos = 0, 0
    for match in TOKENS.finditer(html):
        if text < early:  # past the mark, the count no longer matters
            text += text_length(html[pos:match.start()])
        pos = match.end()
        block = stash.get(match.group(0))
        parts = _parts(block) if block is not None and text >= early else None
        opening = html.rfind("<figure ", 0, match.start()) if parts is not None else -1
        figure = _FIGURE.match(html[opening:match.start()]) if opening >= 0 else None
        if parts is None or figure is None:
            continue
        attrs, inner, rules = parts
        body = standalone(attrs, inner)
        uri = f"{FOLDER}{figure.group(1)}.{hashlib.sha256(body).hexdigest()[:10]}.svg"
        files.append((uri, body))
        stash[match.group(0)] = stand_in(attrs, href(uri), rules)
    return files
