"""The files the package itself serves, and the one stylesheet and one script every page loads.

The package ships the stylesheets of its generic parts (proof cards, output excerpts, inline
values, claims, figures), their palette defaults, the figures' viewer script and the drawing
fonts. A page must not pay a request per file, so a build joins them into one stylesheet,
:data:`BUNDLE_CSS`, and one script, :data:`BUNDLE_JS`, that every page links (:func:`stylesheets`,
:func:`scripts`): the package's own parts first, then the files a site's theme lists in
``mkdocs.yml`` (``theme.ldr_assets``: paths of ``.css`` and ``.js`` files in ``theme.custom_dir``,
in order), so a site's rules override the package's and its scripts run after the package's.

A site that installs the package gets all of it without copying anything: the MkDocs plugin
publishes :func:`files` (the package's files at their URIs under ``assets/ldr/`` and the two
bundles) and links the bundles on every page; another host (Zensical, a script) publishes the same
list and links the same two URIs. The stylesheets name the fonts relative to themselves
(``fonts/<file>``) and the bundles sit beside them, so the tree keeps its shape; a relative
``url()`` in a theme's stylesheet is rewritten to the bundle's folder. The comments its authors
wrote for themselves stay out (all of a stylesheet's; a script's that fill whole lines). This series' own widgets
(depth meter, instruments, robot, reading lines) are not here: their CSS and JS live in the
series' ``theme/`` and join the bundles through ``theme.ldr_assets``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, is_regular, read_text

ASSETS_DIR = Path(__file__).resolve().parents[1] / "assets"
PREFIX = "assets/ldr/"
# Order: the palette defaults first (zero specificity, so any site palette wins), then the
# parts that paint with it.
STYLESHEETS = ("ldr-palette.css", "ldr-proofs.css", "ldr-drawing.css")
# The drawings that arrive as files, then the figures' viewer (tap to enlarge), which finds the
# drawings the first has put in place; nothing else needs JavaScript.
SCRIPTS = ("ldr-figure-files.js", "ldr-figures.js")
SHIPPED = (".css", ".js", ".woff2", ".txt")  # fonts travel with their licences; README.md does not
BUNDLE_CSS = PREFIX + "bundle.css"
BUNDLE_JS = PREFIX + "bundle.js"
OPTION = "ldr_assets"
"""The key under ``theme:`` in mkdocs.yml that lists the theme's own stylesheets and scripts."""

_URL = re.compile(r"""url\(\s*(["']?)([^"')\s]+)\1\s*\)""")
_ABSOLUTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", re.IGNORECASE)


def site_assets() -> list[tuple[str, Path]]:
    """The package's files to publish, as ``(site URI, file on disk)``, sorted by URI."""
    if not ASSETS_DIR.is_dir():
        raise LdrError(f"{ASSETS_DIR}: the package's assets are missing; "
                                "fix: reinstall the package (its wheel ships build_hooks/assets/)")
    out = []
    for path in sorted(ASSETS_DIR.rglob("*")):
        if path.suffix in SHIPPED and is_regular(path, inside=ASSETS_DIR):  # no symlink out, no FIFO
            out.append((PREFIX + path.relative_to(ASSETS_DIR).as_posix(), path))
    return out


def files(theme_dir: Path | None = None, listed: Sequence[str] = (), faces: bool = True,
          cut: Sequence[tuple[str, str, bytes]] = ()) -> list[tuple[str, Path | bytes]]:
    """Every file to publish: the package's (:func:`site_assets`), the drawing fonts ``cut`` to
    the drawings' text (drawing/subset.py: shipped name, published name, bytes) and the two
    bundles (bytes), whose font rules name the cut faces."""
    renamed, published = cut_fonts(cut)
    return [*site_assets(), *published, *bundles(theme_dir, listed, faces, renamed)]


def cut_fonts(cut: Sequence[tuple[str, str, bytes]]) -> tuple[dict[str, str], list[tuple[str, bytes]]]:
    """For the faces ``cut`` to the drawings' text (drawing/subset.py): each shipped file's
    published name, and the files to publish, ``(site URI, bytes)``."""
    return ({shipped: name for shipped, name, _ in cut}, [(f"{PREFIX}fonts/{name}", data) for _, name, data in cut])


def stylesheets() -> list[str]:
    """The site URIs of the stylesheets every page links: the one bundle."""
    return [BUNDLE_CSS]


def scripts() -> list[str]:
    """The site URIs of the scripts every page loads: the one bundle."""
    return [BUNDLE_JS]


