"""The chapter figure directive: a scene from ``drawings/`` as an inline, palette-following SVG.

    ```figure
    src: floors.excalidraw
    alt: The eight floors of PyTorch, from the Python API down to the hardware
    caption: Every call goes down the floors and comes back up.
    frame: overview        # optional: one named frame only
    ```

A bare ``floors.excalidraw`` works too (``{"arg": ...}``).
"""

from __future__ import annotations

import os
import re
from html import escape
from pathlib import Path

from build_hooks.core.errors import DirectiveError, DrawingError
from build_hooks.core.options import check_options
from build_hooks.core.safefs import LIMITS, UnsafeFile, check_regular
from build_hooks.drawing.cache import default_dir, render_file
from build_hooks.drawing.compact import compact
from build_hooks.drawing.offscreen import skip_offscreen
from build_hooks.drawing.subset import text_elements

OPTIONS = ("src", "alt", "caption", "frame")  # the one list of what a figure fence takes
EDIT_TEXT = "Download the scene (.excalidraw)"
EDIT_HOW = "Open it in excalidraw.com (menu, Open) or drop it on its canvas to edit it"  # the link's tooltip


def _scene_text(path: Path, base: Path) -> str:
    texts = [str(e.get("text", "")).replace("\n", " ").strip() for e in text_elements(path, base)]
    return ", ".join(t for t in texts if t)


def _resolve(options: dict, ctx) -> tuple[str, Path]:
    check_options("figure", options, OPTIONS)
    src = options.get("src", options.get("arg"))
    if not isinstance(src, str) or not src.strip():
        raise DirectiveError("figure: no drawing given; write `src: name.excalidraw` (a file under drawings/)")
    src = src.strip().removeprefix("drawings/")
    base = ctx.folders.drawings  # the drawings_dir option (default: drawings/)
    path = Path(os.path.normpath(base / src))  # lexical, as the folder options are: `..` cannot leave it
    if base not in path.parents or not src.endswith(".excalidraw"):
        raise DirectiveError(f"figure: {src!r} is not a .excalidraw file under drawings/; "
                             "give a path relative to drawings/, e.g. `src: floors.excalidraw`")
    try:  # only a regular file inside drawings/: a symlink leaving it, a FIFO or a device is refused
        info = check_regular(path, inside=base)
    except UnsafeFile as exc:
        raise DirectiveError(f"figure: drawings/{src} is {exc.what}; it is neither read nor published; "
                             f"fix: {exc.fix}") from None
    except OSError:
        known = sorted(p.name for p in base.glob("*.excalidraw")) if base.is_dir() else []
        raise DirectiveError(f"figure: drawings/{src} does not exist; save the scene there"
                             + (f" (existing: {', '.join(known)})" if known else "")) from None
    if info.st_size > LIMITS["scene"]:
        raise DirectiveError(f"figure: drawings/{src} holds {info.st_size:,} bytes, over the limit of "
                             f"{LIMITS['scene']:,} for a scene; fix: make it smaller (embedded images weigh most)")
    return src, path


def render_fence(options: dict, ctx) -> str:
    if not isinstance(options, dict):
        options = {"arg": options}
    src, path = _resolve(options, ctx)
    frame = options.get("frame")
    if frame is not None and not isinstance(frame, str):
        raise DirectiveError(f"figure {src}: frame must be a frame's name (text), not {frame!r}")
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(src).with_suffix("").as_posix()).strip("-")
    ident = f"{stem}-{re.sub(r'[^A-Za-z0-9_-]+', '-', frame).strip('-')}" if frame else stem
    try:
        svg = render_file(path, cache_dir=default_dir(ctx.root), frame=frame, source=f"drawings/{src}",
                          id_prefix=f"{ident}-")
    except DrawingError as exc:
        raise DirectiveError(f"figure: {exc}") from exc
    svg = compact(svg)  # the page's copy: fewer elements and bytes, the same drawing
    alt = options.get("alt") or _scene_text(path, ctx.folders.drawings) or f"Drawing {src}"
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{escape(str(alt), quote=True)}" ', 1)
    svg = skip_offscreen(svg)  # skipped while off screen, as tall as when drawn (drawing/offscreen.py)
    caption = options.get("caption")
    # The download is a row of its own under the drawing, outside the caption, so that it is no
    # part of the figure's accessible name (the caption is); ldr-figures.js adds "Enlarge" to
    # the same row, so nothing moves when it arrives.
    href = escape(ctx.site_path("drawings/" + src), quote=True)
    tools = (f'<p class="ldr-figure-tools"><a class="ldr-figure-edit" href="{href}" download '
             f'title="{escape(EDIT_HOW, quote=True)}">{EDIT_TEXT}</a></p>')
    cap = f"<figcaption>{escape(str(caption))}</figcaption>" if caption else ""
    return f'<figure class="ldr-figure" id="figure-{ident}" data-ldr-zoom>{svg}{tools}{cap}</figure>'
