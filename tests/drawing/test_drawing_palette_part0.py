"""The palette mapping, and Part 0's committed drawings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from drawing_support import el, scene

from build_hooks.drawing import render_svg
from build_hooks.drawing.palette import Palette, dark_variant

ROOT = Path(__file__).resolve().parents[2]
PART0 = ["floors", "territory", "two-clocks", "saved-tensors"]


@pytest.mark.parametrize("color,role", [
    ("#1e1e1e", "ink"), ("#000000", "ink"), ("#f08c00", "subject"), ("#e8590c", "subject"),
    ("#fd7e14", "subject"), ("#ffc078", "subject-soft"), ("#868e96", "context"), ("#495057", "context"),
    ("#adb5bd", "context"), ("#e9ecef", "context-soft"), ("#ced4da", "context-soft"), ("#ffffff", "paper"),
    ("#FFF", "paper"),
])
def test_palette_roles(color, role):
    assert Palette().paint(color).startswith(f"var(--ldr-{role}, ")


def test_unmapped_colour_keeps_value_and_gets_a_dark_variable():
    pal = Palette()
    assert pal.paint("#a5d8ff") == "var(--ldr-c-a5d8ff, #a5d8ff)"
    rules = pal.style_rules("svg.ldr-drawing")
    assert rules.startswith('[data-md-color-scheme="slate"] svg.ldr-drawing {')
    assert f"--ldr-c-a5d8ff: {dark_variant('#a5d8ff')};" in rules


def test_dark_variant_flips_lightness_and_keeps_hue_family():
    def lum(h):
        return sum(int(h[i:i + 2], 16) for i in (1, 3, 5))

    for c in ("#a5d8ff", "#ffec99", "#b2f2bb", "#1971c2"):
        d = dark_variant(c)
        assert (lum(d) < lum(c)) == (lum(c) > 3 * 128)
    light_blue, dark_blue = dark_variant("#a5d8ff"), "#a5d8ff"
    assert int(light_blue[5:7], 16) >= int(light_blue[1:3], 16)  # still bluer than red
    assert dark_variant("#ffffff") == "#121212" and dark_blue


def test_palette_off_keeps_raw_colours_and_dark_standalone_resolves():
    s = scene(el("rectangle", strokeColor="#1e1e1e", backgroundColor="#a5d8ff", fillStyle="solid"))
    raw = render_svg(s, palette=False)
    assert 'stroke="#1e1e1e"' in raw and 'fill="#a5d8ff"' in raw and "var(" not in raw
    dark = render_svg(s, dark=True)
    assert "var(--ldr-ink, #e6e9f2)" in dark and f"var(--ldr-c-a5d8ff, {dark_variant('#a5d8ff')})" in dark
    assert "invert" not in dark and "filter" not in dark


def test_raw_dark_flips_each_colour_without_a_filter():
    svg = render_svg(scene(el("rectangle", strokeColor="#1e1e1e")), palette=False, dark=True)
    assert f'stroke="{dark_variant("#1e1e1e")}"' in svg and "filter" not in svg


def test_paper_background_is_left_to_the_page_but_kept_in_dark_standalone():
    s = scene(el("rectangle"))
    assert "<rect x=\"0\" y=\"0\"" not in render_svg(s)
    assert 'style="fill:var(--ldr-paper, #1a1c23)"' in render_svg(s, dark=True)
    assert 'fill="#ffffff"' in render_svg(s, palette=False)
    tinted = render_svg(scene(el("rectangle"), bg="#f5faff"))
    assert 'style="fill:var(--ldr-c-f5faff, #f5faff)"' in tinted  # a coloured canvas stays


def test_text_fill_uses_the_palette():
    svg = render_svg(scene(el("text", strokeColor="#f08c00", text="subject")))
    assert re.search(r'<text [^>]*style="fill:var\(--ldr-subject, #b4420a\); white-space: pre;"', svg)


def test_light_neutral_fill_is_a_wash_of_ink_soft():
    box = el("rectangle", backgroundColor="#f8f9fa", fillStyle="solid", opacity=50)
    svg = render_svg(scene(box))
    assert re.search(r'<path d="[^"]*" stroke="none" stroke-width="0" '
                     r'style="fill:var\(--ldr-ink-soft, #4f5d7a\); fill-opacity:0.06"', svg)
    hatch = render_svg(scene(el("rectangle", backgroundColor="#f1f3f5", fillStyle="hachure")))
    assert "stroke:var(--ldr-ink-soft, #4f5d7a); stroke-opacity:0.12" in hatch


@pytest.mark.parametrize("name", PART0)
def test_part0_drawing_is_a_real_scene(name):
    path = ROOT / "drawings" / f"{name}.excalidraw"
    data = json.loads(path.read_text())
    assert data["type"] == "excalidraw" and data["version"] == 2
    texts = [e for e in data["elements"] if e["type"] == "text"]
    assert texts and all(t["fontFamily"] == 5 for t in texts)  # Excalifont
    ids = [e["id"] for e in data["elements"]]
    assert len(ids) == len(set(ids))
    for e in data["elements"]:
        for b in e.get("boundElements") or []:
            assert b["id"] in ids
        if e["type"] == "text" and e.get("containerId"):
            assert e["containerId"] in ids


@pytest.mark.parametrize("name", PART0)
def test_part0_drawing_uses_only_the_series_palette(name):
    svg = render_svg(ROOT / "drawings" / f"{name}.excalidraw")
    assert "--ldr-c-" not in svg  # every colour maps to a role
    assert "var(--ldr-subject" in svg and "var(--ldr-ink" in svg and "var(--ldr-context" in svg


EXPECTED_TEXT = {
    "floors": ["Python API", "The boundary", "Dispatcher", "Autograd", "Kernel", "Memory",
               "Device runtime", "The chip"],
    "territory": ["Python API", "The boundary", "Dispatcher", "kernels, per backend", "allocators and runtimes",
                  "dispatch path:"],
    "two-clocks": ["Python's clock", "the device's clock", "matmul", ".item()", "waiting"],
    "saved-tensors": ["SumBackward0", "AddmmBackward0", "ReluBackward0", "AccumulateGrad", "saved: x",
                      "saved: result"],
}


@pytest.mark.parametrize("name", PART0)
def test_part0_drawing_says_what_the_chapter_needs(name):
    svg = render_svg(ROOT / "drawings" / f"{name}.excalidraw").replace("&#x27;", "'").replace("&#39;", "'")
    for needle in EXPECTED_TEXT[name]:
        assert needle in svg, needle


def test_floors_are_in_order_top_to_bottom():
    data = json.loads((ROOT / "drawings" / "floors.excalidraw").read_text())
    ys = {t["text"].split("  ", 1)[1]: t["y"] for t in data["elements"]
          if t["type"] == "text" and re.match(r"^\d  ", t["text"])}
    order = sorted(ys, key=ys.get)
    assert order == EXPECTED_TEXT["floors"]


def test_saved_tensors_are_dashed():
    data = json.loads((ROOT / "drawings" / "saved-tensors.excalidraw").read_text())
    by_id = {e["id"]: e for e in data["elements"]}
    saved = [by_id[t["containerId"]] for t in data["elements"]
             if t["type"] == "text" and t["text"].startswith("saved:")]
    assert len(saved) == 4 and all(s["strokeStyle"] == "dashed" for s in saved)


def test_each_floor_has_one_name_in_drawing_meter_and_headings():
    """The floors drawing, the depth meter (data/floors.yml) and Part 0's floor headings
    call every floor by the same name."""
    import re

    import yaml

    floors = yaml.safe_load((ROOT / "data" / "floors.yml").read_text())["floors"]
    svg = render_svg(ROOT / "drawings" / "floors.excalidraw").replace("&#x27;", "'")
    drawn = re.findall(r">(\d)  ([^<]+)</text>", svg)
    assert [name for _, name in drawn] == [f["label"] for f in floors]
    chapter = (ROOT / "docs" / "part-00-the-map.md").read_text()
    first_heading = {}
    for title, floor in re.findall(r'^## (.+?) \{ data-floor="([a-z]+)" \}$', chapter, re.M):
        first_heading.setdefault(floor, title)
    assert first_heading == {f["id"]: f["label"] for f in floors}
