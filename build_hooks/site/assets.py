"""The files the package itself serves: the stylesheets of its generic parts (proof cards,
output excerpts, inline values, claims, figures), their palette defaults and the drawing fonts.

A site that installs the package gets them without copying anything: the MkDocs plugin publishes
every file of :func:`site_assets` at its URI and links :func:`stylesheets` on every page; another
host (Zensical, a script) can publish the same list. The URIs are stable, under ``assets/ldr/``;
the stylesheets name the fonts relative to themselves (``fonts/<file>``), so the tree must keep
its shape. The series' own widgets (depth meter, instruments, robot, reading lines) are not here:
their CSS and JS live in the series' ``theme/``.
"""

from __future__ import annotations

from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import is_regular

ASSETS_DIR = Path(__file__).resolve().parents[1] / "assets"
PREFIX = "assets/ldr/"
# Link order: the palette defaults first (zero specificity, so any site palette wins), then the
# parts that paint with it.
STYLESHEETS = ("ldr-palette.css", "ldr-proofs.css", "ldr-drawing.css")
SCRIPTS: tuple[str, ...] = ()  # the generic parts need no JavaScript
SHIPPED = (".css", ".js", ".woff2", ".txt")  # fonts travel with their licences; README.md does not


def site_assets() -> list[tuple[str, Path]]:
    """Every file to publish, as ``(site URI, file on disk)``, sorted by URI."""
    if not ASSETS_DIR.is_dir():
        raise LdrError(f"{ASSETS_DIR}: the package's assets are missing; "
                                "fix: reinstall the package (its wheel ships build_hooks/assets/)")
    out = []
    for path in sorted(ASSETS_DIR.rglob("*")):
        if path.suffix in SHIPPED and is_regular(path, inside=ASSETS_DIR):  # no symlink out, no FIFO
            out.append((PREFIX + path.relative_to(ASSETS_DIR).as_posix(), path))
    return out


def stylesheets() -> list[str]:
    """The site URIs of the stylesheets every page links, in order."""
    return [PREFIX + name for name in STYLESHEETS]


def scripts() -> list[str]:
    """The site URIs of the scripts every page loads (none today)."""
    return [PREFIX + name for name in SCRIPTS]
