"""Regressions found on real public scenes: the legacy ``font`` field, the roughness of small
arrows, and standalone SVGs from ``ldr draw`` that carry their fonts."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys

from drawing_support import ROOT, el, scene

from build_hooks.drawing import render_svg
from build_hooks.drawing.fonts import FONTS_DIR, families_in, with_fonts
from build_hooks.drawing.scene import restore
from build_hooks.drawing.shapes import adjust_roughness, rough_options


def _text(**kw) -> dict:
    raw = el("text", **kw)
    for key in ("fontFamily", "fontSize"):
        if key not in kw:
            raw.pop(key)
    return restore(scene(raw))["elements"][0]


def test_legacy_font_field_gives_family_and_size():
    out = _text(font="28px Virgil")
    assert out["fontFamily"] == 1 and out["fontSize"] == 28.0
    assert "font" not in out
    assert _text(font="16px Cascadia")["fontFamily"] == 3
    assert _text(font="20px Helvetica")["fontFamily"] == 2


def test_legacy_font_field_wins_over_family_and_unknown_name_gives_default():
    # The app's restore reads `font` whenever it is present, over fontFamily and fontSize.
    out = _text(font="12px Virgil", fontFamily=3, fontSize=40)
    assert (out["fontFamily"], out["fontSize"]) == (1, 12.0)
    assert _text(font="20px Comic Sans MS")["fontFamily"] == 5  # not a family the app knows
    assert _text(font="huge Virgil")["fontSize"] == 20  # unparsable size: keep the default


def test_legacy_font_is_drawn_in_that_font():
    svg = render_svg(scene(_raw_text(font="20px Virgil")), palette=False)
    assert 'font-family="Virgil' in svg
    assert 'font-family="Excalifont' not in svg


def _raw_text(**kw) -> dict:
    raw = el("text", **kw)
    raw.pop("fontFamily")
    return raw


def test_small_rounded_arrow_gets_the_reduced_roughness_of_the_app():
    small = {"type": "arrow", "width": 30, "height": 16, "roughness": 2, "roundness": {"type": 2}}
    assert adjust_roughness(small) == 1.0  # halved: arrows cannot change roundness in the app
    box = {"type": "rectangle", "width": 30, "height": 16, "roughness": 2, "roundness": {"type": 3}}
    assert adjust_roughness(box) == 2  # a rounded box of that size keeps it
    long_arrow = {"type": "arrow", "width": 80, "height": 10, "roughness": 2, "roundness": {"type": 2}}
    assert adjust_roughness(long_arrow) == 2


def test_small_rounded_arrow_is_drawn_with_the_reduced_roughness():
    """What reaches Rough.js: the options built for the arrow's shaft."""
    arrow = restore(scene(el("arrow", width=40, height=16, points=[[0, 0], [40, 16]], roughness=2,
                              roundness={"type": 2})))["elements"][0]
    assert rough_options(arrow).roughness == 1.0


def test_standalone_svg_embeds_only_the_fonts_its_text_uses():
    svg = render_svg(scene(_raw_text(font="20px Virgil")), palette=False)
    assert [f.name for f in families_in(svg)] == ["Virgil"]
    out = with_fonts(svg, "embed")
    face = re.search(r'@font-face \{ font-family: "Virgil"; src: url\("data:font/woff2;base64,([^"]+)"\)', out)
    assert face, out[:400]
    assert base64.b64decode(face.group(1)) == (FONTS_DIR / "Virgil.woff2").read_bytes()
    assert "Excalifont" not in out.split("</style>")[0]
    linked = with_fonts(svg, "link", "../fonts/")
    assert 'url("../fonts/Virgil.woff2")' in linked
    assert with_fonts(svg, "none") == svg


def test_ldr_draw_writes_an_svg_with_its_fonts(tmp_path):
    path = tmp_path / "old.excalidraw"
    path.write_text(json.dumps(scene(_raw_text(font="20px Virgil", text="old", originalText="old"))))
    out = tmp_path / "old.svg"
    run = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "draw", str(path), str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "data:font/woff2;base64," in text and 'font-family="Virgil' in text
    bare = tmp_path / "bare.svg"
    run = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "draw", str(path), str(bare),
                          "--fonts", "none"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "@font-face" not in bare.read_text()
