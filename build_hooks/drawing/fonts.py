"""The font families Excalidraw scenes name by id, their vertical metrics and self-hosted files.

The ids and vertical metrics are Excalidraw's (``FONT_FAMILY`` and ``FONT_METRICS`` in its
constants); the woff2 files come from the ``@excalidraw/excalidraw@0.18.1`` npm package and live
under ``build_hooks/assets/fonts/`` with their licences. Figures name the family and carry no font
of their own: ``ldr-drawing.css`` declares the faces, and a page built by the MkDocs plugin
declares those its figures name in its head instead (:func:`page_fonts`).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LATIN = ("U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+0304, U+0308, U+2000-206F, "
         "U+20AC, U+2122, U+2191, U+2193, U+2212")
LATIN_EXT = "U+0100-02AF, U+1E00-1E9F, U+1EF2-1EFF, U+20A0-20AB, U+20AD-20C0, U+2113, U+2C60-2C7F, U+A720-A7FF"
SYMBOLS = ("U+02C7, U+02D8-02D9, U+02DB, U+02DD, U+0302, U+0306-0307, U+030A-030C, U+0315, U+0326-0328, U+2190, "
           "U+2192, U+2200, U+2203-2204, U+2211, U+2264-2265, U+212E, U+FB01-FB02")


@dataclass(frozen=True)
class Family:
    id: int
    name: str
    units_per_em: int
    ascender: int
    descender: int
    line_height: float
    files: tuple[tuple[str, str | None], ...] = ()
    fallbacks: tuple[str, ...] = ("Segoe UI Emoji",)
    measure_as: str | None = None  # the family whose advances stand in (Helvetica -> Liberation Sans)

    def css_stack(self) -> str:
        """The ``font-family`` value, as Excalidraw writes it, plus a generic last resort."""
        names = [self.name, *self.fallbacks]
        generic = "monospace" if self.name == "Cascadia" else ("sans-serif" if self.id in (2, 6, 9) else "cursive")
        return ", ".join(names) + f", {generic}"


FAMILIES: dict[int, Family] = {
    1: Family(1, "Virgil", 1000, 886, -374, 1.25, (("Virgil.woff2", None),)),
    2: Family(2, "Helvetica", 2048, 1577, -471, 1.15, (), ("Liberation Sans", "Arial", "Segoe UI Emoji"),
              "Liberation Sans"),
    3: Family(3, "Cascadia", 2048, 1900, -480, 1.2, (("CascadiaCode.woff2", None),)),
    5: Family(5, "Excalifont", 1000, 886, -374, 1.25, (
        ("Excalifont-latin.woff2", LATIN),
        ("Excalifont-latin-ext.woff2", LATIN_EXT),
        ("Excalifont-symbols.woff2", SYMBOLS),
        ("Excalifont-combining.woff2", "U+0300-0301, U+0303"),
        ("Excalifont-greek.woff2", "U+037E, U+0384-038A, U+038C, U+038E-03A1, U+03A3-03CF, U+03D7"),
    ), ("Xiaolai", "Segoe UI Emoji")),
    6: Family(6, "Nunito", 1000, 1011, -353, 1.35, (
        ("Nunito-latin.woff2", LATIN), ("Nunito-latin-ext.woff2", LATIN_EXT))),
    7: Family(7, "Lilita One", 1000, 923, -220, 1.15, (
        ("LilitaOne-latin.woff2", LATIN), ("LilitaOne-latin-ext.woff2", LATIN_EXT))),
    8: Family(8, "Comic Shanns", 1000, 750, -250, 1.25, (
        ("ComicShanns-latin.woff2", LATIN), ("ComicShanns-latin-ext.woff2", LATIN_EXT),
        ("ComicShanns-symbols.woff2", SYMBOLS))),
    9: Family(9, "Liberation Sans", 2048, 1854, -434, 1.15, (("LiberationSans.woff2", None),)),
}

DEFAULT_FAMILY = 5  # Excalifont, what restore() gives a text element without fontFamily
FONTS_DIR = Path(__file__).resolve().parents[1] / "assets" / "fonts"  # shipped with the package


def family(fid: object) -> Family | None:
    """The family for an id, or None when Excalidraw has no such id."""
    try:
        # fid is whatever the scene holds; int() refuses what is not a number (caught below)
        return FAMILIES.get(int(fid))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def vertical_offset(fam: Family, font_size: float, line_height_px: float) -> float:
    """Baseline of the first line below the text box top (Excalidraw's getVerticalOffset)."""
    em = font_size / fam.units_per_em
    line_gap = line_height_px - em * fam.ascender + em * fam.descender
    return em * fam.ascender + line_gap / 2


@lru_cache(maxsize=1)
def _metrics() -> dict:
    return json.loads(Path(__file__).with_name("metrics.json").read_text())


def advance(fam: Family, ch: str, font_size: float) -> float:
    """Advance width in px of one character; unknown characters measure like an 'x'-wide em/2."""
    table = _metrics().get(fam.measure_as or fam.name)
    if table is None:
        return font_size * 0.55
    upm = table["unitsPerEm"]
    width = table["advances"].get(str(ord(ch)))
    if width is None:
        width = upm if ord(ch) > 0x2E80 else upm * 0.55  # CJK/emoji fall back to a full em
    return width * font_size / upm


def font_face_css(url_prefix: str = "fonts/", families: Iterable[Family] | None = None,
                  embed: bool = False, renamed: Mapping[str, str] | None = None) -> str:
    """@font-face rules for the self-hosted families (all of them by default): relative URLs
    under ``url_prefix``, or with ``embed`` the woff2 files themselves as data: URLs. ``renamed``
    maps a shipped file to the one published instead (a face cut to the site's text, subset.py)."""
    rules = []
    for fam in FAMILIES.values() if families is None else families:
        for file, urange in fam.files:
            if embed:
                data = base64.b64encode((FONTS_DIR / file).read_bytes()).decode("ascii")
                url = f"data:font/woff2;base64,{data}"
            else:
                url = f"{url_prefix}{(renamed or {}).get(file, file)}"
            rule = (f'@font-face {{ font-family: "{fam.name}"; src: url("{url}") format("woff2"); '
                    f"font-display: swap;")
            if urange:
                rule += f" unicode-range: {urange};"
            rules.append(rule + " }")
    return "\n".join(rules)


_FONT_ATTR = re.compile(r'font-family="([^",]+)')


def families_in(svg: str) -> list[Family]:
    """The self-hosted families a rendered SVG's text names first, in id order."""
    names = set(_FONT_ATTR.findall(svg))
    return [fam for fam in FAMILIES.values() if fam.name in names and fam.files]


def with_fonts(svg: str, mode: str = "embed", url_prefix: str = "fonts/") -> str:
    """A standalone SVG that carries (``embed``) or references (``link``) the faces its text
    uses, so that it renders as on the site outside it; ``none`` leaves it as it is."""
    if mode == "none":
        return svg
    used = families_in(svg)
    if not used:
        return svg
    rules = font_face_css(url_prefix, used, embed=(mode == "embed"))
    return svg.replace("<defs>", f"<defs><style>{rules}</style>", 1)


_DRAWN_FONT = re.compile(r'font-family="([^",]+)')  # a literal start: scanned for, not tried at every space
_FILE_FONT = re.compile(r'data-ldr-font="([^",]+)')  # the <img> of a drawing published as a file


def _named(pattern: re.Pattern, html: str) -> set[str]:
    """The first family of each attribute ``pattern`` finds (an attribute: a space before it)."""
    return {m.group(1) for m in pattern.finditer(html) if m.start() and html[m.start() - 1].isspace()}


def page_fonts(html: str, to_fonts: str, renamed: Mapping[str, str] | None = None) -> str:
    """The page with its drawing fonts declared and preloaded in its head: a ``<style>`` with the
    ``@font-face`` rules of each family its figures name, and a ``<link rel="preload">`` for the
    first face (the Latin one) of each, so that the font is fetched beside the stylesheet rather
    than after it (on a slow phone network that was one more round trip before the load event).
    A family named only by drawings that arrive as files (``data-ldr-font``, site/lazyfigures.py)
    is declared but not preloaded: its font comes when such a drawing does.
    ``to_fonts`` is the fonts folder's URL relative to the page (ending ``/``); ``renamed`` maps a
    shipped face to the file published in its place (the face cut to the site's text, subset.py);
    a page without a drawing is returned as it is.

    Why the faces are in the page and not in the site's stylesheet: mkdocs-material's instant
    navigation rewrites every relative ``href`` on the page to an absolute one when it starts,
    the stylesheet's link included. Chromium then reloads that stylesheet, and when it declares
    ``@font-face`` rules it drops its font cache and lays out every text on the page again (on
    Part 0, as a phone, 150 ms of one task). A ``<style>`` has no ``href``, so nothing reloads it.
    Instant navigation keeps the element when the next page has the same one and adds it when it
    does not, after the address has changed, so its relative URLs hold on the next page too."""
    drawn = _named(_DRAWN_FONT, html)  # drawings in the page
    named = drawn | _named(_FILE_FONT, html)  # and drawings that arrive as files (site/lazyfigures.py)
    used = [f for f in FAMILIES.values() if f.name in named and f.files]
    head = html.find("</head>")
    if not used or head < 0:
        return html
    renamed = renamed or {}
    faces = font_face_css(to_fonts, used, renamed=renamed)
    # preloaded for a drawing in the page only: one that arrives later asks for its font then
    links = "".join(f'<link rel="preload" href="{to_fonts}{renamed.get(f.files[0][0], f.files[0][0])}" as="font" '
                    'type="font/woff2" crossorigin>' for f in used if f.name in drawn)
    return f"{html[:head]}<style>{faces}</style>{links}{html[head:]}"
