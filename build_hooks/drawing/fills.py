"""Pattern fills (hachure, cross-hatch, zigzag, dots) as Rough.js 4.6 computes them.

The ``rough`` package fills with a non-zero winding scan line and its own random stream; Rough.js
uses the even-odd edge table of ``hachure-fill``, integer scan lines (``Math.round``), and may draw
every line (skip offset = gap) when the element's generator says so. Reproduced here.
"""

from __future__ import annotations

import math
import random as _stdlib_random

from rough.core import Op, OpSet

from build_hooks.drawing.bezier import Point
from build_hooks.drawing.rng import Options, js_round

Line = tuple[Point, Point]


def _rotate(points: list[list[float]], degrees: float) -> None:
    a = math.pi / 180 * degrees
    c, s = math.cos(a), math.sin(a)
    for p in points:
        x, y = p
        p[0] = x * c - y * s
        p[1] = x * s + y * c


def _straight_lines(polygons: list[list[list[float]]], gap: float, step: float) -> list[list[list[float]]]:
    edges = []
    for poly in polygons:
        verts = list(poly)
        if verts[0][0] != verts[-1][0] or verts[0][1] != verts[-1][1]:
            verts.append([verts[0][0], verts[0][1]])
        if len(verts) <= 2:
            continue
        for p1, p2 in zip(verts, verts[1:]):
            if p1[1] != p2[1]:
                ymin = min(p1[1], p2[1])
                edges.append({"ymin": ymin, "ymax": max(p1[1], p2[1]),
                              "x": p1[0] if ymin == p1[1] else p2[0],
                              "islope": (p2[0] - p1[0]) / (p2[1] - p1[1])})
    lines: list[list[list[float]]] = []
    if not edges:
        return lines
    # sort as hachure-fill does: ymin, then x, then ymax
    edges.sort(key=lambda e: (e["ymin"], e["x"], e["ymax"]))
    active: list[dict] = []
    y = edges[0]["ymin"]
    iteration = 0
    while active or edges:
        if edges:
            ix = -1
            for i, e in enumerate(edges):
                if e["ymin"] > y:
                    break
                ix = i
            active += edges[: ix + 1]
            del edges[: ix + 1]
        active = [e for e in active if e["ymax"] > y]
        active.sort(key=lambda e: e["x"])
        if step != 1 or iteration % gap == 0:
            for i in range(0, len(active) - 1, 2):
                lines.append([[js_round(active[i]["x"]), y], [js_round(active[i + 1]["x"]), y]])
        y += step
        for e in active:
            e["x"] += step * e["islope"]
        iteration += 1
    return lines


def hachure_lines(polygons: list[list[Point]], o: Options) -> list[Line]:
    """Rough.js ``polygonHachureLines``: scan lines at ``hachureAngle`` spaced ``hachureGap``."""
    angle = o.hachureAngle + 90
    gap = o.hachureGap if o.hachureGap >= 0 else o.strokeWidth * 4
    gap = max(gap, 0.1)
    skip: float = 1
    if o.roughness >= 1:
        r = o.randomizer.next() if o.randomizer is not None else 0
        if (r or _stdlib_random.random()) > 0.7:
            skip = gap
    polys = [[[p[0], p[1]] for p in poly] for poly in polygons if poly]
    if angle:
        for poly in polys:
            _rotate(poly, angle)
    lines = _straight_lines(polys, max(gap, 0.1), skip or 1)
    if angle:
        _rotate([p for ln in lines for p in ln], -angle)
    return [((a[0], a[1]), (b[0], b[1])) for a, b in lines]


def _render(lines: list[Line], o: Options) -> list[Op]:
    from build_hooks.drawing.strokes import double_line

    ops: list[Op] = []
    for (x1, y1), (x2, y2) in lines:
        ops += double_line(x1, y1, x2, y2, o, filling=True)
    return ops


def _zigzag(polygons: list[list[Point]], o: Options) -> list[Op]:
    gap = o.hachureGap if o.hachureGap >= 0 else o.strokeWidth * 4
    gap = max(gap, 0.1)
    lines = hachure_lines(polygons, o.with_(hachureGap=gap))
    a = math.pi / 180 * o.hachureAngle
    dx, dy = gap * 0.5 * math.cos(a), gap * 0.5 * math.sin(a)
    zz: list[Line] = []
    for p1, p2 in lines:
        if math.hypot(p1[0] - p2[0], p1[1] - p2[1]):
            zz.append(((p1[0] - dx, p1[1] + dy), p2))
            zz.append(((p1[0] + dx, p1[1] - dy), p2))
    return _render(zz, o)


def _dots(polygons: list[list[Point]], o: Options) -> list[Op]:
    from build_hooks.drawing.strokes import ellipse_params, ellipse_with_params

    o = o.with_(hachureAngle=0)
    lines = hachure_lines(polygons, o)
    gap = max(o.hachureGap if o.hachureGap >= 0 else o.strokeWidth * 4, 0.1)
    weight = o.fillWeight if o.fillWeight >= 0 else o.strokeWidth / 2
    ro = gap / 4
    # Rough.js scatters dots with Math.random; a generator seeded by the element keeps builds stable
    scatter = _stdlib_random.Random(o.seed)
    ops: list[Op] = []
    for (x1, y1), (x2, y2) in lines:
        length = math.hypot(x2 - x1, y2 - y1)
        count = math.ceil(length / gap) - 1
        off = length - count * gap
        x = (x1 + x2) / 2 - gap / 4
        miny = min(y1, y2)
        for i in range(count):
            y = miny + off + i * gap
            cx = x - ro + scatter.random() * 2 * ro
            cy = y - ro + scatter.random() * 2 * ro
            ops += ellipse_with_params(cx, cy, o, ellipse_params(weight, weight, o))[0].ops
    return ops


def pattern_fill(polygons: list[list[Point]], o: Options) -> OpSet:
    style = o.fillStyle
    if style == "zigzag":
        ops = _zigzag(polygons, o)
    elif style == "dots":
        ops = _dots(polygons, o)
    elif style == "cross-hatch":
        ops = _render(hachure_lines(polygons, o), o)
        ops += _render(hachure_lines(polygons, o.with_(hachureAngle=o.hachureAngle + 90)), o)
    else:
        ops = _render(hachure_lines(polygons, o), o)
    return OpSet("fillSketch", ops)
