"""Measuring fidelity against Excalidraw's official exporter (tests and the bench use this).

* ``standalone(svg)``: our SVG with the committed fonts inlined as data URLs, so it rasterises
  offline exactly as the site shows it (the site itself links ``ldr-drawing.css`` instead).
* ``snap(svgs, scale)``: SVG -> PNG with headless Debian chromium through Playwright for Python,
  the same page and screenshot as the oracle's ``snap.mjs``.
* ``fscore(ref_png, cand_png)``: the ink F-score of the oracle's ``compare.py`` (run as is).

None of this is used by the build.
"""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from pathlib import Path

from build_hooks.drawing.fonts import FAMILIES, FONTS_DIR

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


def standalone(svg: str) -> str:
    """Inline the fonts a rendered SVG names, as ``@font-face`` data URLs in its ``<defs>``."""
    used = set(re.findall(r'font-family="([^",]+)', svg))
    rules = []
    for fam in FAMILIES.values():
        if fam.name not in used and not (fam.id == 9 and "Helvetica" in used):
            continue
        for file, urange in fam.files:
            data = base64.b64encode((FONTS_DIR / file).read_bytes()).decode()
            rule = f'@font-face {{ font-family: "{fam.name}"; src: url(data:font/woff2;base64,{data}); '
            rules.append(rule + (f"unicode-range: {urange}; }}" if urange else "}"))
    if not rules:
        return svg
    return svg.replace("<defs>", "<defs><style>" + "\n".join(rules) + "</style>", 1)


def snap(svgs: list[Path], scale: float = 1, bg: str = "white") -> list[Path]:
    """Rasterise each SVG file to a PNG beside it (``X.svg`` -> ``X.png``)."""
    from playwright.sync_api import sync_playwright

    outs = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(device_scale_factor=scale).new_page()
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("data:") else r.abort())
            for f in svgs:
                svg = Path(f).read_text(encoding="utf-8")
                page.set_content(f'<!doctype html><html><body style="margin:0;background:{bg}">'
                                 f'<div id="w" style="display:inline-block">{svg}</div></body></html>')
                page.evaluate("() => document.fonts.ready")
                page.wait_for_timeout(100)
                out = Path(f).with_suffix(".png")
                page.locator("#w").screenshot(path=str(out))
                outs.append(out)
        finally:
            browser.close()
    return outs


def fscore(compare_py: Path, ref_png: Path, cand_png: Path, tol: int = 1) -> float:
    """Run the oracle's ``compare.py`` and return its F."""
    out = subprocess.run([sys.executable, str(compare_py), str(ref_png), str(cand_png), "--tol", str(tol)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"F=([0-9.]+)", out)
    if not m:
        raise RuntimeError(f"compare.py printed no F-score: {out!r}")
    return float(m.group(1))


# --- the same ink F-score, with an alignment that survives Pillow >= 7 -------------------------
# compare.py's coarse search downsizes with Image.resize's default filter, which was NEAREST when it
# was written and is BICUBIC since Pillow 7: thin strokes then never reach 255 at 1/4 scale, the
# overlap count is 0 for every shift and the search keeps the first one (-40, -40). On sparse
# scenes it even scores an image against itself at 0.15. Here the coarse maps are thresholded
# (any ink in the 4x4 block), the zero shift is always a candidate, and everything else (ink
# threshold, tolerance, precision/recall/F) is compare.py's.

def _ink(path: Path, thresh: int = 40):
    from PIL import Image, ImageChops

    im = Image.open(path).convert("RGB")
    bg = im.getpixel((0, 0))
    diff = ImageChops.difference(im, Image.new("RGB", im.size, bg)).convert("L")
    return diff.point(lambda v: 255 if v > thresh else 0)


def _count(m) -> int:
    return m.histogram()[255]


def _place(m, dx: int, dy: int, size):
    from PIL import Image

    out = Image.new("L", size, 0)
    out.paste(m, (dx, dy))
    return out


def ink_fscore(ref_png: Path, cand_png: Path, tol: int = 1, search: int = 40) -> dict:
    from PIL import ImageChops, ImageFilter

    a, b = _ink(ref_png), _ink(cand_png)
    size = (max(a.width, b.width) + 2 * search, max(a.height, b.height) + 2 * search)
    A = _place(a, search, search, size)

    def small(m):
        return m.resize((m.width // 4, m.height // 4)).point(lambda v: 255 if v else 0)

    As = small(A).filter(ImageFilter.MaxFilter(3))
    bs = small(b)
    small_size = (size[0] // 4, size[1] // 4)
    best: tuple[int, int, int] | None = None
    for dy in range(0, 2 * search + 1, 4):
        for dx in range(0, 2 * search + 1, 4):
            ov = _count(ImageChops.multiply(As, _place(bs, dx // 4, dy // 4, small_size)))
            if best is None or ov > best[0] or (ov == best[0] and (dx, dy) == (search, search)):
                best = (ov, dx, dy)
    assert best is not None  # the search ran at least once (search >= 0)
    _, bx, by = best
    b3 = b.filter(ImageFilter.MaxFilter(3))
    best = None
    for dy in range(by - 4, by + 5):
        for dx in range(bx - 4, bx + 5):
            ov = _count(ImageChops.multiply(A, _place(b3, dx, dy, size)))
            if best is None or ov > best[0]:
                best = (ov, dx, dy)
    assert best is not None  # nine offsets were tried
    _, dx, dy = best
    B = _place(b, dx, dy, size)
    k = 2 * tol + 1
    Ad, Bd = A.filter(ImageFilter.MaxFilter(k)), B.filter(ImageFilter.MaxFilter(k))
    na, nb = _count(A), _count(B)
    recall = _count(ImageChops.multiply(A, Bd)) / max(na, 1)
    precision = _count(ImageChops.multiply(B, Ad)) / max(nb, 1)
    f = 2 * precision * recall / max(precision + recall, 1e-9)
    return {"shift": (dx - search, dy - search), "recall": recall, "precision": precision, "f": f}
