"""Curve flattening and simplification (the ``points-on-curve`` / ``points-on-path`` helpers Rough.js
uses to turn a path into polygons for hachure fills), plus SVG path normalisation.

Path strings are tokenised by the ``rough`` package's parser; ``normalize`` then rewrites quadratic
curves as cubics exactly as ``path-data-parser`` does, so the random draws line up with Rough.js.
"""

from __future__ import annotations

import math

from rough.renderer import parsePathCommands, toAbsolute

Point = tuple[float, float]


def normalize(d: str) -> list[tuple[str, list[float]]]:
    """M/L/C/Z segments of a path (absolute), with H/V/Q converted the way path-data-parser does."""
    out: list[tuple[str, list[float]]] = []
    cx = cy = sx = sy = 0.0
    for key, data in toAbsolute(parsePathCommands(d)):
        if key == "M":
            cx, cy = sx, sy = data[0], data[1]
            out.append(("M", [cx, cy]))
        elif key == "L":
            cx, cy = data
            out.append(("L", [cx, cy]))
        elif key == "H":
            cx = data[0]
            out.append(("L", [cx, cy]))
        elif key == "V":
            cy = data[0]
            out.append(("L", [cx, cy]))
        elif key == "C":
            out.append(("C", list(data)))
            cx, cy = data[4], data[5]
        elif key == "Q":
            x1, y1, x, y = data
            out.append(("C", [cx + 2 * (x1 - cx) / 3, cy + 2 * (y1 - cy) / 3,
                              x + 2 * (x1 - x) / 3, y + 2 * (y1 - y) / 3, x, y]))
            cx, cy = x, y
        elif key == "Z":
            out.append(("Z", []))
            cx, cy = sx, sy
    return out


def _dist_sq(a: Point, b: Point) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def _lerp(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _seg_dist_sq(p: Point, v: Point, w: Point) -> float:
    l2 = _dist_sq(v, w)
    if l2 == 0:
        return _dist_sq(p, v)
    t = ((p[0] - v[0]) * (w[0] - v[0]) + (p[1] - v[1]) * (w[1] - v[1])) / l2
    t = max(0.0, min(1.0, t))
    return _dist_sq(p, _lerp(v, w, t))


def _flatness(p: list[Point], i: int) -> float:
    p1, p2, p3, p4 = p[i], p[i + 1], p[i + 2], p[i + 3]
    ux = (3 * p2[0] - 2 * p1[0] - p4[0]) ** 2
    uy = (3 * p2[1] - 2 * p1[1] - p4[1]) ** 2
    vx = (3 * p3[0] - 2 * p4[0] - p1[0]) ** 2
    vy = (3 * p3[1] - 2 * p4[1] - p1[1]) ** 2
    return max(ux, vx) + max(uy, vy)


def _split(p: list[Point], i: int, tol: float, out: list[Point]) -> None:
    if _flatness(p, i) < tol:
        p0 = p[i]
        if out:
            if math.sqrt(_dist_sq(out[-1], p0)) > 1:
                out.append(p0)
        else:
            out.append(p0)
        out.append(p[i + 3])
        return
    p1, p2, p3, p4 = p[i], p[i + 1], p[i + 2], p[i + 3]
    q1, q2, q3 = _lerp(p1, p2, 0.5), _lerp(p2, p3, 0.5), _lerp(p3, p4, 0.5)
    r1, r2 = _lerp(q1, q2, 0.5), _lerp(q2, q3, 0.5)
    red = _lerp(r1, r2, 0.5)
    _split([p1, q1, r1, red], 0, tol, out)
    _split([red, r2, q3, p4], 0, tol, out)


def simplify(points: list[Point], start: int, end: int, eps: float, out: list[Point] | None = None) -> list[Point]:
    """Ramer-Douglas-Peucker as points-on-curve writes it (note the ``maxNdx = 1`` start)."""
    out = [] if out is None else out
    s, e = points[start], points[end - 1]
    max_d, max_i = 0.0, 1
    for i in range(start + 1, end - 1):
        d = _seg_dist_sq(points[i], s, e)
        if d > max_d:
            max_d, max_i = d, i
    if math.sqrt(max_d) > eps:
        simplify(points, start, max_i + 1, eps, out)
        simplify(points, max_i, end, eps, out)
    else:
        if not out:
            out.append(s)
        out.append(e)
    return out


def points_on_beziers(points: list[Point], tol: float = 0.15, distance: float = 0) -> list[Point]:
    out: list[Point] = []
    for k in range((len(points) - 1) // 3):
        _split(points, k * 3, tol, out)
    if distance and distance > 0:
        return simplify(out, 0, len(out), distance)
    return out


def points_on_path(d: str, tol: float, distance: float) -> list[list[Point]]:
    """Polygons along a path (points-on-path ``pointsOnPath``)."""
    sets: list[list[Point]] = []
    current: list[Point] = []
    pending: list[Point] = []
    start: Point = (0.0, 0.0)

    def flush_curve() -> None:
        nonlocal pending
        if len(pending) >= 4:
            current.extend(points_on_beziers(pending, tol))
        pending = []

    def flush_points() -> None:
        nonlocal current
        flush_curve()
        if current:
            sets.append(current)
            current = []

    for key, data in normalize(d):
        if key == "M":
            flush_points()
            start = (data[0], data[1])
            current.append(start)
        elif key == "L":
            flush_curve()
            current.append((data[0], data[1]))
        elif key == "C":
            if not pending:
                pending.append(current[-1] if current else start)
            pending += [(data[0], data[1]), (data[2], data[3]), (data[4], data[5])]
        elif key == "Z":
            flush_curve()
            current.append(start)
    flush_points()
    if not distance:
        return sets
    return [s for s in (simplify(st, 0, len(st), distance) for st in sets) if s]


def curve_to_bezier(pts: list[Point], tightness: float = 0) -> list[Point]:
    """Catmull-Rom through ``pts`` as cubic Bezier control points (points-on-curve ``curveToBezier``)."""
    if len(pts) == 3:
        return [pts[0], pts[1], pts[2], pts[2]]
    p = [pts[0], pts[0], *pts[1:], pts[-1]]
    s = 1 - tightness
    out: list[Point] = [p[0]]
    i = 1
    while i + 2 < len(p):
        c = p[i]
        out.append((c[0] + (s * p[i + 1][0] - s * p[i - 1][0]) / 6, c[1] + (s * p[i + 1][1] - s * p[i - 1][1]) / 6))
        out.append((p[i + 1][0] + (s * p[i][0] - s * p[i + 2][0]) / 6,
                    p[i + 1][1] + (s * p[i][1] - s * p[i + 2][1]) / 6))
        out.append(p[i + 1])
        i += 1
    return out
