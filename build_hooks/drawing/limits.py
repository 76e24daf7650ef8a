"""Sane bounds for a scene, checked once it is restored and before anything is drawn.

A scene is JSON an author (or anyone who sends one) wrote, and Python's ``json`` reads ``NaN``,
``Infinity`` and ``1e400`` (infinity) as numbers: left alone they reach the SVG as
``viewBox="0 0 nan 70"`` or raise ``OverflowError`` deep in the renderer. Here every number
the renderer reads must be finite and within :data:`MAX_COORD` scene units (font sizes, stroke
widths and line heights within their own smaller bounds), a scene holds at most
:data:`MAX_ELEMENTS` elements and an element at most :data:`MAX_POINTS` points, and the fields
that reach markup have the type the renderer expects (text is a string, a link a string, an
image's file an embedded ``data:image/`` URL). A problem is a :class:`DrawingError` naming the
scene, the element (its id and type), the field and the fix.
"""

from __future__ import annotations

import math

from build_hooks.core.errors import DrawingError

MAX_COORD = 1e6          # |x|, |y|, width, height, points, crop: a scene is at most this many units across
MAX_ELEMENTS = 10_000    # elements in one scene (deleted ones included: they are read too)
MAX_POINTS = 20_000      # points of one line, arrow or freedraw stroke
MAX_TEXT = 100_000       # characters of one text element
LIMITS = {  # field -> (lowest, highest) allowed
    "fontSize": (1e-3, 10_000.0),
    "strokeWidth": (0.0, 1_000.0),
    "lineHeight": (0.0, 100.0),
    "opacity": (0.0, 100.0),
    "roughness": (0.0, 100.0),
    "angle": (-MAX_COORD, MAX_COORD),
}
NUMBERS = ("x", "y", "width", "height", "angle", "strokeWidth", "opacity", "roughness", "fontSize", "lineHeight")
STRINGS = ("text", "originalText", "link", "textAlign", "verticalAlign", "fileId", "name", "containerId",
           "frameId", "strokeColor", "backgroundColor", "fillStyle", "strokeStyle")
CROP = ("x", "y", "width", "height", "naturalWidth", "naturalHeight")


def _who(el: dict, n: int) -> str:
    eid = el.get("id")
    name = repr(eid) if isinstance(eid, str) and eid else f"#{n + 1}"
    return f"element {name} ({el.get('type', '?')})"


def _describe(value) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and math.isinf(value):
        return "infinity" if value > 0 else "-infinity"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bound(value: float) -> str:
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


