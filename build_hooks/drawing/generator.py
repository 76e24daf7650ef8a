"""Rough.js ``RoughGenerator`` shape methods: outline + fill op sets for one drawable.

The order in which each method draws (outline first, then fill, sharing one random stream) is part
of what makes a seed reproduce Excalidraw's sketch, so it follows generator.ts exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from rough.core import OpSet

from build_hooks.drawing.bezier import Point, curve_to_bezier, points_on_beziers, points_on_path
from build_hooks.drawing.fills import pattern_fill
from build_hooks.drawing.rng import Options
from build_hooks.drawing.strokes import curve as _curve
from build_hooks.drawing.strokes import double_line, ellipse_params, ellipse_with_params, solid_fill_polygon, svg_path
from build_hooks.drawing.strokes import linear_path as _linear

NOS = "none"


@dataclass
class Drawable:
    shape: str
    sets: list[OpSet]
    options: Options


def _fill_polygons(polygons: list[list[Point]], o: Options) -> OpSet:
    return solid_fill_polygon(polygons, o) if o.fillStyle == "solid" else pattern_fill(polygons, o)


def line(x1: float, y1: float, x2: float, y2: float, opts: Options) -> Drawable:
    o = opts.with_(randomizer=None)
    return Drawable("line", [OpSet("path", double_line(x1, y1, x2, y2, o))], o)


def rectangle(x: float, y: float, w: float, h: float, opts: Options) -> Drawable:
    return _closed("rectangle", [(x, y), (x + w, y), (x + w, y + h), (x, y + h)], opts)


def polygon(points: list[Point], opts: Options) -> Drawable:
    return _closed("polygon", points, opts)


def _closed(kind: str, points: list[Point], opts: Options) -> Drawable:
    """A closed outline and its fill, drawn in Rough.js's order (outline first, fill painted first)."""
    o = opts.with_(randomizer=None)
    outline = _linear(points, True, o)
    sets = [_fill_polygons([points], o)] if o.fill else []
    if o.stroke != NOS:
        sets.append(outline)
    return Drawable(kind, sets, o)


def linear_path(points: list[Point], opts: Options) -> Drawable:
    o = opts.with_(randomizer=None)
    return Drawable("linearPath", [_linear(points, False, o)], o)


def ellipse(x: float, y: float, w: float, h: float, opts: Options) -> Drawable:
    o = opts.with_(randomizer=None)
    params = ellipse_params(w, h, o)
    outline, estimated = ellipse_with_params(x, y, o, params)
    sets: list[OpSet] = []
    if o.fill:
        if o.fillStyle == "solid":
            shape = ellipse_with_params(x, y, o, params)[0]
            sets.append(OpSet("fillPath", shape.ops))
        else:
            sets.append(pattern_fill([estimated], o))
    if o.stroke != NOS:
        sets.append(outline)
    return Drawable("ellipse", sets, o)


def circle(x: float, y: float, diameter: float, opts: Options) -> Drawable:
    d = ellipse(x, y, diameter, diameter, opts)
    d.shape = "circle"
    return d


def _merged(ops: list) -> list:
    return [op for i, op in enumerate(ops) if i == 0 or op.op != "move"]


def curve(points: list[Point], opts: Options) -> Drawable:
    o = opts.with_(randomizer=None)
    outline = _curve(points, o)
    sets: list[OpSet] = []
    if o.fill and o.fill != NOS and len(points) >= 3:
        if o.fillStyle == "solid":
            shape = _curve(points, o.with_(disableMultiStroke=True,
                                           roughness=(o.roughness + o.fillShapeRoughnessGain) if o.roughness else 0))
            sets.append(OpSet("fillPath", _merged(shape.ops)))
        else:
            poly = points_on_beziers(curve_to_bezier(points), 10, (1 + o.roughness) / 2)
            if poly:
                sets.append(pattern_fill([poly], o))
    if o.stroke != NOS:
        sets.append(outline)
    return Drawable("curve", sets, o)


def path(d: str, opts: Options) -> Drawable:
    o = opts.with_(randomizer=None)
    sets: list[OpSet] = []
    if not d:
        return Drawable("path", sets, o)
    d = d.replace("\n", " ").replace("- ", "-")
    has_fill = bool(o.fill) and o.fill not in ("transparent", NOS)
    polys = points_on_path(d, 1, (1 + o.roughness) / 2)
    outline = svg_path(d, o)
    if has_fill:
        if o.fillStyle == "solid":
            if len(polys) == 1:
                shape = svg_path(d, o.with_(disableMultiStroke=True,
                                            roughness=(o.roughness + o.fillShapeRoughnessGain) if o.roughness else 0))
                sets.append(OpSet("fillPath", _merged(shape.ops)))
            else:
                sets.append(solid_fill_polygon(polys, o))
        else:
            sets.append(pattern_fill(polys, o))
    if o.stroke != NOS:
        sets.append(outline)
    return Drawable("path", sets, o)
