"""Writing drawables as SVG the way RoughSVG.draw does (2-decimal path data, one ``<g>`` per
drawable), with paints routed through the palette.
"""

from __future__ import annotations

from build_hooks.drawing.generator import Drawable
from build_hooks.drawing.palette import Palette


def num(x: float, digits: int = 2) -> str:
    """``+x.toFixed(digits)`` as JavaScript prints it: no trailing zeros, no ``-0``."""
    s = f"{x:.{digits}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def ops_to_path(ops: list) -> str:
    parts = []
    for op in ops:
        d = [num(v) for v in op.data]
        if op.op == "move":
            parts.append(f"M{d[0]} {d[1]}")
        elif op.op == "bcurveTo":
            parts.append(f"C{d[0]} {d[1]}, {d[2]} {d[3]}, {d[4]} {d[5]}")
        elif op.op == "lineTo":
            parts.append(f"L{d[0]} {d[1]}")
    return " ".join(parts)


def _paint(attr: str, value: str, pal: Palette) -> tuple[str, str]:
    """(attribute text, style text) for one paint: CSS variables must go through ``style``."""
    if value.startswith("var("):
        return "", f"{attr}:{value}"
    return f' {attr}="{value}"', ""


def paint_attrs(pal: Palette, stroke: str | None = None, fill: str | None = None, extra_style: str = "",
                opacity: float = 1) -> str:
    attrs, styles = [], []
    for attr, color in (("stroke", stroke), ("fill", fill)):
        if color is None:
            continue
        a, s = _paint(attr, pal.paint(color), pal)
        attrs.append(a)
        if s:
            styles.append(s)
        wash = pal.tint(color)
        if wash is not None:
            styles.append(f"{attr}-opacity:{num(wash * opacity, 4)}")
    if extra_style:
        styles.append(extra_style)
    style = f' style="{"; ".join(styles)}"' if styles else ""
    return "".join(attrs) + style


def drawable_svg(d: Drawable, pal: Palette, group_attrs: str = "", opacity: float = 1) -> str:
    o = d.options
    out = [f"<g{group_attrs}>"]
    for s in d.sets:
        path = ops_to_path(s.ops)
        if s.type == "path":
            dash = ""
            if o.strokeLineDash:
                dash = f' stroke-dasharray="{" ".join(num(v, 6) for v in o.strokeLineDash)}"'
            out.append(f'<path d="{path}"{paint_attrs(pal, stroke=o.stroke, opacity=opacity)} '
                       f'stroke-width="{num(o.strokeWidth, 6)}" '
                       f'fill="none"{dash}></path>')
        elif s.type == "fillPath":
            rule = ' fill-rule="evenodd"' if d.shape in ("curve", "polygon") else ""
            out.append(f'<path d="{path}" stroke="none" '
                       f'stroke-width="0"{paint_attrs(pal, fill=o.fill or "", opacity=opacity)}{rule}>'
                       "</path>")
        elif s.type == "fillSketch":
            weight = o.fillWeight if o.fillWeight >= 0 else o.strokeWidth / 2
            out.append(f'<path d="{path}"{paint_attrs(pal, stroke=o.fill or "", opacity=opacity)} '
                       f'stroke-width="{num(weight, 6)}" '
                       'fill="none"></path>')
    out.append("</g>")
    return "".join(out)
