"""restore(): the migrations the app applies to old files, and every bad-input error."""

from __future__ import annotations

import json

import pytest
from drawing_support import el, scene

from build_hooks.core.errors import DrawingError, LdrError
from build_hooks.drawing import render_svg
from build_hooks.drawing.scene import restore


def _one(raw: dict) -> dict:
    return restore(scene(raw))["elements"][0]


def test_draw_becomes_line():
    assert _one(el("draw", points=[[0, 0], [10, 10]]))["type"] == "line"


def test_stroke_sharpness_becomes_roundness():
    box = el("rectangle", strokeSharpness="round")
    del box["roundness"]
    arrow = el("arrow", strokeSharpness="round")
    del arrow["roundness"]
    sharp = el("diamond", strokeSharpness="sharp")
    del sharp["roundness"]
    assert _one(box)["roundness"] == {"type": 1}  # boxes: the legacy radius
    assert _one(arrow)["roundness"] == {"type": 2}
    assert _one(sharp)["roundness"] is None
    assert "strokeSharpness" not in _one(box)


def test_bound_element_ids_become_bound_elements():
    box = el("rectangle", boundElementIds=["a1", "a2"])
    del box["boundElements"]
    out = _one(box)
    assert out["boundElements"] == [{"id": "a1", "type": "arrow"}, {"id": "a2", "type": "arrow"}]
    assert "boundElementIds" not in out


def test_missing_font_family_and_line_height_get_defaults():
    t = el("text", text="a\nb", height=50, fontSize=20)
    del t["fontFamily"], t["lineHeight"]
    out = _one(t)
    assert out["fontFamily"] == 5  # Excalifont
    assert out["lineHeight"] == pytest.approx(1.25)  # 50px / 2 lines / 20px: the box it was drawn with
    new = el("text", text="x", height=0, fontFamily=6)
    del new["lineHeight"]
    assert _one(new)["lineHeight"] == 1.35  # Nunito's own


def test_deleted_elements_are_skipped():
    out = restore(scene(el("rectangle", id="keep"), el("rectangle", id="gone", isDeleted=True)))
    assert [e["id"] for e in out["elements"]] == ["keep"]
    svg = render_svg(scene(el("ellipse", isDeleted=True), el("rectangle")), palette=False)
    assert svg.count("<g ") == 1


def test_elements_without_ids_still_render():
    a = el("arrow")
    del a["id"]
    svg = render_svg(scene(a, el("rectangle", id=None)), palette=False)
    assert svg.count("<path") >= 3


def test_dot_arrowhead_is_the_circle_of_today():
    assert _one(el("arrow", startArrowhead="dot"))["startArrowhead"] == "circle"


def test_legacy_scene_renders_like_its_migrated_form():
    old = el("rectangle", id="r", strokeSharpness="round", seed=77)
    del old["roundness"]
    new = el("rectangle", id="r", roundness={"type": 1}, seed=77)
    assert render_svg(scene(old), palette=False) == render_svg(scene(new), palette=False)


# --- bad input: each message names the file, the element and the fix ---------------------------

def test_invalid_json_gives_line_and_column():
    with pytest.raises(DrawingError) as exc:
        render_svg('{"elements": [\n  {"type": "rectangle",,}\n]}', source="broken.excalidraw")
    msg = str(exc.value)
    assert "broken.excalidraw" in msg and "line 2, column" in msg and "fix the JSON" in msg


def test_unknown_element_type():
    with pytest.raises(DrawingError) as exc:
        render_svg(scene(el("hexagon", id="hex1")), source="shapes.excalidraw")
    msg = str(exc.value)
    assert "shapes.excalidraw" in msg and "'hex1'" in msg and "'hexagon'" in msg and "use one of" in msg


def test_missing_embedded_image():
    img = el("image", id="pic", fileId="nope", scale=[1, 1])
    with pytest.raises(DrawingError) as exc:
        render_svg(scene(img), source="photo.excalidraw")
    msg = str(exc.value)
    assert "photo.excalidraw" in msg and "'pic'" in msg and "'nope'" in msg and "re-insert the image" in msg


def test_unknown_font_family():
    with pytest.raises(DrawingError) as exc:
        render_svg(scene(el("text", id="t9", fontFamily=42)), source="fonts.excalidraw")
    msg = str(exc.value)
    assert "fonts.excalidraw" in msg and "'t9'" in msg and "42" in msg and "5 (Excalifont)" in msg


def test_non_numeric_fields_are_named():
    with pytest.raises(DrawingError) as exc:
        render_svg(scene(el("rectangle", id="r1", strokeWidth='2"><b>')), source="n.excalidraw")
    assert "n.excalidraw" in str(exc.value) and "'r1'" in str(exc.value) and "strokeWidth" in str(exc.value)
    with pytest.raises(DrawingError, match="malformed points"):
        render_svg(scene(el("line", id="l1", points=[[0, 0], ["a", 1]])), source="n.excalidraw")


def test_not_a_scene():
    with pytest.raises(DrawingError, match="not an Excalidraw scene"):
        render_svg(json.dumps({"hello": 1}), source="x.excalidraw")


def test_unknown_frame_lists_the_frames():
    fr = el("frame", id="F", name="stage")
    with pytest.raises(DrawingError) as exc:
        render_svg(scene(fr), frame="backstage", source="f.excalidraw")
    assert "'backstage'" in str(exc.value) and "'stage'" in str(exc.value)


def test_errors_are_ldr_errors():
    assert issubclass(DrawingError, LdrError)
