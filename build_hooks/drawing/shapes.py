"""Excalidraw element -> Rough.js drawables (Excalidraw's ``generateRoughOptions`` and
``_generateElementShape``): roughness adjustment, dash arrays, rounded corners, diamonds,
curved / straight / elbow linear elements and their arrowheads.
"""

from __future__ import annotations

import math

from build_hooks.drawing import generator as gen
from build_hooks.drawing.arrowheads import arrowhead_drawables
from build_hooks.drawing.bezier import Point, simplify
from build_hooks.drawing.generator import Drawable
from build_hooks.drawing.rng import Options

PROPORTIONAL = 0.25
ADAPTIVE_DEFAULT = 32
LOOP_THRESHOLD = 8  # LINE_CONFIRM_THRESHOLD: a line whose ends meet within 8px is a closed shape


def is_transparent(color: str | None) -> bool:
    if not color:
        return True
    return color == "transparent" or (len(color) == 5 and color[4] == "0") or (len(color) == 9 and color[7:9] == "00")


def is_loop(points: list) -> bool:
    if len(points) >= 3:
        (x1, y1), (x2, y2) = points[0][:2], points[-1][:2]
        return math.hypot(x1 - x2, y1 - y2) <= LOOP_THRESHOLD
    return False


def is_linear(el: dict) -> bool:
    return el["type"] in ("line", "arrow")


def _can_round(kind: str) -> bool:
    """The app's ``canChangeRoundness``: arrows are not among these (their roundness is their
    curve style), so a small rounded arrow still gets its roughness reduced."""
    return kind in ("rectangle", "iframe", "embeddable", "line", "diamond", "image")


def adjust_roughness(el: dict) -> float:
    r = el.get("roughness", 1)
    w, h = el.get("width", 0), el.get("height", 0)
    big, small = max(w, h), min(w, h)
    if (small >= 20 and big >= 50) or (small >= 15 and el.get("roundness") and _can_round(el["type"])) \
            or (is_linear(el) and big >= 50):
        return r
    return min(r / (3 if big < 10 else 2), 2.5)


def dash_dashed(sw: float) -> list[float]:
    return [8, 8 + sw]


def dash_dotted(sw: float) -> list[float]:
    return [1.5, 6 + sw]


def rough_options(el: dict, continuous: bool = False) -> Options:
    style = el.get("strokeStyle", "solid")
    sw = el.get("strokeWidth", 2)
    o = Options(
        seed=el.get("seed", 1),
        strokeLineDash=dash_dashed(sw) if style == "dashed" else dash_dotted(sw) if style == "dotted" else None,
        disableMultiStroke=style != "solid",
        strokeWidth=sw + 0.5 if style != "solid" else sw,
        fillWeight=sw / 2,
        hachureGap=sw * 4,
        roughness=adjust_roughness(el),
        stroke=el.get("strokeColor", "#1e1e1e"),
        preserveVertices=continuous or el.get("roughness", 1) < 2,
    )
    kind = el["type"]
    bg = el.get("backgroundColor", "transparent")
    if kind in ("rectangle", "diamond", "ellipse", "iframe", "embeddable"):
        o.fillStyle = el.get("fillStyle", "hachure")
        o.fill = None if is_transparent(bg) else bg
        if kind == "ellipse":
            o.curveFitting = 1
    elif kind in ("line", "freedraw") and is_loop(el.get("points", [])):
        o.fillStyle = el.get("fillStyle", "hachure")
        o.fill = None if bg == "transparent" else bg
    return o


def corner_radius(x: float, el: dict) -> float:
    kind = (el.get("roundness") or {}).get("type")
    if kind in (1, 2):
        return x * PROPORTIONAL
    if kind == 3:
        fixed = (el.get("roundness") or {}).get("value") or ADAPTIVE_DEFAULT
        return x * PROPORTIONAL if x <= fixed / PROPORTIONAL else fixed
    return 0


def diamond_points(el: dict) -> tuple[float, ...]:
    top_x = math.floor(el["width"] / 2) + 1
    right_y = math.floor(el["height"] / 2) + 1
    return (top_x, 0, el["width"], right_y, top_x, el["height"], 0, right_y)


def _n(x: float) -> str:
    """A number as JavaScript's template literals print it (enough for the path parser)."""
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    return repr(x)


def _rectangle(el: dict) -> list[Drawable]:
    w, h = el["width"], el["height"]
    if el.get("roundness"):
        r = corner_radius(min(w, h), el)
        d = (f"M {_n(r)} 0 L {_n(w - r)} 0 Q {_n(w)} 0, {_n(w)} {_n(r)} L {_n(w)} {_n(h - r)} "
             f"Q {_n(w)} {_n(h)}, {_n(w - r)} {_n(h)} L {_n(r)} {_n(h)} Q 0 {_n(h)}, 0 {_n(h - r)} "
             f"L 0 {_n(r)} Q 0 0, {_n(r)} 0")
        return [gen.path(d, rough_options(el, True))]
    return [gen.rectangle(0, 0, w, h, rough_options(el))]


