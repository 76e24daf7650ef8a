"""Scenes have sane bounds (drawing/limits.py): NaN, infinities and absurd magnitudes, too many
elements or points, and fields of the wrong type are a DrawingError naming the scene, the element
(id and type) and the field; nothing from a scene becomes markup unescaped; a figure embedding a
bad scene fails the build at the page and line of its fence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from drawing_support import el, scene

from build_hooks.core.errors import DirectiveError, DrawingError
from build_hooks.directives.context import Context
from build_hooks.drawing import render_svg
from build_hooks.drawing.figure import render_fence
from build_hooks.drawing.limits import MAX_ELEMENTS, MAX_POINTS

ROOT = Path(__file__).resolve().parents[2]
PIN_LINE = next(line for line in (ROOT / "pyproject.toml").read_text().splitlines()
                if line.strip().startswith('"torch=='))
BOX = '{"id": "r1", "type": "rectangle", "x": 0, "y": 0, "width": 50, "height": 50, %s}'


def _scene_text(*elements: str) -> str:
    """Scene JSON written by hand, so that it can hold what json.dumps would never write."""
    return '{"type": "excalidraw", "elements": [' + ", ".join(elements) + "]}"


def _error(text: str) -> str:
    with pytest.raises(DrawingError) as exc:
        render_svg(text, source="drawings/t.excalidraw")
    return str(exc.value)


@pytest.mark.parametrize("field,literal,shown", [
    ("x", "NaN", "NaN"),                      # Python's json reads the NaN literal
    ("y", "Infinity", "infinity"),
    ("width", "-Infinity", "-infinity"),
    ("height", "1e400", "infinity"),          # overflows to inf while parsing
    ("x", "1e308", "1e+308"),                 # finite, but absurd
    ("y", "1" + "0" * 400, "infinity"),       # an integer too large for a float
    ("angle", "NaN", "NaN"),
    ("strokeWidth", "1e9", "1000000000.0"),
    ("opacity", "Infinity", "infinity"),
    ("seed", "NaN", "NaN"),
    ("roughness", "-1e12", "-1000000000000.0"),
])
def test_non_finite_and_absurd_numbers_name_scene_element_and_field(field, literal, shown):
    message = _error(_scene_text(BOX.replace(f'"{field}": 0, ', "").replace(f'"{field}": 50, ', "")
                                 % f'"{field}": {literal}'))
    assert message.startswith("drawings/t.excalidraw: element 'r1' (rectangle) has ")
    assert f"{field} = {shown}" in message


def test_points_pressures_and_font_sizes_are_bounded():
    arrow = '{"id": "a1", "type": "arrow", "x": 0, "y": 0, "points": [[0, 0], [NaN, 3]]}'
    assert "element 'a1' (arrow) has points[1][0] = NaN" in _error(_scene_text(arrow))
    line = '{"id": "l1", "type": "line", "x": 0, "y": 0, "points": [[0, 0], [1e7, 3]]}'
    assert "element 'l1' (line) has points[1][0] = 10000000.0, outside the range -1,000,000 to 1,000,000" \
        in _error(_scene_text(line))
    draw = '{"id": "f1", "type": "freedraw", "x": 0, "y": 0, "points": [[0, 0], [1, 1]], "pressures": [0.5, NaN]}'
    assert "element 'f1' (freedraw) has pressures[1] = NaN" in _error(_scene_text(draw))
    legacy = '{"id": "t1", "type": "text", "x": 0, "y": 0, "text": "a", "font": "NaNpx Virgil"}'
    assert "element 't1' (text) has fontSize = NaN" in _error(_scene_text(legacy))
    huge = '{"id": "t2", "type": "text", "x": 0, "y": 0, "text": "a", "fontSize": 1e6}'
    assert "element 't2' (text) has fontSize = 1000000.0, outside the range" in _error(_scene_text(huge))


def test_element_and_point_counts_are_limited():
    many = json.dumps(scene(*(el("rectangle", id=f"r{i}") for i in range(MAX_ELEMENTS + 1))))
    assert f"{MAX_ELEMENTS + 1:,} elements, over the limit of {MAX_ELEMENTS:,}" in _error(many)
    stroke = el("freedraw", id="long", points=[[i % 100, i % 7] for i in range(MAX_POINTS + 1)])
    message = _error(json.dumps(scene(stroke)))
    assert f"element 'long' (freedraw) has {MAX_POINTS + 1:,} points, over the limit of {MAX_POINTS:,}" in message
    fine = el("freedraw", id="ok", points=[[i % 100, i % 7] for i in range(200)])
    assert "<svg" in render_svg(json.dumps(scene(fine)))


def test_json_that_python_cannot_hold_is_a_drawing_error():
    assert "not a scene Excalidraw writes" in _error('{"elements": [' * 50_000 + "]}" * 50_000)
    assert "not a scene Excalidraw writes" in _error(_scene_text(BOX % ('"seed": ' + "9" * 5000)))


def test_fields_that_reach_markup_must_have_their_type():
    image = el("image", id="i1", fileId="f", scale=['1" onload="alert(1)', 1])
    files = {"f": {"id": "f", "mimeType": "image/png", "dataURL": "data:image/png;base64,iVBORw0KGgo="}}
    assert "element 'i1' (image) has scale[0] = '1\" onload=\"alert(1)', which is not a number" \
        in _error(json.dumps(scene(image, files=files)))
    html_file = {"f": {"id": "f", "dataURL": "data:text/html,<script>alert(1)</script>"}}
    assert "embedded file 'f' has a dataURL that is not a data:image/ URL" \
        in _error(json.dumps(scene(el("image", id="i2", fileId="f"), files=html_file)))
    assert "element 't1' (text) has text = 42, which is not text" \
        in _error(json.dumps(scene(el("text", id="t1", text=42))))
    assert "element 'r1' (rectangle) has link = ['javascript:x'], which is not text" \
        in _error(json.dumps(scene(el("rectangle", id="r1", link=["javascript:x"]))))


def test_text_and_links_are_escaped_or_dropped():
    text = el("text", id="t", text='</text><script>alert(1)</script>', originalText="x", width=0)
    bad = el("rectangle", id="r", link="javascript:alert(1)")
    good = el("rectangle", id="g", x=200, link='https://example.org/?a=1&b="x"')
    svg = render_svg(json.dumps(scene(text, bad, good)))
    assert "<script" not in svg and "&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "javascript" not in svg
    assert """<a href='https://example.org/?a=1&amp;b="x"'>""" in svg


def test_a_figure_of_a_bad_scene_names_the_file(tmp_path, cache_dir):
    (tmp_path / "drawings").mkdir()
    (tmp_path / "drawings" / "nan.excalidraw").write_text(_scene_text(BOX % '"seed": 1').replace('"x": 0', '"x": NaN'))
    ctx = Context(root=tmp_path, page="index.md", base_url="")
    with pytest.raises(DirectiveError) as exc:
        render_fence({"src": "nan.excalidraw"}, ctx)
    assert str(exc.value) == ("figure: drawings/nan.excalidraw: element 'r1' (rectangle) has x = NaN, which is not "
                              "a finite number; set it to a number (or re-save the scene from Excalidraw)")


@pytest.mark.parametrize("literal,needle", [
    ("NaN", "has x = NaN, which is not a finite number"),
    ("1e308", "has x = 1e+308, outside the range -1,000,000 to 1,000,000"),
    ("1e400", "has x = infinity, which is not a finite number"),
])
def test_a_build_with_a_bad_scene_fails_at_the_figure_line(tmp_path, literal, needle):
    (tmp_path / "drawings").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "proofs").mkdir()
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "t"\nversion = "0"\ndependencies = [{PIN_LINE}]\n')
    (tmp_path / "mkdocs.yml").write_text("site_name: T\ntheme:\n  name: material\n  font: false\n"
                                         "plugins:\n  - ldr:\n      run: false\n")
    scene = _scene_text(BOX % '"seed": 1').replace('"x": 0', f'"x": {literal}')
    (tmp_path / "drawings" / "bad.excalidraw").write_text(scene)
    (tmp_path / "docs" / "index.md").write_text(textwrap.dedent("""\
        # Title

        Some prose.

        ```figure
        src: bad.excalidraw
        alt: A box
        ```
        """))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", LDR_CACHE_DIR=str(tmp_path / "cache"))
    for strict in (["--strict"], []):
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-d", "site", *strict], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode != 0, done.stderr
        assert f"docs/index.md:5: figure: drawings/bad.excalidraw: element 'r1' (rectangle) {needle}" in done.stderr
        assert "Traceback" not in done.stderr and "OverflowError" not in done.stderr
        assert not (tmp_path / "site" / "index.html").exists()


def test_ldr_draw_refuses_a_fifo_without_waiting(tmp_path):
    pipe = tmp_path / "pipe.excalidraw"
    os.mkfifo(pipe)
    done = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "draw", str(pipe),
                           str(tmp_path / "o.svg")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "ldr draw: pipe.excalidraw: a FIFO (named pipe); fix: replace it with a regular file" in done.stderr
    assert not (tmp_path / "o.svg").exists()
