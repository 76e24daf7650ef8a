"""Exact structure of the SVG for small hand-made scenes."""

from __future__ import annotations

import re

import pytest
from drawing_support import el, groups, scene

from build_hooks.drawing import render_svg
from build_hooks.drawing.arrowheads import KINDS


def test_elements_render_in_z_order_with_bound_text_after_its_container():
    box = el("rectangle", id="box", x=0, y=0, boundElements=[{"type": "text", "id": "lbl"}])
    label = el("text", id="lbl", text="inside", containerId="box", x=30, y=17, width=40, height=25)
    top = el("ellipse", id="top", x=200, y=0)
    svg = render_svg(scene(label, box, top), palette=False)
    g = groups(svg)
    assert len(g) == 3
    assert g[0].startswith("<g") and "<path" in g[0] and "<text" not in g[0]
    assert ">inside</text>" in g[1]
    assert "<path" in g[2] and "translate(210 10)" in g[2]


def test_background_viewbox_and_padding():
    svg = render_svg(scene(el("rectangle", x=50, y=40, width=100, height=60), bg="#abcdef"), palette=False)
    assert 'viewBox="0 0 120 80"' in svg
    assert '<rect x="0" y="0" width="120" height="80" fill="#abcdef"></rect>' in svg


def test_text_lines_alignment_and_font():
    t = el("text", text="one\ntwo", textAlign="right", width=50, height=50, fontFamily=1, fontSize=20)
    svg = render_svg(scene(t), palette=False)
    lines = re.findall(r"<text ([^>]*)>([^<]*)</text>", svg)
    assert [body for _, body in lines] == ["one", "two"]
    attrs = lines[0][0]
    assert 'x="50"' in attrs and 'text-anchor="end"' in attrs and 'font-size="20px"' in attrs
    assert 'font-family="Virgil, Segoe UI Emoji, cursive"' in attrs
    y0 = float(re.search(r' y="([0-9.]+)"', lines[0][0]).group(1))
    y1 = float(re.search(r' y="([0-9.]+)"', lines[1][0]).group(1))
    assert y1 - y0 == pytest.approx(25)  # fontSize x lineHeight
    assert y0 == pytest.approx(17.62, abs=0.01)  # Virgil ascender 886 / em, centred in the 25px line


def test_vertical_alignment_uses_stored_position_for_bound_text():
    box = el("rectangle", id="b", x=0, y=0, width=200, height=100, boundElements=[{"type": "text", "id": "t"}])
    t = el("text", id="t", containerId="b", text="bottom", x=60, y=70, width=80, height=25, verticalAlign="bottom")
    svg = render_svg(scene(box, t), palette=False)
    assert "translate(70 80)" in svg  # stored x/y + padding 10


def test_script_in_a_label_is_text():
    t = el("text", text='<script>alert("x")</script> & co')
    svg = render_svg(scene(t), palette=False)
    assert "<script" not in svg
    assert "&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; co" in svg


@pytest.mark.parametrize("palette", [False, True])
def test_colour_strings_cannot_break_out_of_attributes(palette):
    evil = '"><script>alert(1)</script>'
    svg = render_svg(scene(el("rectangle", strokeColor=evil, backgroundColor=evil, fillStyle="solid"),
                           el("text", strokeColor=evil), bg=evil), palette=palette)
    assert "<script" not in svg and "alert" not in svg
    assert render_svg(scene(el("rectangle", strokeColor="rgb(10, 20, 30)")), palette=False).count(
        'stroke="rgb(10, 20, 30)"') >= 1


def test_dash_arrays_follow_stroke_style():
    solid = render_svg(scene(el("rectangle", strokeStyle="solid")), palette=False)
    dashed = render_svg(scene(el("rectangle", strokeStyle="dashed", strokeWidth=2)), palette=False)
    dotted = render_svg(scene(el("rectangle", strokeStyle="dotted", strokeWidth=4)), palette=False)
    assert "stroke-dasharray" not in solid
    assert 'stroke-dasharray="8 10"' in dashed and 'stroke-width="2.5"' in dashed
    assert 'stroke-dasharray="1.5 10"' in dotted and 'stroke-width="4.5"' in dotted
    # solid strokes are drawn twice (multi-stroke), dashed once
    assert solid.count(" M") > dashed.count(" M")


def test_rotation_and_opacity_transforms():
    r = el("rectangle", x=0, y=0, width=100, height=50, angle=3.141592653589793 / 2, opacity=40)
    svg = render_svg(scene(r), palette=False)
    # a 100x50 box turned a quarter: its bounds are 50x100 around the same centre
    assert 'viewBox="0 0 70 120"' in svg
    assert 'transform="translate(-15 35) rotate(90 50 25)"' in svg
    assert 'stroke-opacity="0.4" fill-opacity="0.4"' in svg


HEAD_DRAWABLES = {"arrow": 2, "bar": 2, "dot": 1, "circle": 1, "circle_outline": 1, "triangle": 1,
                  "triangle_outline": 1, "diamond": 1, "diamond_outline": 1, "crowfoot_one": 1,
                  "crowfoot_many": 2, "crowfoot_one_or_many": 3}