def _diamond(el: dict) -> list[Drawable]:
    tx, ty, rx, ry, bx, by, lx, ly = diamond_points(el)
    if el.get("roundness"):
        vr = corner_radius(abs(tx - lx), el)
        hr = corner_radius(abs(ry - ty), el)
        d = (f"M {_n(tx + vr)} {_n(ty + hr)} L {_n(rx - vr)} {_n(ry - hr)} "
             f"C {_n(rx)} {_n(ry)}, {_n(rx)} {_n(ry)}, {_n(rx - vr)} {_n(ry + hr)} "
             f"L {_n(bx + vr)} {_n(by - hr)} "
             f"C {_n(bx)} {_n(by)}, {_n(bx)} {_n(by)}, {_n(bx - vr)} {_n(by - hr)} "
             f"L {_n(lx + vr)} {_n(ly + hr)} "
             f"C {_n(lx)} {_n(ly)}, {_n(lx)} {_n(ly)}, {_n(lx + vr)} {_n(ly - hr)} "
             f"L {_n(tx - vr)} {_n(ty + hr)} "
             f"C {_n(tx)} {_n(ty)}, {_n(tx)} {_n(ty)}, {_n(tx + vr)} {_n(ty + hr)}")
        return [gen.path(d, rough_options(el, True))]
    return [gen.polygon([(tx, ty), (rx, ry), (bx, by), (lx, ly)], rough_options(el))]


def _horizontal(p: Point, q: Point) -> bool:
    """Excalidraw's headingForPointIsHorizontal(p, q): the vector q->p points left or right."""
    x, y = p[0] - q[0], p[1] - q[1]
    return x > abs(y) or x <= -abs(y)


def elbow_path(points: list[Point], radius: float = 16) -> str:
    sub: list[Point] = []
    for i in range(1, len(points) - 1):
        prev, nxt, pt = points[i - 1], points[i + 1], points[i]
        corner = min(radius, math.dist(pt, nxt) / 2, math.dist(pt, prev) / 2)
        if _horizontal(pt, prev):
            sub.append((pt[0] - corner, pt[1]) if prev[0] < pt[0] else (pt[0] + corner, pt[1]))
        else:
            sub.append((pt[0], pt[1] - corner) if prev[1] < pt[1] else (pt[0], pt[1] + corner))
        sub.append(pt)
        if _horizontal(nxt, pt):
            sub.append((pt[0] - corner, pt[1]) if nxt[0] < pt[0] else (pt[0] + corner, pt[1]))
        else:
            sub.append((pt[0], pt[1] - corner) if nxt[1] < pt[1] else (pt[0], pt[1] + corner))
    d = [f"M {_n(points[0][0])} {_n(points[0][1])}"]
    for i in range(0, len(sub), 3):
        d.append(f"L {_n(sub[i][0])} {_n(sub[i][1])}")
        d.append(f"Q {_n(sub[i + 1][0])} {_n(sub[i + 1][1])}, {_n(sub[i + 2][0])} {_n(sub[i + 2][1])}")
    d.append(f"L {_n(points[-1][0])} {_n(points[-1][1])}")
    return " ".join(d)


def _linear(el: dict, background: str) -> list[Drawable]:
    o = rough_options(el)
    pts: list[Point] = [(p[0], p[1]) for p in el.get("points") or []] or [(0.0, 0.0)]
    if el.get("elbowed"):
        shapes = [gen.path(elbow_path(pts), rough_options(el, True))]
    elif el.get("roundness"):
        shapes = [gen.curve(pts, o)]
    elif o.fill:
        shapes = [gen.polygon(pts, o)]
    else:
        shapes = [gen.linear_path(pts, o)]
    if el["type"] == "arrow":
        for pos, key, default in (("start", "startArrowhead", None), ("end", "endArrowhead", "arrow")):
            head = el.get(key, default)
            if head is not None:
                shapes += arrowhead_drawables(el, shapes, pos, head, o, background)
    return shapes


def _freedraw(el: dict) -> list[Drawable]:
    pts = [(p[0], p[1]) for p in el.get("points") or []]
    if is_loop(pts):
        simple = simplify(pts, 0, len(pts), 0.75)
        return [gen.curve(simple, rough_options(el).with_(stroke="none"))]
    return []


def element_drawables(el: dict, background: str = "#ffffff") -> list[Drawable]:
    """The rough drawables of one element, in paint order (an empty list for text/image/frame)."""
    kind = el["type"]
    if kind == "rectangle":
        return _rectangle(el)
    if kind == "diamond":
        return _diamond(el)
    if kind == "ellipse":
        return [gen.ellipse(el["width"] / 2, el["height"] / 2, el["width"], el["height"], rough_options(el))]
    if kind in ("line", "arrow"):
        return _linear(el, background)
    if kind == "freedraw":
        return _freedraw(el)
    return []
