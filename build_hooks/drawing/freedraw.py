"""Freedraw strokes: the perfect-freehand outline Excalidraw fills (``getFreeDrawSvgPath``)."""

from __future__ import annotations

import math

from perfect_freehand import get_stroke


def _trunc(x: float) -> str:
    """A coordinate cut (not rounded) to two decimals, as Excalidraw's TO_FIXED_PRECISION regex does."""
    s = repr(float(x))
    if "e" in s or "n" in s:
        s = f"{x:.6f}"
    if s.endswith(".0"):
        s = s[:-2]
    head, dot, tail = s.partition(".")
    return head + (dot + tail[:2] if dot else "")


def _ease_out_sine(t: float) -> float:
    return math.sin(t * math.pi / 2)


def outline_path(el: dict) -> str:
    pts = el.get("points") or []
    pressures = el.get("pressures") or []
    simulate = bool(el.get("simulatePressure", not pressures))
    inp: list[tuple[float, ...]]  # (x, y), or (x, y, pressure)
    if not pts:
        inp = [(0.0, 0.0, 0.5)]
    elif simulate:
        inp = [(p[0], p[1]) for p in pts]
    else:
        inp = [(p[0], p[1], pressures[i] if i < len(pressures) else 0.5) for i, p in enumerate(pts)]
    outline = get_stroke(inp, size=el.get("strokeWidth", 2) * 4.25, thinning=0.6, smoothing=0.5, streamline=0.5,
                         easing=_ease_out_sine, simulate_pressure=simulate, last=bool(el.get("lastCommittedPoint")))
    if not outline:
        return ""
    # quadratic curves through the midpoints, closed: Excalidraw's getSvgPathFromStroke
    parts = ["M", f"{_trunc(outline[0][0])},{_trunc(outline[0][1])}", "Q"]
    n = len(outline)
    for i, (x, y) in enumerate(outline):
        nx, ny = outline[(i + 1) % n]
        parts.append(f"{_trunc(x)},{_trunc(y)}")
        parts.append(f"{_trunc((x + nx) / 2)},{_trunc((y + ny) / 2)}")
    parts += ["L", f"{_trunc(outline[0][0])},{_trunc(outline[0][1])}", "Z"]
    return " ".join(parts)