def number(value, field: str, source: str, who: str, low: float = -MAX_COORD, high: float = MAX_COORD) -> float:
    """``value`` as a float when it is a finite number within [low, high]; a DrawingError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DrawingError(f"{source}: {who} has {field} = {_describe(value)}, which is not a number; "
                           "set it to a number (or re-save the scene from Excalidraw)")
    try:
        result = float(value)
    except OverflowError:  # an integer too large for a float
        result = math.inf if value > 0 else -math.inf
    if not math.isfinite(result):
        raise DrawingError(f"{source}: {who} has {field} = {_describe(result)}, which is not a finite number; "
                           "set it to a number (or re-save the scene from Excalidraw)")
    if not low <= result <= high:
        raise DrawingError(f"{source}: {who} has {field} = {_describe(value)}, outside the range "
                           f"{_bound(low)} to {_bound(high)} a scene may use; fix the value in the scene (or "
                           "redraw the element at a sane size)")
    return result


def check_counts(elements: list, source: str) -> None:
    if len(elements) > MAX_ELEMENTS:
        raise DrawingError(f"{source}: {len(elements):,} elements, over the limit of {MAX_ELEMENTS:,} per scene; "
                           "split the drawing into several scenes")


def check_points(el: dict, source: str, who: str, key: str = "points") -> None:
    """``el[key]``: at most :data:`MAX_POINTS` [x, y] pairs of bounded numbers (absent: fine)."""
    points = el.get(key)
    if points is None:
        return
    if not isinstance(points, list):
        raise DrawingError(f"{source}: {who} has {key} = {_describe(points)}, not a list of [x, y] points; "
                           "re-save the scene from Excalidraw")
    if len(points) > MAX_POINTS:
        raise DrawingError(f"{source}: {who} has {len(points):,} {key}, over the limit of {MAX_POINTS:,} per "
                           "element; simplify the stroke or split it in several")
    for i, point in enumerate(points):
        if not isinstance(point, (list, tuple)) or len(point) < 2 \
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in point[:2]):
            raise DrawingError(f"{source}: {who} has malformed points ({key}[{i}] = {_describe(point)}); each "
                               "point must be [x, y] numbers relative to the element's x/y")
        number(point[0], f"{key}[{i}][0]", source, who)
        number(point[1], f"{key}[{i}][1]", source, who)


def _check_plain_fields(el: dict, source: str, who: str) -> None:
    """The numbers and strings, and the length of the text."""
    for key in NUMBERS:
        if el.get(key) is not None:
            low, high = LIMITS.get(key, (-MAX_COORD, MAX_COORD))
            number(el[key], key, source, who, low, high)
    for key in STRINGS:
        value = el.get(key)
        if value is not None and not isinstance(value, str):
            raise DrawingError(f"{source}: {who} has {key} = {_describe(value)}, which is not text; "
                               "make it a string (or re-save the scene from Excalidraw)")
    for key in ("text", "originalText"):
        if len(el.get(key) or "") > MAX_TEXT:
            raise DrawingError(f"{source}: {who} holds {len(el[key]):,} characters of {key}, over the limit "
                               f"of {MAX_TEXT:,}; shorten it")


def _check_last_point(el: dict, source: str, who: str) -> None:
    if el.get("lastCommittedPoint") is not None:
        point = el["lastCommittedPoint"]
        if not isinstance(point, (list, tuple)) or len(point) < 2:
            raise DrawingError(f"{source}: {who} has a malformed lastCommittedPoint {_describe(point)}; "
                               "make it [x, y] or null")
        for i in (0, 1):
            number(point[i], f"lastCommittedPoint[{i}]", source, who)


def _check_pressures(el: dict, source: str, who: str) -> None:
    pressures = el.get("pressures")
    if pressures is not None:
        if not isinstance(pressures, list) or len(pressures) > MAX_POINTS:
            raise DrawingError(f"{source}: {who} has pressures that are not a list of at most "
                               f"{MAX_POINTS:,} numbers; re-save the scene from Excalidraw")
        for i, value in enumerate(pressures):
            number(value, f"pressures[{i}]", source, who, 0.0, 1e3)


def _check_roundness(el: dict, source: str, who: str) -> None:
    roundness = el.get("roundness")
    if roundness is not None:
        if not isinstance(roundness, dict):
            raise DrawingError(f"{source}: {who} has roundness = {_describe(roundness)}, not an object or "
                               "null; re-save the scene from Excalidraw")
        if roundness.get("value") is not None:
            number(roundness["value"], "roundness.value", source, who, 0.0, MAX_COORD)


def _check_scale(el: dict, source: str, who: str) -> None:
    if "scale" in el:
        scale = el["scale"]
        if not isinstance(scale, (list, tuple)) or len(scale) < 2:
            raise DrawingError(f"{source}: {who} has scale = {_describe(scale)}; make it [x, y] numbers")
        for i in (0, 1):
            number(scale[i], f"scale[{i}]", source, who)


def _check_crop(el: dict, source: str, who: str) -> None:
    crop = el.get("crop")
    if crop is not None:
        if not isinstance(crop, dict):
            raise DrawingError(f"{source}: {who} has crop = {_describe(crop)}, not an object or null")
        for key in CROP:
            if crop.get(key) is not None:
                number(crop[key], f"crop.{key}", source, who)


def check_element(el: dict, n: int, source: str) -> None:
    """Every field of one restored element that the renderer reads, as described above."""
    who = _who(el, n)
    for check in (_check_plain_fields, check_points, _check_last_point, _check_pressures, _check_roundness,
                  _check_scale, _check_crop):
        check(el, source, who)


def check_files(files, source: str) -> None:
    """Embedded files: an object of objects; an image's dataURL must be a ``data:image/`` URL."""
    if not isinstance(files, dict):
        raise DrawingError(f"{source}: \"files\" is {_describe(files)}, not an object; re-save the scene "
                           "from Excalidraw")
    for fid, entry in files.items():
        if not isinstance(entry, dict):
            raise DrawingError(f"{source}: embedded file {fid!r} is {_describe(entry)}, not an object; "
                               "re-insert the image in Excalidraw and save again")
        url = entry.get("dataURL")
        if url is not None and not (isinstance(url, str) and url.startswith("data:image/")):
            raise DrawingError(f"{source}: embedded file {fid!r} has a dataURL that is not a data:image/ URL "
                               f"({_describe(url)}); re-insert the image in Excalidraw and save again")
