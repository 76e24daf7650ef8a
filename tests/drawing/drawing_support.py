"""Builders for small scenes in tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_n = 0


def el(kind: str, **kw) -> dict:
    global _n
    _n += 1
    base = {"id": kw.pop("id", f"e{_n}"), "type": kind, "x": 0, "y": 0, "width": 100, "height": 60, "angle": 0,
            "strokeColor": "#1e1e1e", "backgroundColor": "transparent", "fillStyle": "solid", "strokeWidth": 2,
            "strokeStyle": "solid", "roughness": 1, "opacity": 100, "groupIds": [], "frameId": None,
            "roundness": None, "seed": 1000 + _n, "isDeleted": False, "boundElements": None, "link": None,
            "locked": False}
    if kind in ("line", "arrow"):
        base["points"] = [[0, 0], [100, 60]]
    if kind == "arrow":
        base.update({"startArrowhead": None, "endArrowhead": "arrow"})
    if kind == "text":
        base.update({"text": "hi", "originalText": "hi", "fontSize": 20, "fontFamily": 5, "textAlign": "left",
                     "verticalAlign": "top", "containerId": None, "lineHeight": 1.25, "width": 20, "height": 25})
    base.update(kw)
    return base


def scene(*elements, files=None, bg="#ffffff") -> dict:
    return {"type": "excalidraw", "version": 2, "elements": list(elements),
            "appState": {"viewBackgroundColor": bg}, "files": files or {}}


def groups(svg: str) -> list[str]:
    """Top-level children of the svg after <defs> and the background rect, as raw strings."""
    body = svg.split("</defs>", 1)[1]
    if body.startswith("<rect"):  # the background
        body = body[body.index("</rect>") + len("</rect>"):]
    out, depth, start = [], 0, 0
    for m in re.finditer(r"<(/?)(\w+)[^>]*?(/?)>", body):
        closing, selfclose = m.group(1), m.group(3)
        if m.group(2) == "svg":
            break
        if not closing and not selfclose:
            if depth == 0:
                start = m.start()
            depth += 1
        elif closing:
            depth -= 1
            if depth == 0:
                out.append(body[start:m.end()])
    return out


SHARED_SCENES = ROOT.parent / "shared" / "excalidraw" / "scenes"
SHARED_COMPARE = ROOT.parent / "shared" / "tools" / "excalidraw-ref" / "compare.py"
CHROMIUM = Path("/usr/bin/chromium")


def need_chromium():
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium (apt-get install chromium); never `playwright install`")
    try:
        import playwright  # noqa: F401
    except ImportError:
        pytest.skip("needs Playwright for Python (pip install playwright)")


def need_shared():
    if not SHARED_SCENES.is_dir() or not any(SHARED_SCENES.glob("*.excalidraw")):
        pytest.skip(f"the shared reference scenes are absent ({SHARED_SCENES}); they live beside the repo")
    return sorted(SHARED_SCENES.glob("*.excalidraw"))
