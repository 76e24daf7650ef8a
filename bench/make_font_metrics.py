"""Regenerate ``metrics.json`` (glyph advance widths) from the committed woff2 fonts.

Run at commit time only, when the fonts under ``build_hooks/assets/fonts/`` change:

    pip install --target /tmp/ftlib fonttools brotli
    PYTHONPATH=/tmp/ftlib python bench/make_font_metrics.py

The build never imports this module: it reads the JSON it writes, so the site needs neither
fontTools nor brotli. Widths are stored in font units per code point, with the units per em,
so ``text.measure`` can lay out bound text the way Excalidraw's canvas measurement does.
"""

from __future__ import annotations

import json
from pathlib import Path

from build_hooks.drawing.fonts import FAMILIES
from build_hooks.drawing.fonts import FONTS_DIR as FONTS

OUT = Path(__file__).resolve().parents[1] / "build_hooks" / "drawing" / "metrics.json"


def advances(files: list[str]) -> tuple[int, dict[str, int]]:
    from fontTools.ttLib import TTFont  # dev-time dependency only

    upm = 0
    widths: dict[str, int] = {}
    for name in files:
        font = TTFont(FONTS / name)
        upm = font["head"].unitsPerEm
        cmap = font.getBestCmap()
        hmtx = font["hmtx"]
        for code, glyph in cmap.items():
            widths.setdefault(str(code), hmtx[glyph][0])
    return upm, widths


def main() -> None:
    out = {}
    for fam in FAMILIES.values():
        if not fam.files:
            continue
        upm, widths = advances([f for f, _ in fam.files])
        out[fam.name] = {"unitsPerEm": upm, "advances": widths}
    OUT.write_text(json.dumps(out, separators=(",", ":"), sort_keys=True))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(out)} families)")


if __name__ == "__main__":
    main()
