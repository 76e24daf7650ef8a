"""Scene -> standalone SVG, element by element in z-order, the way Excalidraw's ``exportToSvg`` lays
it out (padding 10, frame labels before their frame, bound text after its container) but with
paints routed through the series' palette and ids prefixed so several figures share a page.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from build_hooks.drawing import frames as fr
from build_hooks.drawing.bounds import element_bounds, local_box, union
from build_hooks.drawing.freedraw import outline_path
from build_hooks.drawing.palette import Palette
from build_hooks.drawing.scene import load, restore
from build_hooks.drawing.shapes import element_drawables, is_loop
from build_hooks.drawing.svg import drawable_svg, num, paint_attrs
from build_hooks.drawing.text import arrow_label_position, layout_bound, measure, text_lines

PADDING = 10
SAFE_LINK = re.compile(r"^(https?:|mailto:|#|/|\.{0,2}/|[\w.-]+(/|$))", re.I)


def slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", s).strip("-") or "d"


def _f(x: float) -> str:
    return num(x, 4)


def _complete_text(elements: list[dict], by_id: dict[str, dict]) -> list[dict]:
    """Text written by hand (no measured box yet) gets measured, and wrapped into its container."""
    out = []
    for el in elements:
        if el["type"] == "text" and not el.get("width") and (el.get("text") or el.get("originalText")):
            container = by_id.get(el.get("containerId") or "")
            if container is not None and container["type"] not in ("arrow", "line"):
                el = layout_bound(el, container)
            else:
                text = el.get("text") or el["originalText"]
                w, h = measure(text, el["fontFamily"], el["fontSize"], el["lineHeight"])
                el = {**el, "text": text, "width": w, "height": h}
            by_id[el["id"]] = el
        out.append(el)
    return out


class _Writer:
    def __init__(self, pal: Palette, prefix: str, files: dict, by_id: dict, off: tuple[float, float],
                 background: str, clip: bool) -> None:
        self.pal, self.prefix, self.files, self.by_id = pal, prefix, files, by_id
        self.offx, self.offy = off
        self.background = background
        self.clip = clip
        self.out: list[str] = []
        self.defs: list[str] = []
        self.labels = {e["containerId"]: e for e in by_id.values()
                       if e["type"] == "text" and e.get("containerId") in by_id}

    def transform(self, el: dict, shapes: list, x: float | None = None, y: float | None = None) -> str:
        lx1, ly1, lx2, ly2 = local_box(el, shapes)
        cx, cy = (lx2 - lx1) / 2 + lx1, (ly2 - ly1) / 2 + ly1
        deg = 180 * (el.get("angle") or 0) / math.pi
        tx = (el["x"] if x is None else x) + self.offx
        ty = (el["y"] if y is None else y) + self.offy
        return f'transform="translate({_f(tx)} {_f(ty)}) rotate({_f(deg)} {_f(cx)} {_f(cy)})"'

    def opacity(self, el: dict) -> float:
        frame = self.by_id.get(el.get("frameId") or "")
        return (frame.get("opacity", 100) if frame else 100) * el.get("opacity", 100) / 1e4

    def _op_attrs(self, el: dict) -> str:
        op = self.opacity(el)
        return f' stroke-opacity="{_f(op)}" fill-opacity="{_f(op)}"' if op != 1 else ""

    def wrap(self, el: dict, body: str) -> str:
        frame = self.by_id.get(el.get("frameId") or "")
        if self.clip and frame is not None and fr.is_frame(frame):
            body = f'<g clip-path="url(#{self.prefix}frame-{slug(frame["id"])})">{body}</g>'
        link = el.get("link")
        if link and SAFE_LINK.match(str(link)):
            body = f"<a href={quoteattr(str(link))}>{body}</a>"
        return body

    def element(self, el: dict, outline_frames: bool) -> None:
        kind = el["type"]
        shapes = element_drawables(el, self.background)
        tr = self.transform(el, shapes)
        if kind in ("rectangle", "diamond", "ellipse"):
            body = "".join(drawable_svg(d, self.pal, f'{self._op_attrs(el)} stroke-linecap="round" {tr}',
                                        self.opacity(el)) for d in shapes)
        elif kind in ("line", "arrow"):
            body = self._linear(el, shapes, tr)
        elif kind == "freedraw":
            inner = "".join(drawable_svg(d, self.pal, opacity=self.opacity(el))[3:-4] for d in shapes)
            body = (f'<g{self._op_attrs(el)} {tr} stroke="none">{inner}'
                    f'<path{paint_attrs(self.pal, fill=el.get("strokeColor"))} d="{outline_path(el)}"></path></g>')
        elif kind == "text":
            fill = self.pal.paint(el.get("strokeColor"))
            body = f'<g{self._op_attrs(el)} {tr}>{text_lines(el, fill, fill.startswith("var("))}</g>'
        elif kind == "image":
            body = self._image(el, tr)
        elif fr.is_frame(el):
            if not outline_frames:
                return
            body = (f'<rect {tr} width="{_f(el["width"])}" height="{_f(el["height"])}" rx="{fr.RADIUS}" '
                    f'ry="{fr.RADIUS}"{paint_attrs(self.pal, stroke=fr.FRAME_STROKE, fill="none")} stroke-width="2">'
                    "</rect>")
            self.out.append(body)
            return
        else:
            return
        self.out.append(self.wrap(el, body))

    def _linear(self, el: dict, shapes: list, tr: str) -> str:
        label = self._bound_text(el)
        mask_attr, mask = "", ""
        if label is not None:
            mid = f"{self.prefix}mask-{slug(el['id'])}"
            mask_attr = f' mask="url(#{mid})"'
            mask = (f'<mask id="{mid}"><rect x="0" y="0" fill="#fff" '
                    f'width="{_f(el["width"] + 100 + el["x"] + self.offx)}" '
                    f'height="{_f(el["height"] + 100 + el["y"] + self.offy)}"></rect>'
                    f'<rect x="{_f(label["x"] + self.offx)}" y="{_f(label["y"] + self.offy)}" fill="#000" '
                    f'width="{_f(label["width"])}" height="{_f(label["height"])}" opacity="1"></rect></mask>')
        rule = ' fill-rule="evenodd"' if (el["type"] == "line" and is_loop(el["points"])
                                          and el.get("backgroundColor") != "transparent") else ""
        inner = "".join(drawable_svg(d, self.pal, f"{self._op_attrs(el)} {tr}{rule}", self.opacity(el))
                        for d in shapes)
        return f'<g{mask_attr} stroke-linecap="round">{inner}</g>{mask}'

    def _image(self, el: dict, tr: str) -> str:
        data = self.files[el["fileId"]]
        w, h = round(el["width"]), round(el["height"])
        iw, ih, ix, iy = w, h, 0.0, 0.0
        crop = el.get("crop")
        if isinstance(crop, dict) and crop.get("width") and crop.get("height"):
            # show the crop window of the natural image, stretched to the element's box
            sx, sy = el["width"] / crop["width"], el["height"] / crop["height"]
            iw, ih = crop.get("naturalWidth", crop["width"]) * sx, crop.get("naturalHeight", crop["height"]) * sy
            ix, iy = -crop.get("x", 0) * sx, -crop.get("y", 0) * sy
        sx, sy = (el.get("scale") or [1, 1])[:2]
        flip = ""
        if sx != 1 or sy != 1:
            cx, cy = el["width"] / 2, el["height"] / 2
            flip = f' transform="translate({_f(cx)} {_f(cy)}) scale({sx} {sy}) translate({_f(-cx)} {_f(-cy)})"'
        clip = ""
        if crop or el.get("roundness"):
            from build_hooks.drawing.shapes import corner_radius

            cid = f"{self.prefix}image-clip-{slug(el.get('id', 'img'))}"
            r = corner_radius(min(el["width"], el["height"]), el) if el.get("roundness") else 0
            self.defs.append(f'<clipPath id="{cid}"><rect width="{_f(el["width"])}" height="{_f(el["height"])}" '
                             f'rx="{_f(r)}" ry="{_f(r)}"></rect></clipPath>')
            clip = f' clip-path="url(#{cid})"'
        return (f'<g {tr}{clip}><image href={quoteattr(data["dataURL"])} x="{_f(ix)}" y="{_f(iy)}" '
                f'width="{_f(iw)}" height="{_f(ih)}" preserveAspectRatio="none" '
                f'opacity="{_f(self.opacity(el))}"{flip}></image></g>')

    def _bound_text(self, el: dict) -> dict | None:
        t = self.labels.get(el.get("id", ""))
        if t is not None and el["type"] in ("arrow", "line"):
            x, y = arrow_label_position(el, t)
            t = {**t, "x": x, "y": y}
        return t


def _id_prefix(source: str, frame: str | None, id_prefix: str | None) -> str:
    """What the SVG's ids start with: the scene's file name (and the frame's), unless given."""
    return (id_prefix if id_prefix is not None else slug(source.rsplit("/", 1)[-1].split(".")[0])
            + (f"-{slug(frame)}" if frame else "")) + "-"


def _layout(elements: list[dict], by_id: dict[str, dict], frame: str | None, source: str, dark: bool,
            background: str) -> tuple[list[dict], list[dict], bool, float, tuple[float, float, float, float]]:
    """(elements to draw, frames that clip, whether frames get an outline, padding, box drawn): one
    frame exported alone, clipped to itself; else the whole scene with its frame labels, padded."""
    if frame:
        exporting, elements = fr.select_frame(elements, frame, source)
        minx, miny = exporting["x"], exporting["y"]
        by_id[exporting["id"]] = exporting
        box = (minx, miny, minx + exporting["width"], miny + exporting["height"])
        return elements, [exporting], False, 0, box
    clip_frames = [e for e in elements if fr.is_frame(e)]
    elements = fr.with_labels(elements, dark)
    boxes = [element_bounds(e, element_drawables(e, background) if e["type"] in ("line", "arrow") else [])
             for e in fr.root_elements(elements)
             if not (e["type"] == "text" and e.get("containerId") in by_id)]
    return elements, clip_frames, True, PADDING, union(boxes)


def _draw(w: _Writer, elements: list[dict], by_id: dict[str, dict], outline: bool) -> None:
    for el in elements:  # z-order; frames too (the exporter only defers iframes / embeddables)
        if el["type"] == "text" and el.get("containerId") in by_id:
            continue
        w.element(el, outline)
        label = w._bound_text(el)
        if label is not None:
            w.element(label, outline)


def _defs(w: _Writer, pal: Palette, clip_frames: list[dict], frame: str | None, prefix: str) -> list[str]:
    """The frames' clip paths, what the elements defined, and the palette's style rules."""
    defs = []
    for f in clip_frames:
        rx = "" if frame else f' rx="{fr.RADIUS}" ry="{fr.RADIUS}"'
        defs.append(f'<clipPath id="{prefix}frame-{slug(f["id"])}"><rect transform="translate({_f(f["x"] + w.offx)} '
                    f'{_f(f["y"] + w.offy)})" width="{_f(f["width"])}" height="{_f(f["height"])}"{rx}></rect>'
                    "</clipPath>")
    defs += w.defs
    rules = pal.style_rules("svg.ldr-drawing")
    if rules:
        defs.append(f"<style>{escape(rules)}</style>")
    return defs


def render(scene, *, dark: bool = False, frame: str | None = None, palette: bool = True,
           source: str = "<scene>", id_prefix: str | None = None) -> str:
    data = restore(load(scene, source), source)
    elements = data["elements"]
    by_id = {e["id"]: e for e in elements if "id" in e}
    elements = _complete_text(elements, by_id)
    background = data["appState"].get("viewBackgroundColor") or "#ffffff"
    prefix = _id_prefix(source, frame, id_prefix)
    pal = Palette(palette, dark)
    elements, clip_frames, outline, pad, (minx, miny, maxx, maxy) = _layout(
        elements, by_id, frame, source, dark, background)
    width, height = maxx - minx + 2 * pad, maxy - miny + 2 * pad
    w = _Writer(pal, prefix, data["files"], by_id, (-minx + pad, -miny + pad), background, clip=True)
    _draw(w, elements, by_id, outline)
    defs = _defs(w, pal, clip_frames, frame, prefix)
    bg = f'<rect x="0" y="0" width="{_f(width)}" height="{_f(height)}"{paint_attrs(pal, fill=background)}></rect>'
    if palette and not dark and pal.role(background) == "paper":
        bg = ""  # on the page the figure sits on the page's own paper, in either scheme
    return (f'<svg version="1.1" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(width)} {_f(height)}" '
            f'width="{_f(width)}" height="{_f(height)}" class="ldr-drawing{" ldr-dark" if dark else ""}">'
            f'<defs>{"".join(defs)}</defs>{bg}{"".join(w.out)}</svg>')


def render_svg(scene: dict | str | Path, *, dark: bool = False, frame: str | None = None, palette: bool = True,
               source: str = "<scene>", id_prefix: str | None = None) -> str:
    """:func:`render` naming a scene given as a path by its file name (build_hooks.drawing.render_svg)."""
    if isinstance(scene, Path) and source == "<scene>":
        source = scene.name
    return render(scene, dark=dark, frame=frame, palette=palette, source=source, id_prefix=id_prefix)
