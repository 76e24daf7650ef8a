"""Arrowheads: where Excalidraw puts them (``getArrowheadPoints``) and how it sketches each kind.

The head sits on the tangent of the last (or first) Bezier segment of the rough shaft, sampled at
t = 0.3, so it must be computed from the shaft's actual ops, as here.
"""

from __future__ import annotations

import math

from build_hooks.drawing import generator as gen
from build_hooks.drawing.generator import Drawable
from build_hooks.drawing.rng import Options

KINDS = ("arrow", "bar", "dot", "circle", "circle_outline", "triangle", "triangle_outline", "diamond",
         "diamond_outline", "crowfoot_one", "crowfoot_many", "crowfoot_one_or_many")


def _size(kind: str) -> float:
    if kind == "arrow":
        return 25
    if kind in ("diamond", "diamond_outline"):
        return 12
    if kind.startswith("crowfoot"):
        return 20
    return 15


def _angle(kind: str) -> float:
    return 90 if kind == "bar" else 20 if kind == "arrow" else 25


def _rotate(p: tuple[float, float], c: tuple[float, float], a: float) -> tuple[float, float]:
    x, y = p[0] - c[0], p[1] - c[1]
    return (x * math.cos(a) - y * math.sin(a) + c[0], x * math.sin(a) + y * math.cos(a) + c[1])


def _path_ops(d: Drawable) -> list:
    for s in d.sets:
        if s.type == "path":
            return s.ops
    return d.sets[0].ops if d.sets else []


def arrowhead_points(el: dict, shapes: list[Drawable], position: str, kind: str) -> list[float] | None:
    if not shapes:
        return None
    ops = _path_ops(shapes[0])
    if len(ops) < 2:
        return None
    index = 1 if position == "start" else len(ops) - 1
    data = ops[index].data
    if len(data) != 6:
        return None
    p3, p2, p1 = (data[4], data[5]), (data[2], data[3]), (data[0], data[1])
    prev = ops[index - 1]
    p0 = (0.0, 0.0)
    if prev.op == "move":
        p0 = (prev.data[0], prev.data[1])
    elif prev.op == "bcurveTo":
        p0 = (prev.data[4], prev.data[5])

    def eq(t: float, i: int) -> float:
        return (1 - t) ** 3 * p3[i] + 3 * t * (1 - t) ** 2 * p2[i] + 3 * t ** 2 * (1 - t) * p1[i] + p0[i] * t ** 3

    x2, y2 = p0 if position == "start" else p3
    x1, y1 = eq(0.3, 0), eq(0.3, 1)
    dist = math.hypot(x2 - x1, y2 - y1)
    if dist == 0:
        return None
    nx, ny = (x2 - x1) / dist, (y2 - y1) / dist
    pts = el.get("points") or [[0, 0]]
    cx, cy = pts[-1][:2] if position == "end" else pts[0][:2]
    px, py = (pts[-2][:2] if position == "end" else pts[1][:2]) if len(pts) > 1 else (0, 0)
    length = math.hypot(cx - px, cy - py)
    min_size = min(_size(kind), length * (0.25 if kind in ("diamond", "diamond_outline") else 0.5))
    xs, ys = x2 - nx * min_size, y2 - ny * min_size
    if kind in ("dot", "circle", "circle_outline"):
        return [x2, y2, math.hypot(ys - y2, xs - x2) + el.get("strokeWidth", 2) - 2]
    ang = _angle(kind)
    if kind in ("crowfoot_many", "crowfoot_one_or_many"):
        x3, y3 = _rotate((x2, y2), (xs, ys), math.radians(-ang))
        x4, y4 = _rotate((x2, y2), (xs, ys), math.radians(ang))
        return [xs, ys, x3, y3, x4, y4]
    x3, y3 = _rotate((xs, ys), (x2, y2), -ang * math.pi / 180)
    x4, y4 = _rotate((xs, ys), (x2, y2), math.radians(ang))
    if kind in ("diamond", "diamond_outline"):
        if position == "start":
            qx, qy = pts[1][:2] if len(pts) > 1 else (0, 0)
            ox, oy = _rotate((x2 + min_size * 2, y2), (x2, y2), math.atan2(qy - y2, qx - x2))
        else:
            qx, qy = pts[-2][:2] if len(pts) > 1 else (0, 0)
            ox, oy = _rotate((x2 - min_size * 2, y2), (x2, y2), math.atan2(y2 - qy, x2 - qx))
        return [x2, y2, x3, y3, ox, oy, x4, y4]
    return [x2, y2, x3, y3, x4, y4]


def arrowhead_drawables(el: dict, shapes: list[Drawable], position: str, kind: str, o: Options,
                        background: str) -> list[Drawable]:
    """Excalidraw's ``getArrowheadShapes``; mutates ``o`` exactly as it does (dash removal)."""
    pts = arrowhead_points(el, shapes, position, kind)
    if pts is None:
        return []
    color = el.get("strokeColor", "#1e1e1e")
    if kind in ("dot", "circle", "circle_outline"):
        o.strokeLineDash = None
        x, y, diameter = pts
        return [gen.circle(x, y, diameter, o.with_(
            fill=background if kind == "circle_outline" else color, fillStyle="solid", stroke=color,
            roughness=min(0.5, o.roughness or 0)))]
    if kind in ("triangle", "triangle_outline", "diamond", "diamond_outline"):
        o.strokeLineDash = None
        ring = [(pts[i], pts[i + 1]) for i in range(0, len(pts), 2)]
        return [gen.polygon(ring + [ring[0]], o.with_(
            fill=background if kind.endswith("_outline") else color, fillStyle="solid",
            roughness=min(1, o.roughness or 0)))]
    if kind == "crowfoot_one":
        return [gen.line(pts[2], pts[3], pts[4], pts[5], o)]
    x2, y2, x3, y3, x4, y4 = pts
    if el.get("strokeStyle") == "dotted":
        dash = [1.5, 6 + el.get("strokeWidth", 2) - 1]
        o.strokeLineDash = [dash[0], dash[1] - 1]
    else:
        o.strokeLineDash = None
    o.roughness = min(1, o.roughness or 0)
    out = [gen.line(x3, y3, x2, y2, o), gen.line(x4, y4, x2, y2, o)]
    if kind == "crowfoot_one_or_many":
        one = arrowhead_points(el, shapes, position, "crowfoot_one")
        if one is not None:
            out.append(gen.line(one[2], one[3], one[4], one[5], o))
    return out
