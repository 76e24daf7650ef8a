"""The drawing fonts cut to the characters a site's drawings use (build_hooks/drawing/subset.py)."""

from __future__ import annotations

import io
import json

import pytest
from fontTools.ttLib import TTFont

from build_hooks.core import cache
from build_hooks.drawing import subset
from build_hooks.drawing.fonts import FONTS_DIR


def scene(path, *texts, family=5, deleted=()):
    elements = [{"type": "text", "text": t, "fontFamily": family, "id": f"t{i}"} for i, t in enumerate(texts)]
    elements += [{"type": "text", "text": t, "isDeleted": True, "id": f"d{i}"} for i, t in enumerate(deleted)]
    elements.append({"type": "rectangle", "id": "r"})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"type": "excalidraw", "elements": elements}))


def glyphs(data: bytes) -> set[str]:
    return {chr(code) for code in TTFont(io.BytesIO(data)).getBestCmap()}


@pytest.fixture
def project(tmp_path):
    cache.clear_memory()
    (tmp_path / "drawings").mkdir()
    return tmp_path


def test_the_text_of_every_scene_and_its_families(project):
    scene(project / "drawings" / "a.excalidraw", "Hi\nyou", deleted=["Zz"])
    scene(project / "drawings" / "deep" / "b.excalidraw", "ok!", family=8)
    (project / "drawings" / "broken.excalidraw").write_text("{not json")
    # a lone surrogate (the figure that shows it is a drawing error) is no character to cut for
    (project / "drawings" / "odd.excalidraw").write_text(
        '{"elements": [{"type": "text", "text": "o\\ud800k", "fontFamily": 5}]}')
    assert subset.scene_text(project / "drawings") == ("!Hikouy", [5, 8])
    assert subset.cut_faces(project / "drawings", project)  # and no error


def test_a_face_is_cut_to_the_drawings_text_and_named_by_its_bytes(project):
    scene(project / "drawings" / "a.excalidraw", "Floors: 8")
    [(shipped, published, data)] = subset.cut_faces(project / "drawings", project)
    assert shipped == "Excalifont-latin.woff2"  # the one face those characters fall in
    assert published.startswith("Excalifont-latin.") and published.endswith(".woff2")
    assert glyphs(data) >= set("Floors: 8") and "Z" not in glyphs(data)
    full = (FONTS_DIR / shipped).read_bytes()
    assert len(data) < len(full) / 3
    assert glyphs(data) < glyphs(full)
    # the same text gives the same bytes and name, from the cache, without cutting again
    cache.clear_memory()
    called = []
    real = subset.cut
    subset.cut = lambda *a: called.append(a) or real(*a)
    try:
        assert subset.cut_faces(project / "drawings", project) == [(shipped, published, data)]
    finally:
        subset.cut = real
    assert called == []
    # a new character makes a new cut with another name
    scene(project / "drawings" / "b.excalidraw", "Zebra")
    [(_, renamed, more)] = subset.cut_faces(project / "drawings", project)
    assert renamed != published and "Z" in glyphs(more)


def test_no_drawing_no_cut(project):
    assert subset.cut_faces(project / "drawings", project) == []
    assert subset.cut_faces(project / "nowhere", project) == []


def test_the_page_names_the_cut_face(project):
    from build_hooks.drawing.fonts import page_fonts

    page = ('<html><head></head><body><svg class="ldr-drawing" font-family="Excalifont, Xiaolai, cursive">'
            "<text>hi</text></svg></body></html>")
    html = page_fonts(page, "../fonts/", {"Excalifont-latin.woff2": "Excalifont-latin.0123456789.woff2"})
    assert 'url("../fonts/Excalifont-latin.0123456789.woff2")' in html
    assert '<link rel="preload" href="../fonts/Excalifont-latin.0123456789.woff2"' in html
    assert 'url("../fonts/Excalifont-latin-ext.woff2")' in html  # a face not cut keeps its file
