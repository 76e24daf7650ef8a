"""Hand-drawn stroke operations, drawing for drawing what Rough.js's renderer.ts draws.

Built on the ``rough`` package's ``Op``/``OpSet`` types. Its own renderer draws a different
sketch from the same seed (another random generator, a floored ellipse step count, a different
order of random draws), so the stroke algorithms here follow Rough.js 4.6 call for call: each
``offset_opt`` below consumes one number in the same order as the JavaScript.
"""

from __future__ import annotations

import math

from rough.core import Op, OpSet

from build_hooks.drawing.bezier import Point, normalize
from build_hooks.drawing.rng import Options, alter_seed, offset, offset_opt, random


def _line(x1: float, y1: float, x2: float, y2: float, o: Options, overlay: bool) -> list[Op]:
    length_sq = (x1 - x2) ** 2 + (y1 - y2) ** 2
    length = math.sqrt(length_sq)
    if length < 200:
        gain = 1.0
    elif length > 500:
        gain = 0.4
    else:
        gain = -0.0016668 * length + 1.233334
    off = o.maxRandomnessOffset or 0
    if off * off * 100 > length_sq:
        off = length / 10
    half = off / 2
    diverge = 0.2 + random(o) * 0.2
    mid_x = offset_opt(o.bowing * o.maxRandomnessOffset * (y2 - y1) / 200, o, gain)
    mid_y = offset_opt(o.bowing * o.maxRandomnessOffset * (x1 - x2) / 200, o, gain)
    keep = o.preserveVertices
    jitter = half if overlay else off

    def rnd() -> float:
        return offset_opt(jitter, o, gain)

    ops = [Op("move", [x1 + (0 if keep else rnd()), y1 + (0 if keep else rnd())])]
    ops.append(Op("bcurveTo", [
        mid_x + x1 + (x2 - x1) * diverge + rnd(),
        mid_y + y1 + (y2 - y1) * diverge + rnd(),
        mid_x + x1 + 2 * (x2 - x1) * diverge + rnd(),
        mid_y + y1 + 2 * (y2 - y1) * diverge + rnd(),
        x2 + (0 if keep else rnd()),
        y2 + (0 if keep else rnd()),
    ]))
    return ops


def double_line(x1: float, y1: float, x2: float, y2: float, o: Options, filling: bool = False) -> list[Op]:
    single = o.disableMultiStrokeFill if filling else o.disableMultiStroke
    ops = _line(x1, y1, x2, y2, o, False)
    if single:
        return ops
    return ops + _line(x1, y1, x2, y2, o, True)


def linear_path(points: list[Point], close: bool, o: Options) -> OpSet:
    n = len(points)
    if n > 2:
        ops: list[Op] = []
        for i in range(n - 1):
            ops += double_line(points[i][0], points[i][1], points[i + 1][0], points[i + 1][1], o)
        if close:
            ops += double_line(points[-1][0], points[-1][1], points[0][0], points[0][1], o)
        return OpSet("path", ops)
    if n == 2:
        return OpSet("path", double_line(points[0][0], points[0][1], points[1][0], points[1][1], o))
    return OpSet("path", [])


def _curve(points: list[Point], o: Options) -> list[Op]:
    n = len(points)
    ops: list[Op] = []
    if n > 3:
        s = 1 - o.curveTightness
        ops.append(Op("move", [points[1][0], points[1][1]]))
        i = 1
        while i + 2 < n:
            c, nx, pv, nn = points[i], points[i + 1], points[i - 1], points[i + 2]
            ops.append(Op("bcurveTo", [
                c[0] + (s * nx[0] - s * pv[0]) / 6, c[1] + (s * nx[1] - s * pv[1]) / 6,
                nx[0] + (s * c[0] - s * nn[0]) / 6, nx[1] + (s * c[1] - s * nn[1]) / 6,
                nx[0], nx[1],
            ]))
            i += 1
    elif n == 3:
        ops.append(Op("move", [points[1][0], points[1][1]]))
        ops.append(Op("bcurveTo", [points[1][0], points[1][1], points[2][0], points[2][1], points[2][0], points[2][1]]))
    elif n == 2:
        ops += _line(points[0][0], points[0][1], points[1][0], points[1][1], o, True)
    return ops


def _curve_with_offset(points: list[Point], off: float, o: Options) -> list[Op]:
    if not points:
        return []
    ps: list[Point] = []
    ps.append((points[0][0] + offset_opt(off, o), points[0][1] + offset_opt(off, o)))
    ps.append((points[0][0] + offset_opt(off, o), points[0][1] + offset_opt(off, o)))
    for i in range(1, len(points)):
        ps.append((points[i][0] + offset_opt(off, o), points[i][1] + offset_opt(off, o)))
        if i == len(points) - 1:
            ps.append((points[i][0] + offset_opt(off, o), points[i][1] + offset_opt(off, o)))
    return _curve(ps, o)


def curve(points: list[Point], o: Options) -> OpSet:
    if not points:
        return OpSet("path", [])
    o1 = _curve_with_offset(points, 1 * (1 + o.roughness * 0.2), o)
    o2 = [] if o.disableMultiStroke else _curve_with_offset(points, 1.5 * (1 + o.roughness * 0.22), alter_seed(o))
    return OpSet("path", o1 + o2)


