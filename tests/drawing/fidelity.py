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
import warnings
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


def _torch():
    """torch, imported without its note that this venv has no NumPy (nothing here uses NumPy)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
        import torch
    return torch


def _bits(m):
    """A 0/255 ``L`` image as a boolean tensor (rows, columns)."""
    torch = _torch()
    return torch.frombuffer(bytearray(m.tobytes()), dtype=torch.uint8).view(m.height, m.width) != 0


def _overlap(a, b, dx: int, dy: int) -> int:
    """How many ink pixels ``a`` and ``b`` share with ``b`` placed at (dx, dy) on ``a``'s canvas,
    cut to it (as Image.paste cuts): the count of the product of ``a`` and the placed ``b``,
    without making the placed image."""
    height, width = a.shape
    y0, x0, y1, x1 = max(dy, 0), max(dx, 0), min(dy + b.shape[0], height), min(dx + b.shape[1], width)
    if y0 >= y1 or x0 >= x1:
        return 0
    return _count(a[y0:y1, x0:x1] & b[y0 - dy:y1 - dy, x0 - dx:x1 - dx])


def _grown(m, k: int):
    """ImageFilter.MaxFilter(k) of a boolean image: ink wherever ink lies within k // 2 pixels
    across and down (the window cut at the edges), as the OR of the image's k x k shifts."""
    r = k // 2
    out = m.clone()
    height, width = m.shape
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            out[max(dy, 0):height + min(dy, 0), max(dx, 0):width + min(dx, 0)] |= \
                m[max(-dy, 0):height + min(-dy, 0), max(-dx, 0):width + min(-dx, 0)]
    return out


def _place(m, dx: int, dy: int, size):
    from PIL import Image

    out = Image.new("L", size, 0)
    out.paste(m, (dx, dy))
    return out


def _count(m) -> int:
    """The ink pixels of a boolean image (count_nonzero: a sum of booleans widens them first)."""
    return int(_torch().count_nonzero(m))


def ink_fscore(ref_png: Path, cand_png: Path, tol: int = 1, search: int = 40) -> dict:
    """compare.py's F-score with the alignment above. Pillow reads and thresholds the images and
    makes the coarse maps; torch counts the overlaps of the two searches, the 441 coarse and 81
    fine shifts (Pillow's placing and multiplying a full canvas for each took 7 s on a 3740 x 4506
    scene). ``test_the_fast_overlap_is_pillows`` holds the two ways to the same counts."""
    from PIL import ImageFilter

    a, b = _ink(ref_png), _ink(cand_png)
    size = (max(a.width, b.width) + 2 * search, max(a.height, b.height) + 2 * search)
    canvas = _place(a, search, search, size)

    def small(m):
        return m.resize((m.width // 4, m.height // 4)).point(lambda v: 255 if v else 0)

    As, bs = _bits(small(canvas).filter(ImageFilter.MaxFilter(3))), _bits(small(b))
    best: tuple[int, int, int] | None = None
    for dy in range(0, 2 * search + 1, 4):
        for dx in range(0, 2 * search + 1, 4):
            ov = _overlap(As, bs, dx // 4, dy // 4)
            if best is None or ov > best[0] or (ov == best[0] and (dx, dy) == (search, search)):
                best = (ov, dx, dy)
    assert best is not None  # the search ran at least once (search >= 0)
    _, bx, by = best
    A, b3 = _bits(canvas), _grown(_bits(b), 3)
    best = None
    for dy in range(by - 4, by + 5):
        for dx in range(bx - 4, bx + 5):
            ov = _overlap(A, b3, dx, dy)
            if best is None or ov > best[0]:
                best = (ov, dx, dy)
    assert best is not None  # nine offsets were tried
    _, dx, dy = best
    B = _bits(_place(b, dx, dy, size))
    k = 2 * tol + 1
    Ad, Bd = _grown(A, k), _grown(B, k)
    na, nb = _count(A), _count(B)
    recall = _count(A & Bd) / max(na, 1)
    precision = _count(B & Ad) / max(nb, 1)
    f = 2 * precision * recall / max(precision + recall, 1e-9)
    return {"shift": (dx - search, dy - search), "recall": recall, "precision": precision, "f": f}

