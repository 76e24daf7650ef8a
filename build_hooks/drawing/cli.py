"""``ldr draw IN.excalidraw OUT.svg [--dark] [--frame NAME] [--raw] [--fonts embed|link|none]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from build_hooks.core.errors import LdrError


def draw_command(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ldr draw", description="Render an Excalidraw scene to a standalone SVG.")
    ap.add_argument("input", type=Path, help="the .excalidraw scene")
    ap.add_argument("output", type=Path, help="where to write the SVG ('-' for stdout)")
    ap.add_argument("--dark", action="store_true", help="the dark-scheme rendering")
    ap.add_argument("--frame", metavar="NAME", help="render only this frame")
    ap.add_argument("--raw", action="store_true", help="keep the scene's colours (no palette variables)")
    ap.add_argument("--fonts", choices=("embed", "link", "none"), default="embed",
                    help="embed the fonts the text uses (default), link to them under --font-url, "
                         "or leave them out (the site declares them in ldr-drawing.css)")
    ap.add_argument("--font-url", default="fonts/", metavar="PREFIX",
                    help="where --fonts link finds the woff2 files (default: fonts/ beside the SVG)")
    args = ap.parse_args(argv)
    from build_hooks.drawing.fonts import with_fonts
    from build_hooks.drawing.render import render_svg

    try:
        svg = render_svg(args.input, dark=args.dark, frame=args.frame, palette=not args.raw,
                         source=args.input.name)
    except LdrError as exc:
        print(f"ldr draw: {exc}", file=sys.stderr)
        return 1
    svg = with_fonts(svg, args.fonts, args.font_url)
    if str(args.output) == "-":
        sys.stdout.write(svg + "\n")
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(svg + "\n", encoding="utf-8")
    return 0
