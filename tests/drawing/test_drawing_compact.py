"""The page's copy of a drawing (drawing/compact.py): fewer elements and bytes, the same picture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from drawing_support import el, scene

from build_hooks.directives.context import Context
from build_hooks.drawing import render_svg
from build_hooks.drawing.compact import compact, path_data, relative
from build_hooks.drawing.figure import render_fence
from build_hooks.drawing.fonts import FAMILIES, page_fonts

ROOT = Path(__file__).resolve().parents[2]
DRAWINGS = sorted((ROOT / "drawings").glob("*.excalidraw"))


def _elements(svg: str) -> list[str]:
    return re.findall(r"<([a-zA-Z]+)\b", svg)


def _texts(svg: str) -> list[str]:
    return [t for t in re.findall(r"<text\b[^>]*>([^<]*)</text>", svg) if t]  # a blank line draws nothing


def test_path_data_is_moved_and_rounded():
    assert path_data("M16 0 C1.21 -2.26, 3 4.7, 5 6 L0.4 -0.4", 10, 20) == "M26 20C11 18 13 25 15 26L10 20"
    assert path_data("M1.26,2 Q3,4 5,6 L1,2 Z", digits=1) == "M1.3 2Q3 4 5 6L1 2Z"
    assert path_data("M0 0 a 1 1 0 0 1 2 2", 5, 5) is None  # an arc (or any relative command) is not moved


def test_relative_paths_reach_the_same_points():
    assert relative("M16 0C114 1 217 2 402 0C410 2 419 4 418 16M0 0L10 10 20 20Z") == \
        "M16 0c98 1 201 2 386 0c8 2 17 4 16 16M0 0l10 10 10 10z"
    assert relative("M1.3 2Q3 4 5 6L1 2Z", digits=1) == "M1.3 2q1.7 2 3.7 4l-4-4z"
    assert relative("M0 0A1 1 0 0 1 2 2") is None


def _mixed() -> dict:
    box = el("rectangle", id="b", x=10, y=10, boundElements=[{"type": "text", "id": "t"}])
    label = el("text", id="t", containerId="b", text="inside", x=30, y=27, width=40, height=25)
    arrow = el("arrow", id="a", x=200, y=0, boundElements=[{"type": "text", "id": "l"}])
    alabel = el("text", id="l", containerId="a", text="go", width=20, height=25)
    turned = el("rectangle", id="r", x=0, y=200, angle=0.5)
    note = el("text", id="n", text="a  note", x=0, y=300, width=60, height=25)
    return scene(box, label, arrow, alabel, turned, note)


@pytest.mark.parametrize("palette", [True, False])
def test_groups_that_only_place_are_unwrapped_and_rotated_ones_stay(palette):
    before = render_svg(_mixed(), palette=palette)
    after = compact(before)
    assert _texts(after) == _texts(before)  # every label, its spaces kept, in the same order
    assert after.count("<path") == before.count("<path")
    assert len(_elements(after)) < len(_elements(before))
    assert re.findall(r"rotate\((?!0 )", after) == re.findall(r"rotate\((?!0 )", before)  # the turned box
    assert "rotate(0 " not in after and 'direction="ltr"' not in after and "white-space" not in after
    assert "mask=" in after and "<mask" in after  # the arrow's label still cuts its line
    assert len(after.encode()) < 0.8 * len(before.encode())


def test_text_moves_with_its_group():
    before = render_svg(scene(el("text", text="hi", x=40, y=50, width=20, height=25)), palette=False)
    after = compact(before)
    x0, y0 = (float(v) for v in re.search(r'translate\(([-\d.]+) ([-\d.]+)\)', before).groups())
    tx, ty = (float(v) for v in re.search(r'<text x="([-\d.]+)" y="([-\d.]+)"', before).groups())
    x1, y1 = (float(v) for v in re.search(r'<text x="([-\d.]+)" y="([-\d.]+)"', after).groups())
    assert (x1, y1) == pytest.approx((x0 + tx, y0 + ty), abs=0.01)
    assert "<g" not in after


def test_markup_that_is_not_one_svg_is_left_alone():
    assert compact("<svg><g></svg>") == "<svg><g></svg>"
    assert compact("<p>no</p>") == "<p>no</p>"


@pytest.mark.parametrize("path", DRAWINGS, ids=lambda p: p.stem)
def test_every_drawing_of_the_series_keeps_its_text_and_strokes_in_fewer_elements(path):
    before = render_svg(path)
    after = compact(before)
    assert _texts(after) == _texts(before)
    assert after.count("<path") == before.count("<path")
    assert len(_elements(after)) <= 0.8 * len(_elements(before)), path.name
    assert not re.search(r'<g transform="translate\([^)]*\)">', after)  # nothing left that only places


def test_the_figure_fence_puts_the_compact_copy_on_the_page(tmp_path, cache_dir):
    (tmp_path / "drawings").mkdir()
    (tmp_path / "drawings" / "mixed.excalidraw").write_text(json.dumps(_mixed()))
    html = render_fence({"src": "mixed.excalidraw", "alt": "Mixed"}, Context(root=tmp_path, page="p.md"))
    assert '<svg role="img" aria-label="Mixed" ' in html and 'class="ldr-drawing"' in html
    assert "rotate(0 " not in html and 'direction="ltr"' not in html
    assert _texts(html) == ["inside", "go", "a  note"]


EXCALIFONT = next(f for f in FAMILIES.values() if f.name == "Excalifont")


def test_a_page_declares_and_preloads_the_fonts_its_drawings_name_and_no_other():
    # the faces are declared in the page's head (not in the stylesheet, which instant navigation
    # reloads), every face of each family a drawing names and of no other family; the Latin one
    # (the first listed) is asked for beside the stylesheet instead of after it
    page = ('<html><head><title>t</title></head><body><svg class="ldr-drawing" '
            'font-family="Excalifont, Xiaolai, Segoe UI Emoji, cursive"><text>hi</text></svg>'
            '<svg class="ldr-drawing"><text font-family="Excalifont, Xiaolai, cursive">again</text></svg>'
            '</body></html>')
    html = page_fonts(page, "../assets/ldr/fonts/")
    head = html[:html.index("</head>")]
    links = re.findall(r"<link [^>]*>", html)
    assert links == ['<link rel="preload" href="../assets/ldr/fonts/Excalifont-latin.woff2" as="font" '
                     'type="font/woff2" crossorigin>']
    assert links[0] in head
    faces = re.findall(r'@font-face \{ font-family: "([^"]+)"; src: url\("([^"]+)"\)', head)
    assert {family for family, _ in faces} == {"Excalifont"}
    assert [url for _, url in faces] == [f"../assets/ldr/fonts/{f}" for f, _ in EXCALIFONT.files]
    assert head.count("<style>") == 1 and "unicode-range: U+0000-00FF" in head
    for _, url in faces:
        assert (ROOT / "build_hooks" / "assets" / "fonts" / url.rsplit("/", 1)[1]).is_file()
    plain = "<html><head></head><body><p>no drawing</p></body></html>"
    assert page_fonts(plain, "fonts/") == plain


def test_a_drawing_that_arrives_as_a_file_declares_its_font_without_preloading_it():
    # site/lazyfigures.py: the <img> names the font; the page draws it later, in the page's fonts
    page = ('<html><head></head><body><img class="ldr-drawing-file" src="f.svg" alt="" width="10" height="10" '
            'data-ldr-font="Excalifont, Xiaolai, cursive" loading="lazy"></body></html>')
    html = page_fonts(page, "fonts/")
    head = html[:html.index("</head>")]
    assert "<link" not in html and '@font-face { font-family: "Excalifont"' in head
    inline = page.replace("<img ", '<svg class="ldr-drawing" font-family="Excalifont, cursive"></svg><img ')
    assert page_fonts(inline, "fonts/").count('<link rel="preload"') == 1


def test_a_figure_is_skipped_off_screen_with_its_own_ratio():
    from build_hooks.drawing.offscreen import skip_offscreen

    svg = '<svg role="img" viewBox="0 0 508 736.5" width="508" class="ldr-drawing"><text>a</text></svg>'
    assert skip_offscreen(svg) == ('<svg role="img" viewBox="0 0 508 736.5" width="508" class="ldr-drawing" '
                                   'style="content-visibility: auto; aspect-ratio: 508 / 736.5"><text>a</text></svg>')
    # no ratio to keep the height by, or a style of its own: left as it is
    for kept in ('<svg class="x"><g/></svg>', '<svg viewBox="0 0 0 10"></svg>', '<svg viewBox="-5 0 10 10"></svg>',
                 '<svg viewBox="0 0 10 10" style="color: red"></svg>', '<p>no svg</p>'):
        assert skip_offscreen(kept) == kept
