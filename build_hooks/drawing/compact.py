"""A figure's SVG as a page carries it: what :mod:`render` writes (the exporter's markup, which
``ldr draw`` keeps) with fewer elements and fewer bytes, drawing the same picture.

* A ``<g>`` that only places its paths and texts (a translation, a ``rotate(0 ...)``, paint
  attributes) is unwrapped: the translation moves into the coordinates of its children, its other
  attributes onto each child. A rotated or clipped group, a mask or a link stays as it is.
* Path coordinates are rounded to ``digits`` decimals (whole drawing units by default: half a
  unit at most, a hand-drawn stroke's own wobble is several; the page's drawings are about 500
  units wide, so under a pixel at the width of the text column), then written relative to the
  point each segment starts from (smaller numbers, which compress better).
* A text's attributes that say the default go (``direction="ltr"``, ``text-anchor="start"``,
  ``dominant-baseline="alphabetic"``, ``white-space: pre``, which the drawing stylesheet sets
  for every text of a drawing); the font family most texts use is said once, on the ``<svg>``.
* What draws nothing goes: an empty ``<defs>`` or ``<text>`` (a blank line of a label),
  ``version``, ``stroke-width="0"`` of an unstroked fill, ``rotate(0 ...)``.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from xml.etree import ElementTree as ET

NS = "http://www.w3.org/2000/svg"
_Q = f"{{{NS}}}"
ET.register_namespace("", NS)
PLAIN_TRANSFORM = re.compile(r"^\s*translate\(\s*(-?[\d.]+(?:e-?\d+)?)[\s,]+(-?[\d.]+(?:e-?\d+)?)\s*\)"
                             r"(?:\s*rotate\(\s*0(?:\s+-?[\d.]+){0,2}\s*\))?\s*$")
ROTATE_ZERO = re.compile(r"\s*rotate\(\s*0(?:[\s,]+-?[\d.]+(?:e-?\d+)?){0,2}\s*\)")
PATH_TOKEN = re.compile(r"[A-Za-z]|-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
ABSOLUTE_PAIRS = set("MLCQTZ")  # commands whose arguments are all x y pairs (Z has none)
INHERITED = ("stroke-linecap", "stroke-opacity", "fill-opacity", "stroke", "fill")
TEXT_DEFAULTS = {"direction": "ltr", "text-anchor": "start", "dominant-baseline": "alphabetic"}


def _num(x: float, digits: int) -> str:
    s = f"{x:.{digits}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def path_data(d: str, dx: float = 0.0, dy: float = 0.0, digits: int = 0) -> str | None:
    """``d`` moved by (dx, dy) and rounded, or None when it holds a command this cannot move."""
    out: list[str] = []
    axis = 0
    for token in PATH_TOKEN.findall(d):
        if token.isalpha():
            if token not in ABSOLUTE_PAIRS:
                return None
            out.append(token)
            axis = 0
            continue
        value = float(token) + (dx if axis == 0 else dy)
        axis ^= 1
        text = _num(value, digits)
        # a number after a number needs a separator unless its sign separates them
        if out and not out[-1].isalpha() and not text.startswith("-"):
            out.append(" ")
        out.append(text)
    return "".join(out)


def relative(d: str, digits: int = 0) -> str | None:
    """``d`` (absolute M, L, C, Q, T, Z, as :func:`path_data` writes it) with each segment's points
    relative to where the segment starts (``l``, ``c``, ``q``, ``t``; a subpath still starts at an
    absolute ``M``): smaller numbers, the same points, as the differences are taken of the
    rounded values. None when ``d`` holds anything else."""
    scale = 10 ** digits
    groups: list[tuple[str, list[int]]] = []
    for token in PATH_TOKEN.findall(d):
        if token.isalpha():
            if token not in ABSOLUTE_PAIRS:
                return None
            groups.append((token, []))
        elif not groups:
            return None
        else:
            groups[-1][1].append(round(float(token) * scale))
    per = {"L": 1, "C": 3, "Q": 2, "T": 1}

    def show(v: int) -> str:
        return _num(v / scale, digits)

    out: list[str] = []
    cx = cy = sx = sy = 0
    for command, args in groups:
        if command == "Z":
            out.append("z")
            cx, cy = sx, sy
            continue
        if len(args) % 2:
            return None
        pairs = list(zip(args[0::2], args[1::2]))
        if command == "M":
            if not pairs:
                return None
            (cx, cy), pairs, command = pairs[0], pairs[1:], "L"
            sx, sy = cx, cy
            out.append(f"M{show(cx)} {show(cy)}")
            if not pairs:
                continue
        if len(pairs) % per[command]:
            return None
        numbers: list[str] = []
        for i in range(0, len(pairs), per[command]):
            for x, y in pairs[i:i + per[command]]:
                numbers += [show(x - cx), show(y - cy)]
            cx, cy = pairs[i + per[command] - 1]
        body = ""
        for text in numbers:
            body += text if not body or text.startswith("-") else " " + text
        out.append(command.lower() + body)
    return "".join(out)


def _movable(g: ET.Element) -> tuple[float, float] | None:
    """The translation of a group that only places paths and texts, else None."""
    if set(g.attrib) - {"transform", *INHERITED}:
        return None
    if any(child.tag not in (_Q + "path", _Q + "text") or len(child) for child in g):
        return None
    transform = g.get("transform")
    if transform is None:
        return 0.0, 0.0
    m = PLAIN_TRANSFORM.match(transform)
    return (float(m.group(1)), float(m.group(2))) if m else None


def _move(child: ET.Element, dx: float, dy: float, digits: int) -> bool:
    if child.tag == _Q + "path":
        if "transform" in child.attrib:
            return False
        d = path_data(child.get("d", ""), dx, dy, digits)
        if d is None:
            return False
        child.set("d", d)
        return True
    if "transform" in child.attrib or any(a in child.attrib for a in ("dx", "dy")):
        return False
    try:
        x, y = float(child.get("x", "0")), float(child.get("y", "0"))
    except ValueError:
        return False
    child.set("x", _num(x + dx, 2))
    child.set("y", _num(y + dy, 2))
    return True


def _unwrap(parent: ET.Element, digits: int) -> None:
    for child in list(parent):
        _unwrap(child, digits)
    index = 0
    while index < len(parent):
        g = parent[index]
        shift = _movable(g) if g.tag == _Q + "g" else None
        if shift is None:
            index += 1
            continue
        copies = [copy.deepcopy(child) for child in g]
        if not all(_move(child, *shift, digits) for child in copies):
            index += 1
            continue
        for child in copies:
            for name in INHERITED:
                if name in g.attrib and name not in child.attrib:
                    child.set(name, g.attrib[name])
            child.tail = None
        parent[index:index + 1] = copies
        index += len(copies)


def _tidy(svg: ET.Element, digits: int) -> None:
    svg.attrib.pop("version", None)
    fonts = Counter(t.get("font-family") for t in svg.iter(_Q + "text") if t.get("font-family"))
    common = fonts.most_common(1)[0][0] if fonts else None
    if common is not None:
        svg.set("font-family", common)
    for el in svg.iter():
        transform = el.get("transform")
        if transform is not None:
            transform = ROTATE_ZERO.sub("", transform).strip()
            if transform:
                el.set("transform", transform)
            else:
                del el.attrib["transform"]
        if el.tag == _Q + "path":
            if el.get("stroke") == "none" and el.get("stroke-width") == "0":
                del el.attrib["stroke-width"]
            d = path_data(el.get("d", ""), digits=digits) if el.get("d") else None
            d = relative(d, digits) if d is not None else None
            if d is not None:
                el.set("d", d)
        elif el.tag == _Q + "text":
            for name, default in TEXT_DEFAULTS.items():
                if el.get(name) == default:
                    del el.attrib[name]
            if common is not None and el.get("font-family") == common:
                del el.attrib["font-family"]
            style = el.get("style")
            if style is not None:
                kept = [s.strip() for s in style.split(";") if s.strip() and s.strip() != "white-space: pre"]
                if kept:
                    el.set("style", "; ".join(kept))
                else:
                    del el.attrib["style"]
    empty = {id(e) for e in svg.iter() if e.tag in (_Q + "defs", _Q + "text") and len(e) == 0 and not e.text}
    for parent in list(svg.iter()):
        for child in [c for c in parent if id(c) in empty]:
            parent.remove(child)


def compact(svg: str, digits: int = 0) -> str:
    """The same drawing in fewer elements and bytes (see the module's notes); the markup is
    returned unchanged when it does not parse as one SVG element."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return svg
    if root.tag != _Q + "svg":
        return svg
    _unwrap(root, digits)
    _tidy(root, digits)
    return ET.tostring(root, encoding="unicode")


__all__ = ["compact", "path_data", "relative"]