def bundles(theme_dir: Path | None = None, listed: Sequence[str] = (), faces: bool = True,
            renamed: Mapping[str, str] | None = None) -> list[tuple[str, bytes]]:
    """:data:`BUNDLE_CSS` and :data:`BUNDLE_JS` as ``(site URI, content)``: the package's
    stylesheets and scripts, then the theme's ``listed`` files (``theme.ldr_assets``, relative to
    ``theme_dir``), each file once, in order. A listed file that is missing, outside the theme,
    neither ``.css`` nor ``.js``, or a stylesheet that imports another, is an error naming it.
    Without ``faces`` the package's ``@font-face`` rules stay out of the stylesheet: a host that
    declares each page's drawing fonts in the page itself (the MkDocs plugin, drawing/fonts.py
    ``page_fonts``) keeps them out of the file mkdocs-material's instant navigation reloads.
    ``renamed`` maps a shipped face to the file published in its place (drawing/subset.py)."""
    css = [_part(f"build_hooks/assets/{name}", _read(ASSETS_DIR / name, ASSETS_DIR, name), PREFIX + name)
           for name in STYLESHEETS]
    if not faces:
        css = [_FONT_FACE.sub("", part) for part in css]
    for shipped, published in (renamed or {}).items():
        css = [part.replace(f'url("fonts/{shipped}")', f'url("fonts/{published}")') for part in css]
    js = [_part(f"build_hooks/assets/{name}", _lean(_read(ASSETS_DIR / name, ASSETS_DIR, name))) for name in SCRIPTS]
    if listed and theme_dir is None:
        raise LdrError(f"theme.{OPTION} lists files but the theme has no custom_dir; fix: set "
                       "theme.custom_dir in mkdocs.yml to the folder that holds them")
    for name in listed:
        if not isinstance(name, str) or not name.endswith((".css", ".js")):
            raise LdrError(f"theme.{OPTION}: {name!r} is not a .css or .js file; fix: list the theme's "
                           "stylesheets and scripts by their paths in the theme folder, e.g. assets/site.css")
    for name in dict.fromkeys(listed):
        assert theme_dir is not None
        text = _read(Path(theme_dir) / name, Path(theme_dir), f"theme.{OPTION}: {name}")
        shown = f"{Path(theme_dir).name}/{name}"
        if name.endswith(".css"):
            css.append(_part(shown, text, name.lstrip("/")))
        else:
            js.append(_part(shown, _lean(text)))
    return [(BUNDLE_CSS, "\n".join(css).encode()), (BUNDLE_JS, "\n".join(js).encode())]


def _read(path: Path, inside: Path, shown: str) -> str:
    try:  # only a regular file inside its folder (core/safefs.py): no symlink out, no FIFO
        return read_text(path, inside=inside, limit="data")
    except UnsafeFile as exc:
        raise LdrError(f"{shown} is {exc.what}; it is not bundled; fix: {exc.fix}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LdrError(f"{shown}: cannot read it ({exc}); fix: list a file of the theme folder "
                       "that exists, saved as UTF-8") from None


def _part(shown: str, text: str, uri: str | None = None) -> str:
    """One file of a bundle, headed by its name; a stylesheet's relative urls follow it to the bundle's folder."""
    if uri is not None:
        if re.search(r"@import\b", text):
            raise LdrError(f"{shown}: @import fetches another file; fix: list that file in "
                           f"theme.{OPTION} instead, so it joins the one stylesheet")
        text = _URL.sub(lambda m: _moved(m, uri), _uncommented(text))
    return f"/* {shown} */\n{text.strip()}\n"


_FONT_FACE = re.compile(r"^@font-face\s*\{[^}]*\}\n?", re.M)
_LINE_COMMENTS = re.compile(r"^[ \t]*//.*\n", re.M)
_BLOCK_COMMENTS = re.compile(r"^[ \t]*/\*(?:(?!\*/).)*\*/[ \t]*\n", re.M | re.S)


def _lean(js: str) -> str:
    """A script without the comments that fill whole lines (a comment after code on its line, or
    one with code after it, stays: telling it from a string or a regular expression would take a
    parser)."""
    return _LINE_COMMENTS.sub("", _BLOCK_COMMENTS.sub("", js if js.endswith("\n") else js + "\n"))


_CSS_TOKENS = re.compile(r"""("(?:\\.?|[^"\\])*(?:"|\Z)|'(?:\\.?|[^'\\])*(?:'|\Z))|/\*.*?(?:\*/|\Z)""", re.S)


def _uncommented(css: str) -> str:
    """A stylesheet without its comments (they are for its authors, not its readers' networks) and
    without blank lines; a ``/*`` inside a quoted string stays."""
    kept = _CSS_TOKENS.sub(lambda m: m.group(1) or "", css)  # a string stays, a comment goes
    return "\n".join(line.rstrip() for line in kept.splitlines() if line.strip())


def _moved(match: re.Match, uri: str) -> str:
    url = match.group(2)
    if _ABSOLUTE.match(url):
        return match.group(0)
    target = posixpath.normpath(posixpath.join(posixpath.dirname(uri), url))
    return f'url("{posixpath.relpath(target, posixpath.dirname(BUNDLE_CSS))}")'
