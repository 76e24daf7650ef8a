"""Build-time Excalidraw renderer: ``.excalidraw`` scenes -> inline SVG, hand-drawn like the app.

Public API: :func:`render_svg`, :func:`render_file` (cached), :func:`draw_command` (``ldr draw``).
"""

from __future__ import annotations

from pathlib import Path

from build_hooks.drawing.version import RENDERER_VERSION


def render_svg(scene: dict | str | Path, *, dark: bool = False, frame: str | None = None, palette: bool = True,
               source: str = "<scene>", id_prefix: str | None = None) -> str:
    """A standalone ``<svg>`` for a scene (a dict, JSON text or a path).

    ``palette=False`` keeps the scene's colours; ``palette=True`` maps them to the series' CSS
    variables. ``frame`` renders one named frame only. ``source`` names the file in errors;
    ids inside the SVG are prefixed with its stem (or ``id_prefix``) so figures can share a page.
    """
    from build_hooks.drawing.render import (
        render_svg as _render,  # imported on first use: warm builds only read the cache
    )

    return _render(scene, dark=dark, frame=frame, palette=palette, source=source, id_prefix=id_prefix)


def render_file(path: Path, **opts) -> str:
    from build_hooks.drawing.cache import render_file as _cached

    return _cached(Path(path), **opts)


def draw_command(argv: list[str]) -> int:
    from build_hooks.drawing.cli import draw_command as _cmd

    return _cmd(argv)


__all__ = ["render_svg", "render_file", "draw_command", "RENDERER_VERSION"]