def test_head_table_covers_every_kind():
    assert set(HEAD_DRAWABLES) == set(KINDS)


@pytest.mark.parametrize("kind", sorted(HEAD_DRAWABLES))
def test_every_arrowhead_kind(kind):
    a = el("arrow", points=[[0, 0], [200, 0]], width=200, height=0, endArrowhead=kind, roughness=0)
    g = groups(render_svg(scene(a), palette=False))[0]
    drawables = re.findall(r"<g [^>]*transform[^>]*>(.*?)</g>", g)
    head = drawables[1:]
    assert len(head) == HEAD_DRAWABLES[kind]
    if kind in ("dot", "circle", "triangle", "diamond"):
        assert 'fill="#1e1e1e"' in head[0]  # filled with the stroke colour
    elif kind.endswith("_outline"):
        assert 'fill="#ffffff"' in head[0]  # filled with the canvas background
    else:
        assert all('fill="none"' in h and "fill=\"#" not in h for h in head)  # strokes only


def test_arrowhead_geometry_arrow_tip_at_the_end_point():
    a = el("arrow", points=[[0, 0], [200, 0]], width=200, height=0, roughness=0)
    g = groups(render_svg(scene(a), palette=False))[0]
    heads = re.findall(r'<path d="M([-0-9.]+) ([-0-9.]+) C[^"]*?, ([-0-9.]+) ([-0-9.]+)"', g)[1:]
    assert len(heads) == 2
    for x0, y0, x1, y1 in heads:
        assert float(x1) == pytest.approx(200, abs=0.01) and float(y1) == pytest.approx(0, abs=0.01)
        assert float(x0) < 200 and abs(float(y0)) == pytest.approx(25 * 0.342, abs=0.5)  # 25px at 20 degrees


def test_start_arrowhead_and_no_end():
    a = el("arrow", points=[[0, 0], [200, 0]], width=200, height=0, startArrowhead="bar", endArrowhead=None)
    g = groups(render_svg(scene(a), palette=False))[0]
    assert len(re.findall(r"<g [^>]*transform", g)) == 3  # shaft + two bar strokes


def test_curved_and_elbow_arrows():
    curved = el("arrow", points=[[0, 0], [100, 50], [200, 0]], roundness={"type": 2}, width=200, height=50)
    elbow = el("arrow", points=[[0, 0], [100, 0], [100, 80], [200, 80]], elbowed=True, width=200, height=80)
    straight = {**curved, "roundness": None}
    poly = {**elbow, "elbowed": False}

    def shaft(e):
        return re.findall(r'<path d="([^"]*)"', render_svg(scene(e), palette=False))[0]

    assert shaft(curved) != shaft(straight)
    # a straight two-segment line is 2 segments x 2 strokes; the curve is one smooth stroke pair
    assert shaft(straight).count("M") == 4 and shaft(curved).count("M") == 2
    # elbow: 3 straight runs and 2 rounded corners, each drawn twice
    assert shaft(elbow).count("M") == 10 and shaft(elbow) != shaft(poly)


def test_fills_hachure_cross_hatch_zigzag_dots_solid():
    counts = {}
    for style in ("hachure", "cross-hatch", "zigzag", "dots", "solid"):
        svg = render_svg(scene(el("rectangle", backgroundColor="#ffc078", fillStyle=style, width=120, height=80)),
                         palette=False)
        fill = re.findall(r'<path d="([^"]*)" (?:stroke="#ffc078"|stroke="none")', svg)
        assert fill, style
        counts[style] = fill[0].count("M")
    assert counts["cross-hatch"] > counts["hachure"] and counts["solid"] == 1


def test_roundness_kinds_change_the_outline():
    base = dict(width=400, height=200, seed=5)
    sharp = render_svg(scene(el("rectangle", **base)), palette=False)
    legacy = render_svg(scene(el("rectangle", roundness={"type": 1}, **base)), palette=False)
    adaptive = render_svg(scene(el("rectangle", roundness={"type": 3}, **base)), palette=False)
    assert len({sharp, legacy, adaptive}) == 3
    # the adaptive radius is 32px: the first corner curve starts at x = 32
    assert re.search(r'<path d="M32 0 ', adaptive)
    assert re.search(r'<path d="M50 0 ', legacy)  # proportional: 25% of the short side


def test_roughness_levels_differ():
    outs = {r: render_svg(scene(el("ellipse", roughness=r, seed=9)), palette=False) for r in (0, 1, 2)}
    assert len(set(outs.values())) == 3


def test_freedraw_is_a_filled_outline():
    f = el("freedraw", points=[[0, 0], [10, 5], [20, 3], [35, 12]], pressures=[], simulatePressure=True,
           width=35, height=12)
    g = groups(render_svg(scene(f), palette=False))[0]
    assert 'stroke="none"' in g and re.search(r'<path fill="#1e1e1e" d="M [-0-9.]+,[-0-9.]+ Q ', g)


