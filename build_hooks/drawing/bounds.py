"""Element bounds in scene coordinates (for the viewBox and rotation centres), following
Excalidraw's ``getElementBounds``: rotated boxes, rotated ellipses, and for linear elements the
sampled Bezier curves of the rough shaft.
"""

from __future__ import annotations

import math

from build_hooks.drawing.generator import Drawable

Box = tuple[float, float, float, float]


def _rot(x: float, y: float, cx: float, cy: float, a: float) -> tuple[float, float]:
    dx, dy = x - cx, y - cy
    return dx * math.cos(a) - dy * math.sin(a) + cx, dx * math.sin(a) + dy * math.cos(a) + cy


def _ops_points(ops: list) -> list[tuple[float, float]]:
    pts: list[tuple[float, float]] = []
    cur = (0.0, 0.0)
    for op in ops:
        if op.op == "move":
            cur = (op.data[0], op.data[1])
        elif op.op == "bcurveTo":
            p0, p1, p2, p3 = cur, op.data[0:2], op.data[2:4], op.data[4:6]
            t = 0.0
            while t <= 1.0:  # the exporter steps t by 0.1 and stops just short of 1
                pts.append(tuple((1 - t) ** 3 * p3[i] + 3 * t * (1 - t) ** 2 * p2[i] + 3 * t * t * (1 - t) * p1[i]
                                 + p0[i] * t ** 3 for i in (0, 1)))
                t += 0.1
            cur = (op.data[4], op.data[5])
        elif op.op == "lineTo":
            cur = (op.data[0], op.data[1])
            pts.append(cur)
    return pts


def local_box(el: dict, shapes: list[Drawable]) -> Box:
    """Unrotated box in element-local coordinates (x/y at the origin). Its centre is the rotation
    centre: for linear elements the exporter takes it from the points (no shape is cached yet)."""
    if el["type"] in ("line", "arrow", "freedraw"):
        pts = [(p[0], p[1]) for p in el.get("points") or [[0, 0]]]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return min(xs), min(ys), max(xs), max(ys)
    return 0.0, 0.0, el.get("width", 0.0), el.get("height", 0.0)


def _shaft_points(shapes: list[Drawable]) -> list[tuple[float, float]]:
    for s in shapes[0].sets if shapes else []:
        if s.type == "path":
            return _ops_points(s.ops)
    return []


def element_bounds(el: dict, shapes: list[Drawable]) -> Box:
    """Scene-coordinate bounds: rotated boxes and ellipses; for lines and arrows the sampled
    curves of the sketched shaft, rotated about the points' centre (getLinearElementRotatedBounds)."""
    x1, y1, x2, y2 = local_box(el, shapes)
    ox, oy, angle = el["x"], el["y"], el.get("angle", 0) or 0
    cx, cy = ox + (x1 + x2) / 2, oy + (y1 + y2) / 2
    if el["type"] in ("line", "arrow"):
        shaft = _shaft_points(shapes) if len(el.get("points") or []) >= 2 else []
        if shaft:
            pts = [_rot(ox + px, oy + py, cx, cy, angle) for px, py in shaft]
            return min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts)
    if not angle:
        return ox + x1, oy + y1, ox + x2, oy + y2
    if el["type"] == "ellipse":
        a, b = el["width"] / 2, el["height"] / 2
        hw = math.sqrt((a * math.cos(angle)) ** 2 + (b * math.sin(angle)) ** 2)
        hh = math.sqrt((a * math.sin(angle)) ** 2 + (b * math.cos(angle)) ** 2)
        return cx - hw, cy - hh, cx + hw, cy + hh
    if el["type"] == "diamond":
        w, h = el["width"], el["height"]
        corners = [(w / 2, 0), (w, h / 2), (w / 2, h), (0, h / 2)]
    else:
        corners = [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]
    pts = [_rot(ox + px, oy + py, cx, cy, angle) for px, py in corners]
    return min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts)


def union(boxes: list[Box]) -> Box:
    if not boxes:
        return 0.0, 0.0, 0.0, 0.0
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
