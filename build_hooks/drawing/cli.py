"""``ldr draw IN.excalidraw OUT.svg [--dark] [--frame NAME] [--raw]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import LdrError


def draw_command(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ldr draw", description="Render an Excalidraw scene to a standalone SVG.")
    ap.add_argument("input", type=Path, help="the .excalidraw scene")
    ap.add_argument("output", type=Path, help="where to write the SVG ('-' for stdout)")
    ap.add_argument("--dark", action="store_true", help="the dark-scheme rendering")
    ap.add_argument("--frame", metavar="NAME", help="render only this frame")
    ap.add_argument("--raw", action="store_true", help="keep the scene's colours (no palette variables)")
    args = ap.parse_args(argv)
    from . import render_svg

    try:
        svg = render_svg(args.input, dark=args.dark, frame=args.frame, palette=not args.raw,
                         source=args.input.name)
    except LdrError as exc:
        print(f"ldr draw: {exc}", file=sys.stderr)
        return 1
    if str(args.output) == "-":
        sys.stdout.write(svg + "\n")
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(svg + "\n", encoding="utf-8")
    return 0