def ellipse_params(width: float, height: float, o: Options) -> tuple[float, float, float]:
    psq = math.sqrt(math.pi * 2 * math.sqrt(((width / 2) ** 2 + (height / 2) ** 2) / 2))
    steps = math.ceil(max(o.curveStepCount, (o.curveStepCount / math.sqrt(200)) * psq))
    increment = math.pi * 2 / steps
    rx, ry = abs(width / 2), abs(height / 2)
    fit = 1 - o.curveFitting
    rx += offset_opt(rx * fit, o)
    ry += offset_opt(ry * fit, o)
    return increment, rx, ry


def _ellipse_points(inc: float, cx: float, cy: float, rx: float, ry: float, off: float, overlap: float,
                    o: Options) -> tuple[list[Point], list[Point]]:
    core: list[Point] = []
    allp: list[Point] = []
    if o.roughness == 0:
        inc /= 4
        allp.append((cx + rx * math.cos(-inc), cy + ry * math.sin(-inc)))
        angle = 0.0
        while angle <= math.pi * 2:
            p = (cx + rx * math.cos(angle), cy + ry * math.sin(angle))
            core.append(p)
            allp.append(p)
            angle += inc
        allp.append((cx + rx, cy))
        allp.append((cx + rx * math.cos(inc), cy + ry * math.sin(inc)))
        return allp, core

    def pt(scale: float, angle: float) -> Point:
        x = offset_opt(off, o) + cx + scale * rx * math.cos(angle)
        y = offset_opt(off, o) + cy + scale * ry * math.sin(angle)
        return (x, y)

    rad = offset_opt(0.5, o) - math.pi / 2
    allp.append(pt(0.9, rad - inc))
    end = math.pi * 2 + rad - 0.01
    angle = rad
    while angle < end:
        p = pt(1, angle)
        core.append(p)
        allp.append(p)
        angle += inc
    allp.append(pt(1, rad + math.pi * 2 + overlap * 0.5))
    allp.append(pt(0.98, rad + overlap))
    allp.append(pt(0.9, rad + overlap * 0.5))
    return allp, core


def ellipse_with_params(x: float, y: float, o: Options,
                        params: tuple[float, float, float]) -> tuple[OpSet, list[Point]]:
    inc, rx, ry = params
    ap1, cp1 = _ellipse_points(inc, x, y, rx, ry, 1, inc * offset(0.1, offset(0.4, 1, o), o), o)
    ops = _curve(ap1, o)
    if not o.disableMultiStroke and o.roughness != 0:
        ap2, _ = _ellipse_points(inc, x, y, rx, ry, 1.5, 0, o)
        ops += _curve(ap2, o)
    return OpSet("path", ops), cp1


def _bezier_to(x1: float, y1: float, x2: float, y2: float, x: float, y: float, cur: Point, o: Options) -> list[Op]:
    ops: list[Op] = []
    ros = [o.maxRandomnessOffset or 1, (o.maxRandomnessOffset or 1) + 0.3]
    keep = o.preserveVertices
    for i in range(1 if o.disableMultiStroke else 2):
        if i == 0:
            ops.append(Op("move", [cur[0], cur[1]]))
        else:
            ops.append(Op("move", [cur[0] + (0 if keep else offset_opt(ros[0], o)),
                                   cur[1] + (0 if keep else offset_opt(ros[0], o))]))
        f = (x, y) if keep else (x + offset_opt(ros[i], o), y + offset_opt(ros[i], o))
        ops.append(Op("bcurveTo", [x1 + offset_opt(ros[i], o), y1 + offset_opt(ros[i], o),
                                   x2 + offset_opt(ros[i], o), y2 + offset_opt(ros[i], o), f[0], f[1]]))
    return ops


def svg_path(d: str, o: Options) -> OpSet:
    ops: list[Op] = []
    first: Point = (0.0, 0.0)
    cur: Point = (0.0, 0.0)
    for key, data in normalize(d):
        if key == "M":
            cur = first = (data[0], data[1])
        elif key == "L":
            ops += double_line(cur[0], cur[1], data[0], data[1], o)
            cur = (data[0], data[1])
        elif key == "C":
            ops += _bezier_to(data[0], data[1], data[2], data[3], data[4], data[5], cur, o)
            cur = (data[4], data[5])
        elif key == "Z":
            ops += double_line(cur[0], cur[1], first[0], first[1], o)
            cur = first
    return OpSet("path", ops)


def solid_fill_polygon(polygons: list[list[Point]], o: Options) -> OpSet:
    ops: list[Op] = []
    for pts in polygons:
        if len(pts) > 2:
            off = o.maxRandomnessOffset or 0
            ops.append(Op("move", [pts[0][0] + offset_opt(off, o), pts[0][1] + offset_opt(off, o)]))
            for p in pts[1:]:
                ops.append(Op("lineTo", [p[0] + offset_opt(off, o), p[1] + offset_opt(off, o)]))
    return OpSet("fillPath", ops)