def test_image_embeds_its_data_url():
    url = "data:image/png;base64,iVBORw0KGgo="
    img = el("image", fileId="f1", width=40.4, height=30, scale=[1, 1])
    svg = render_svg(scene(img, files={"f1": {"id": "f1", "mimeType": "image/png", "dataURL": url}}),
                     palette=False)
    assert f'<image href="{url}" x="0" y="0" width="40" height="30"' in svg


def test_cropped_and_rounded_image_is_clipped_to_its_box():
    url = "data:image/png;base64,iVBORw0KGgo="
    img = el("image", id="im", fileId="f1", width=100, height=50, scale=[1, 1], roundness={"type": 3},
             crop={"x": 20, "y": 10, "width": 200, "height": 100, "naturalWidth": 400, "naturalHeight": 300})
    svg = render_svg(scene(img, files={"f1": {"id": "f1", "mimeType": "image/png", "dataURL": url}}),
                     palette=False, source="pic.excalidraw")
    assert '<clipPath id="pic-image-clip-im"><rect width="100" height="50" rx="12.5" ry="12.5">' in svg
    assert 'clip-path="url(#pic-image-clip-im)"' in svg
    assert 'x="-10" y="-5" width="200" height="150"' in svg  # natural size x 0.5, shifted by the crop


def test_frames_clip_children_and_label_the_frame():
    fr = el("frame", id="F", x=0, y=0, width=300, height=200, name="stage", strokeColor="#bbb", roughness=0)
    inside = el("ellipse", id="in", x=250, y=150, width=100, height=100, frameId="F")
    svg = render_svg(scene(inside, fr), palette=False, source="demo.excalidraw")
    assert '<clipPath id="demo-frame-F">' in svg
    assert 'clip-path="url(#demo-frame-F)"' in svg
    assert ">stage</text>" in svg and "Helvetica" in svg
    # z-order as in the file: the clipped child first, then the frame's label and outline
    assert svg.index('clip-path="url(') < svg.index(">stage</text>") < svg.index('stroke="#bbb"')


def test_frame_option_renders_only_that_frame():
    fr = el("frame", id="F", x=100, y=100, width=300, height=200, name="stage")
    inside = el("rectangle", id="in", x=120, y=120, frameId="F")
    outside = el("rectangle", id="out", x=900, y=900)
    svg = render_svg(scene(fr, inside, outside), palette=False, frame="stage", source="d.excalidraw")
    assert 'viewBox="0 0 300 200"' in svg
    assert "translate(20 20)" in svg and "translate(800" not in svg
    assert ">stage</text>" not in svg


def test_frame_option_keeps_free_elements_overlapping_the_frame():
    fr = el("frame", id="F", x=100, y=100, width=300, height=200, name="stage")
    other = el("frame", id="G", x=500, y=100, width=100, height=100, name="other")
    free = el("ellipse", id="free", x=350, y=250, width=100, height=100)
    elsewhere = el("rectangle", id="g1", x=380, y=120, frameId="G")  # another frame's child: hidden
    svg = render_svg(scene(fr, other, free, elsewhere), palette=False, frame="stage", source="d.excalidraw")
    assert "translate(250 150)" in svg and "translate(280 20)" not in svg


def test_ids_are_prefixed_per_source_so_figures_can_share_a_page():
    arrow = el("arrow", id="A", boundElements=[{"type": "text", "id": "L"}])
    label = el("text", id="L", containerId="A", text="go")
    one = render_svg(scene(arrow, label), source="one.excalidraw")
    two = render_svg(scene(arrow, label), source="two.excalidraw")
    ids1 = set(re.findall(r' id="([^"]+)"', one))
    ids2 = set(re.findall(r' id="([^"]+)"', two))
    assert ids1 and not ids1 & ids2
    assert 'mask="url(#one-mask-A)"' in one


def test_link_is_kept_but_javascript_urls_are_dropped():
    ok = render_svg(scene(el("rectangle", link="https://pytorch.org")), palette=False)
    bad = render_svg(scene(el("rectangle", link="javascript:alert(1)")), palette=False)
    assert '<a href="https://pytorch.org">' in ok
    assert "javascript" not in bad


def test_hand_written_bound_text_is_measured_wrapped_and_centred():
    box = el("rectangle", id="b", x=0, y=0, width=160, height=120, boundElements=[{"type": "text", "id": "t"}])
    t = el("text", id="t", containerId="b", text="", originalText="the dispatcher picks a kernel",
           width=0, height=0, textAlign="center", verticalAlign="middle")
    svg = render_svg(scene(box, t), palette=False)
    lines = re.findall(r"<text [^>]*>([^<]*)</text>", svg)
    assert len(lines) >= 2 and " ".join(lines) == "the dispatcher picks a kernel"
    from build_hooks.drawing.fonts import FAMILIES
    from build_hooks.drawing.text import line_width

    assert all(line_width(ln, FAMILIES[5], 20) <= 150 for ln in lines)  # 160 minus 2 x 5 padding
    ys = [float(y) for y in re.findall(r'<g transform="translate\(([-0-9.]+) ([-0-9.]+)\)', svg)[-1]]
    block_h = len(lines) * 25
    assert ys[1] - 10 == pytest.approx((120 - block_h) / 2, abs=0.01)  # vertically centred in the box
