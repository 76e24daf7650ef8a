"""Text: measuring with the committed fonts' advance widths, wrapping bound text, placing it in its
container the way Excalidraw does, and writing ``<text>`` lines like the exporter.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from build_hooks.drawing.fonts import Family, advance, family, vertical_offset

BOUND_TEXT_PADDING = 5  # Excalidraw's BOUND_TEXT_PADDING
RTL = __import__("re").compile(r"^[^A-Za-z\u00C0-\u02B8\u0300-\u0590\u0800-\u1FFF"
                               r"\u2C00-\uFB1C\uFDFE-\uFE6F\uFEFD-\uFFFF]*"
                               r"[\u0591-\u07FF\uFB1D-\uFDFD\uFE70-\uFEFC]")


def lines_of(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def line_width(line: str, fam: Family, size: float) -> float:
    return sum(advance(fam, ch, size) for ch in line)


def measure(text: str, font_family: int, size: float, line_height: float | None = None) -> tuple[float, float]:
    """Width and height of a text block (widest line; lines x line height px)."""
    fam = family(font_family)
    assert fam is not None, font_family
    lh = line_height or fam.line_height
    lines = lines_of(text)
    return max(line_width(ln, fam, size) for ln in lines), len(lines) * size * lh


def wrap(text: str, font_family: int, size: float, max_width: float) -> str:
    """Greedy word wrap at spaces (long words break by character), as Excalidraw's wrapText."""
    fam = family(font_family)
    assert fam is not None, font_family
    out: list[str] = []
    for para in lines_of(text):
        line = ""
        for word in para.split(" "):
            cand = word if not line else f"{line} {word}"
            if line_width(cand, fam, size) <= max_width or not line and line_width(word, fam, size) <= max_width:
                line = cand
                continue
            if line:
                out.append(line)
            line = ""
            while line_width(word, fam, size) > max_width and len(word) > 1:
                cut = len(word)
                while cut > 1 and line_width(word[:cut], fam, size) > max_width:
                    cut -= 1
                out.append(word[:cut])
                word = word[cut:]
            line = word
        out.append(line)
    return "\n".join(out)


def container_box(container: dict) -> tuple[float, float, float, float]:
    """The area bound text may occupy inside its container (x, y, width, height)."""
    x, y, w, h = container["x"], container["y"], container["width"], container["height"]
    kind = container["type"]
    if kind == "ellipse":
        iw, ih = w / 2 * 2 ** 0.5, h / 2 * 2 ** 0.5
        return x + (w - iw) / 2 + BOUND_TEXT_PADDING, y + (h - ih) / 2 + BOUND_TEXT_PADDING, \
            iw - 2 * BOUND_TEXT_PADDING, ih - 2 * BOUND_TEXT_PADDING
    if kind == "diamond":
        return x + w / 4 + BOUND_TEXT_PADDING, y + h / 4 + BOUND_TEXT_PADDING, \
            w / 2 - 2 * BOUND_TEXT_PADDING, h / 2 - 2 * BOUND_TEXT_PADDING
    return x + BOUND_TEXT_PADDING, y + BOUND_TEXT_PADDING, w - 2 * BOUND_TEXT_PADDING, h - 2 * BOUND_TEXT_PADDING


def layout_bound(text_el: dict, container: dict) -> dict:
    """Wrap ``originalText`` to the container and place it per textAlign / verticalAlign."""
    bx, by, bw, bh = container_box(container)
    size, fid = text_el["fontSize"], text_el["fontFamily"]
    wrapped = wrap(text_el.get("originalText") or text_el.get("text", ""), fid, size, bw)
    w, h = measure(wrapped, fid, size, text_el.get("lineHeight"))
    align, valign = text_el.get("textAlign", "center"), text_el.get("verticalAlign", "middle")
    x = bx if align == "left" else bx + bw - w if align == "right" else bx + (bw - w) / 2
    y = by if valign == "top" else by + bh - h if valign == "bottom" else by + (bh - h) / 2
    return {**text_el, "text": wrapped, "x": x, "y": y, "width": w, "height": h}


def arrow_label_position(arrow: dict, label: dict) -> tuple[float, float]:
    """Top-left of a label bound to a line/arrow: centred on its middle point, or on the middle of
    its middle segment (LinearElementEditor.getBoundTextElementPosition)."""
    import math

    from build_hooks.drawing.bezier import curve_to_bezier

    pts = [(p[0], p[1]) for p in arrow.get("points") or [[0, 0]]]
    n = len(pts)
    if n % 2 == 1:
        mx, my = pts[n // 2]
    else:
        i = n // 2 - 1
        (x1, y1), (x2, y2) = pts[i], pts[i + 1]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        if n > 2 and arrow.get("roundness") and not arrow.get("elbowed"):
            c = curve_to_bezier(pts)
            p0, p1, p2, p3 = c[3 * i], c[3 * i + 1], c[3 * i + 2], c[3 * i + 3]
            mx, my = ((p0[k] + 3 * p1[k] + 3 * p2[k] + p3[k]) / 8 for k in (0, 1))
    lx1 = min(p[0] for p in pts)
    lx2 = max(p[0] for p in pts)
    ly1 = min(p[1] for p in pts)
    ly2 = max(p[1] for p in pts)
    cx, cy = (lx1 + lx2) / 2, (ly1 + ly2) / 2
    a = arrow.get("angle") or 0
    if a:
        dx, dy = mx - cx, my - cy
        mx, my = dx * math.cos(a) - dy * math.sin(a) + cx, dx * math.sin(a) + dy * math.cos(a) + cy
    return arrow["x"] + mx - label["width"] / 2, arrow["y"] + my - label["height"] / 2


def text_lines(el: dict, fill: str, palette_style: bool) -> str:
    """The ``<text>`` elements of one text element, in the element's local coordinates."""
    fam = family(el["fontFamily"])
    assert fam is not None
    size = el["fontSize"]
    lh_px = size * el["lineHeight"]
    align = el.get("textAlign", "left")
    x = el["width"] / 2 if align == "center" else el["width"] if align == "right" else 0
    voff = vertical_offset(fam, size, lh_px)
    direction = "rtl" if RTL.match(el.get("text", "")) else "ltr"
    anchor = "middle" if align == "center" else "end" if align == "right" or direction == "rtl" else "start"
    paint = f'style="fill:{fill}; white-space: pre;"' if palette_style else f'fill="{fill}" style="white-space: pre;"'
    font = escape(fam.css_stack(), {'"': "&quot;"})
    out = []
    for i, line in enumerate(lines_of(el.get("text", ""))):
        out.append(f'<text x="{_num(x)}" y="{_num(i * lh_px + voff)}" font-family="{font}" font-size="{_num(size)}px" '
                   f'{paint} text-anchor="{anchor}" direction="{direction}" dominant-baseline="alphabetic">'
                   f"{escape(line)}</text>")
    return "".join(out)


def _num(x: float) -> str:
    s = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s
