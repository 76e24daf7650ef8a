"""Scene colours -> the series' palette roles, as CSS variables that follow the light/dark toggle.

Excalidraw's own colours for ink, orange and grey map to the roles the theme defines
(``--ldr-ink``, ``--ldr-subject``...). Any other colour keeps its value in light mode and gets a
per-colour variable ``--ldr-c-<hex>`` whose dark value is computed here: the colour Excalidraw's
dark mode would show (``invert(93%) hue-rotate(180deg)``), but applied per element, never as a
filter on the whole figure.
"""

from __future__ import annotations

import math
import re

# role -> (light fallback, dark fallback): the theme's values (theme/assets/ldr.css), used only where
# the page does not define the variable (a standalone `ldr draw` file)
ROLES = {
    "ink": ("#1f2a44", "#e6e9f2"),
    "ink-soft": ("#4f5d7a", "#a9b4cc"),
    "subject": ("#b4420a", "#fb923c"),
    "subject-soft": ("#fde7d4", "#4a2912"),
    "context": ("#646b78", "#9ca3af"),
    "context-soft": ("#dfe2e8", "#3a3f4d"),
    "paper": ("#fffdf9", "#1a1c23"),
}
# --ldr-ink-soft is a softer ink, not a fill: light neutral fills become a faint wash of it
TINT = {"ink-soft": 0.12}

_MAP = {
    "ink": ("#1e1e1e", "#000000", "#000", "black", "#212529", "#1e1e1e"),
    "subject": ("#f08c00", "#e8590c", "#fd7e14", "#f76707", "#ff922b", "#d9480f", "#e67700"),
    "subject-soft": ("#ffc078", "#ffd8a8", "#ffe8cc", "#fff4e6", "#ffa94d", "#ffec99", "#fff3bf"),
    "context": ("#868e96", "#495057", "#adb5bd", "#343a40", "#6c757d"),
    "context-soft": ("#e9ecef", "#ced4da", "#dee2e6"),
    "ink-soft": ("#f8f9fa", "#f1f3f5", "#fafafa", "#f5f5f5"),
    "paper": ("#ffffff", "#fff", "white"),
}
ROLE_OF = {c: role for role, colours in _MAP.items() for c in colours}
_SAFE = re.compile(r"[#\w\s(),.%-]{1,64}")  # what a CSS colour can be; anything else never reaches the SVG
_HEX = re.compile(r"^#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$")
NAMED = {"red": "#ff0000", "green": "#008000", "blue": "#0000ff", "gray": "#808080", "grey": "#808080",
         "orange": "#ffa500", "yellow": "#ffff00", "purple": "#800080"}


def normalise(color: str) -> str | None:
    """``#rrggbb`` (or ``#rrggbbaa``) for a CSS colour we understand, else None."""
    c = (color or "").strip().lower()
    c = NAMED.get(c, c)
    if not _HEX.match(c):
        return None
    h = c[1:]
    if len(h) in (3, 4):
        h = "".join(ch * 2 for ch in h)
    return "#" + h


def dark_variant(hex_color: str) -> str:
    """The colour under ``invert(93%) hue-rotate(180deg)``, per the CSS filter definitions."""
    h = hex_color[1:]
    r, g, b = (int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    r, g, b = (0.93 * (1 - v) + 0.07 * v for v in (r, g, b))
    a = math.radians(180)
    cos, sin = math.cos(a), math.sin(a)
    m = [
        [0.213 + cos * 0.787 - sin * 0.213, 0.715 - cos * 0.715 - sin * 0.715, 0.072 - cos * 0.072 + sin * 0.928],
        [0.213 - cos * 0.213 + sin * 0.143, 0.715 + cos * 0.285 + sin * 0.140, 0.072 - cos * 0.072 - sin * 0.283],
        [0.213 - cos * 0.213 - sin * 0.787, 0.715 - cos * 0.715 + sin * 0.715, 0.072 + cos * 0.928 + sin * 0.072],
    ]
    out = [min(1.0, max(0.0, row[0] * r + row[1] * g + row[2] * b)) for row in m]
    return "#" + "".join(f"{round(v * 255):02x}" for v in out) + h[6:]


class Palette:
    """Turns a scene colour into a paint value; records the per-colour dark variables it used."""

    def __init__(self, enabled: bool = True, dark: bool = False) -> None:
        self.enabled = enabled
        self.dark = dark
        self.custom: dict[str, str] = {}

    def paint(self, color: str | None) -> str:
        if color is None or color in ("", "none", "transparent"):
            return "none"
        color = color.strip()
        if not _SAFE.fullmatch(color):
            return "none"
        if not self.enabled:  # raw colours; in dark mode each flipped the way the app's dark export shows it
            hexc = normalise(color)
            return dark_variant(hexc) if self.dark and hexc else color
        hexc = normalise(color)
        role = ROLE_OF.get(hexc or color.strip().lower())
        if role:
            light, dark = ROLES[role]
            return f"var(--ldr-{role}, {dark if self.dark else light})"
        if hexc is None:
            return color
        if len(hexc) == 9 and hexc.endswith("00"):
            return "none"
        name = f"--ldr-c-{hexc[1:]}"
        self.custom[name] = dark_variant(hexc)
        return f"var({name}, {self.custom[name] if self.dark else hexc})"

    def role(self, color: str | None) -> str | None:
        return ROLE_OF.get(normalise(color or "") or (color or "").strip().lower())

    def tint(self, color: str | None) -> float | None:
        """The opacity a colour is painted at when its role is a wash (light neutral fills)."""
        if not self.enabled or not color:
            return None
        return TINT.get(ROLE_OF.get(normalise(color) or color.strip().lower()) or "")

    def style_rules(self, scope: str) -> str:
        """Dark-scheme values of the unmapped colours this figure used (empty when none)."""
        if not self.enabled or not self.custom:
            return ""
        decls = " ".join(f"{k}: {v};" for k, v in sorted(self.custom.items()))
        return f'[data-md-color-scheme="slate"] {scope} {{ {decls} }}'
