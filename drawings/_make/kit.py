"""A small kit for writing Excalidraw scenes by hand, in the series' visual language.

Orange is the subject (the one thing that moves), ink is structure, grey is context, dashed is
recorded / implied / asleep. Every element gets the full set of fields the app writes, a
deterministic id and seed, and text measured with the same font metrics the renderer uses, so
the files open in Excalidraw exactly as they render on the site.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from build_hooks.drawing.text import layout_bound, measure

INK = "#1e1e1e"
SUBJECT = "#f08c00"
SUBJECT_SOFT = "#ffd8a8"
CONTEXT = "#868e96"
CONTEXT_SOFT = "#e9ecef"
INK_SOFT = "#f8f9fa"
PAPER = "#ffffff"
EXCALIFONT = 5


class Scene:
    def __init__(self, name: str) -> None:
        self.name = name
        self.elements: list[dict] = []
        self.n = 0

    # -- plumbing ---------------------------------------------------------------------------
    def _id(self) -> str:
        self.n += 1
        return f"{self.name}-{self.n:03d}"

    def _seed(self, eid: str) -> int:
        return int(hashlib.sha256(eid.encode()).hexdigest()[:8], 16) % 2_000_000_000 + 1

    def _base(self, kind: str, x: float, y: float, w: float, h: float, stroke: str = INK,
              bg: str = "transparent", fill: str = "solid", dashed: bool = False, width: float = 2,
              roughness: int = 1, rounded: bool = False, opacity: int = 100) -> dict:
        eid = self._id()
        el = {
            "id": eid, "type": kind, "x": round(x, 2), "y": round(y, 2), "width": round(w, 2),
            "height": round(h, 2), "angle": 0, "strokeColor": stroke, "backgroundColor": bg, "fillStyle": fill,
            "strokeWidth": width, "strokeStyle": "dashed" if dashed else "solid", "roughness": roughness,
            "opacity": opacity, "groupIds": [], "frameId": None, "index": f"a{self.n:03d}",
            "roundness": {"type": 3} if rounded and kind == "rectangle" else ({"type": 2} if rounded else None),
            "seed": self._seed(eid), "version": 1, "versionNonce": self._seed(eid + "v"), "isDeleted": False,
            "boundElements": [], "updated": 1764000000000, "link": None, "locked": False,
        }
        self.elements.append(el)
        return el

    def _by_id(self, eid: str) -> dict:
        return next(e for e in self.elements if e["id"] == eid)

    # -- shapes -----------------------------------------------------------------------------
    def box(self, x: float, y: float, w: float, h: float, label: str = "", *, stroke: str = INK,
            bg: str = "transparent", fill: str = "solid", dashed: bool = False, size: float = 20,
            color: str | None = None, rounded: bool = True, kind: str = "rectangle", align: str = "center",
            valign: str = "middle", width: float = 2) -> dict:
        el = self._base(kind, x, y, w, h, stroke, bg, fill, dashed, width=width, rounded=rounded)
        if label:
            self.bound_text(el, label, size=size, color=color or stroke, align=align, valign=valign)
        return el

    def bound_text(self, container: dict, text: str, *, size: float = 20, color: str = INK,
                   align: str = "center", valign: str = "middle") -> dict:
        t = self._text_el(0, 0, text, size, color, align)
        t.update({"containerId": container["id"], "verticalAlign": valign})
        t.update({k: (round(v, 2) if isinstance(v, float) else v)
                  for k, v in layout_bound(t, container).items() if k in ("x", "y", "width", "height", "text")})
        container["boundElements"].append({"type": "text", "id": t["id"]})
        return t

    def _text_el(self, x: float, y: float, text: str, size: float, color: str, align: str) -> dict:
        w, h = measure(text, EXCALIFONT, size, 1.25)
        el = self._base("text", x, y, w, h, color)
        el.update({"roundness": None, "text": text, "fontSize": size, "fontFamily": EXCALIFONT,
                   "textAlign": align, "verticalAlign": "top", "containerId": None, "originalText": text,
                   "autoResize": True, "lineHeight": 1.25})
        el["boundElements"] = None
        return el

    def text(self, x: float, y: float, text: str, *, size: float = 20, color: str = INK,
             align: str = "left") -> dict:
        """Free text; ``x`` is the left edge, the centre or the right edge per ``align``."""
        el = self._text_el(x, y, text, size, color, align)
        if align == "center":
            el["x"] = round(x - el["width"] / 2, 2)
        elif align == "right":
            el["x"] = round(x - el["width"], 2)
        return el

    def arrow(self, points: list[tuple[float, float]], *, stroke: str = INK, dashed: bool = False,
              start: str | None = None, end: str | None = "arrow", width: float = 2, rounded: bool = False,
              label: str = "", size: float = 16, kind: str = "arrow", bind: tuple[dict | None, dict | None] = (None, None)) -> dict:
        (x0, y0) = points[0]
        rel = [[round(px - x0, 2), round(py - y0, 2)] for px, py in points]
        xs, ys = [p[0] for p in rel], [p[1] for p in rel]
        el = self._base(kind, x0, y0, max(xs) - min(xs), max(ys) - min(ys), stroke, dashed=dashed, width=width,
                        rounded=rounded)
        el.update({"points": rel, "lastCommittedPoint": None})
        if kind == "arrow":
            el.update({"startArrowhead": start, "endArrowhead": end, "elbowed": False})
        for key, target in zip(("startBinding", "endBinding"), bind):
            el[key] = {"elementId": target["id"], "focus": 0, "gap": 4} if target else None
            if target:
                target["boundElements"].append({"type": "arrow", "id": el["id"]})
        if label:
            t = self._text_el(0, 0, label, size, stroke, "center")
            t.update({"containerId": el["id"], "verticalAlign": "middle"})
            el["boundElements"].append({"type": "text", "id": t["id"]})
            from build_hooks.drawing.text import arrow_label_position
            t["x"], t["y"] = (round(v, 2) for v in arrow_label_position(el, t))
        return el

    def line(self, points: list[tuple[float, float]], **kw) -> dict:
        kw.setdefault("end", None)
        return self.arrow(points, kind="line", **kw)

    def save(self, path: Path) -> None:
        scene = {"type": "excalidraw", "version": 2, "source": "ldr-series drawings/_make",
                 "elements": self.elements,
                 "appState": {"gridSize": 20, "gridStep": 5, "gridModeEnabled": False,
                              "viewBackgroundColor": PAPER},
                 "files": {}}
        path.write_text(json.dumps(scene, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


OUT = Path(__file__).resolve().parents[1]  # drawings/


def write_all(scenes) -> None:
    """Write each ``(make, name)`` scene to ``drawings/<name>.excalidraw``."""
    for make, name in scenes:
        make().save(OUT / f"{name}.excalidraw")
        print(f"wrote drawings/{name}.excalidraw")
