"""Frames: the name label above each frame, the clip path of its children, and exporting one
frame on its own (only its content, clipped, with the viewBox on the frame).
"""

from __future__ import annotations

from build_hooks.core.errors import DrawingError
from build_hooks.drawing.fonts import FAMILIES
from build_hooks.drawing.text import line_width

LABEL_OFFSET_Y = 3
LABEL_SIZE = 14
LABEL_LINE_HEIGHT = 1.25
LABEL_LIGHT, LABEL_DARK = "#999999", "#7a7a7a"
RADIUS = 8
FRAME_STROKE = "#bbb"


def is_frame(el: dict) -> bool:
    return el["type"] in ("frame", "magicframe")


def title(frame: dict) -> str:
    name = frame.get("name")
    if name is None:
        return "Frame" if frame["type"] == "frame" else "AI Frame"
    return name


def label_element(frame: dict, dark: bool) -> dict:
    """The synthetic text element the exporter adds above a frame (Helvetica 14px, truncated)."""
    fam = FAMILIES[2]
    text = title(frame)
    width = line_width(text, fam, LABEL_SIZE)
    if width > frame["width"]:
        for n in range(len(text), 0, -1):
            cand = text[:n] + "..."
            if line_width(cand, fam, LABEL_SIZE) <= frame["width"]:
                text, width = cand, line_width(cand, fam, LABEL_SIZE)
                break
    height = LABEL_SIZE * LABEL_LINE_HEIGHT
    return {
        "id": f"{frame.get('id', 'frame')}-label", "type": "text", "x": frame["x"],
        "y": frame["y"] - LABEL_OFFSET_Y - height, "width": min(width, frame["width"]), "height": height,
        "angle": 0, "strokeColor": LABEL_DARK if dark else LABEL_LIGHT, "opacity": 100, "text": text,
        "originalText": text, "fontSize": LABEL_SIZE, "fontFamily": 2, "lineHeight": LABEL_LINE_HEIGHT,
        "textAlign": "left", "verticalAlign": "top", "containerId": None, "frameId": None,
    }


def with_labels(elements: list[dict], dark: bool) -> list[dict]:
    out: list[dict] = []
    for el in elements:
        if is_frame(el):
            out.append(label_element(el, dark))
        out.append(el)
    return out


def select_frame(elements: list[dict], name: str, source: str) -> tuple[dict, list[dict]]:
    """The named frame and what the exporter shows of it (getElementsOverlappingFrame): its children
    and their bound text, plus free elements whose bounds overlap the frame."""
    from build_hooks.drawing.bounds import element_bounds
    from build_hooks.drawing.shapes import element_drawables

    frames = [e for e in elements if is_frame(e)]
    matches = [f for f in frames if title(f) == name or f.get("id") == name]
    if not matches:
        names = ", ".join(repr(title(f)) for f in frames) or "none"
        raise DrawingError(f"{source}: no frame named {name!r} (frames in this scene: {names}); "
                           "fix the frame option or rename the frame in Excalidraw")
    frame = matches[0]
    fx1, fy1 = frame["x"], frame["y"]
    fx2, fy2 = fx1 + frame["width"], fy1 + frame["height"]
    by_id = {e["id"]: e for e in elements}

    def overlaps(e: dict) -> bool:
        shapes = element_drawables(e) if e["type"] in ("line", "arrow") else []
        x1, y1, x2, y2 = element_bounds(e, shapes)
        return x1 <= fx2 and x2 >= fx1 and y1 <= fy2 and y2 >= fy1

    def shown(e: dict) -> bool:
        if is_frame(e):
            return False
        if e["type"] == "text" and e.get("containerId") in by_id:
            return shown(by_id[e["containerId"]])
        if e.get("frameId") == frame["id"]:
            return True
        return not e.get("frameId") and overlaps(e)

    return frame, [e for e in elements if shown(e)]


def root_elements(elements: list[dict]) -> list[dict]:
    """What the export's bounds are measured on: frames and everything not inside one."""
    frame_ids = {e["id"] for e in elements if is_frame(e)}
    return [e for e in elements if is_frame(e) or not e.get("frameId") or e["frameId"] not in frame_ids]
