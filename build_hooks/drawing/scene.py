"""Loading a scene and bringing it up to date, like the app's ``restore()`` does on open.

Migrations: ``draw`` -> ``line``; ``font: "20px Virgil"`` -> ``fontSize`` + ``fontFamily``;
``strokeSharpness`` -> ``roundness``; ``boundElementIds`` ->
``boundElements``; missing ``fontFamily`` / ``lineHeight`` / ``roundness`` / text alignments get
their defaults; deleted elements are dropped. Problems raise :class:`DrawingError` naming the file,
the element and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from build_hooks.core.errors import DrawingError
from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.drawing import limits
from build_hooks.drawing.fonts import DEFAULT_FAMILY, FAMILIES, family
from build_hooks.proofs.datalines import lone_surrogate

ELEMENT_TYPES = {"rectangle", "diamond", "ellipse", "line", "arrow", "freedraw", "text", "image", "frame",
                 "magicframe", "selection", "iframe", "embeddable"}
DEFAULTS = {
    "angle": 0, "strokeColor": "#1e1e1e", "backgroundColor": "transparent", "fillStyle": "solid",
    "strokeWidth": 2, "strokeStyle": "solid", "roughness": 1, "opacity": 100, "groupIds": [],
    "frameId": None, "seed": 1, "link": None, "locked": False, "isDeleted": False,
}
SEED_RANGE = 2 ** 53  # the app's seeds are 31-bit integers


def load(scene: dict | str | Path, source: str = "<scene>") -> dict:
    """A scene dict from a dict, a JSON string or a path; invalid JSON names the line and column."""
    if isinstance(scene, dict):
        return scene
    if isinstance(scene, str) and not scene.lstrip().startswith(("{", "[")) and len(scene) < 4096 \
            and scene.strip().endswith((".excalidraw", ".json")):
        scene = Path(scene.strip())  # a file name given as text
    if isinstance(scene, Path):
        source = str(scene) if source == "<scene>" else source
        try:  # a FIFO, a device or an oversized file is refused (core/safefs.py), never waited on
            text = read_text(scene, limit="scene")
        except UnsafeFile as exc:
            raise DrawingError(f"{source}: {exc.what}; fix: {exc.fix}") from exc
        except OSError as exc:
            raise DrawingError(f"{source}: cannot read the drawing ({exc.strerror}); check the path") from exc
        except UnicodeDecodeError as exc:
            raise DrawingError(f"{source}: not UTF-8 text (byte {exc.start}); "
                               "re-save the file from Excalidraw") from exc
    else:
        text = scene
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DrawingError(f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}; "
                           "re-save the file from Excalidraw or fix the JSON by hand") from exc
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number; arrays nested 100,000 deep
        raise DrawingError(f"{source}: not a scene Excalidraw writes ({type(exc).__name__}: {str(exc)[:80]}); "
                           "re-save the file from Excalidraw") from exc
    try:
        surrogate = lone_surrogate(data)  # valid JSON, but no SVG, page or cache key can hold it
    except RecursionError:
        surrogate = "nesting too deep to write out"
    if surrogate:
        raise DrawingError(f"{source}: holds {surrogate}, a lone surrogate escape that is no character; "
                           "re-save the file from Excalidraw or remove the escape")
    if not isinstance(data, dict) or not isinstance(data.get("elements"), list):
        raise DrawingError(f"{source}: not an Excalidraw scene (no \"elements\" list); "
                           "export it from Excalidraw with File > Save as")
    return data


def _line_height(el: dict) -> float:
    """restore(): an old element keeps the line height its box implies; a new one gets the font's."""
    if el.get("height"):
        lines = str(el.get("text", "")).replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
        return el["height"] / lines / el["fontSize"]
    fam = family(el.get("fontFamily"))
    return fam.line_height if fam else 1.25


def _legacy_font(el: dict, raw: dict) -> None:
    """Old files name the font as ``font: "20px Virgil"``; like the app's restore, that field
    wins over ``fontSize``/``fontFamily``, and a name the app does not know gives the default."""
    font = raw.get("font")
    el.pop("font", None)
    if not isinstance(font, str):
        return
    size, _, name = font.partition(" ")
    name = name.split(" ")[0] if name else ""
    try:
        el["fontSize"] = float(size.strip().removesuffix("px"))
    except ValueError:
        pass  # the app would get NaN; keep whatever size the element had
    by_name = {f.name: fid for fid, f in FAMILIES.items()}
    el["fontFamily"] = by_name.get(name, DEFAULT_FAMILY)


def _element_type(el: dict, source: str) -> str:
    """The element's type ("draw" as the app's old name for a line); an unknown one is refused."""
    if el.get("type") == "draw":
        el["type"] = "line"
    kind = el.get("type")
    if kind not in ELEMENT_TYPES:
        raise DrawingError(f"{source}: element {el.get('id', '?')!r} has unknown type {kind!r}; use one of "
                           f"{', '.join(sorted(ELEMENT_TYPES - {'selection'}))} (or delete the element)")
    return kind


def _legacy_fields(el: dict, raw: dict, kind: str) -> None:
    """Old files' strokeSharpness and boundElementIds, as roundness and boundElements."""
    if not raw.get("roundness"):
        if raw.get("strokeSharpness") == "round":  # old files: legacy radius for boxes, proportional else
            el["roundness"] = {"type": 1 if kind in ("rectangle", "iframe", "embeddable", "image") else 2}
        else:
            el["roundness"] = None
    el.pop("strokeSharpness", None)
    if "boundElements" not in raw:
        el["boundElements"] = [{"id": i, "type": "arrow"} for i in raw.get("boundElementIds") or []]
    el.pop("boundElementIds", None)


def _numbers(el: dict, source: str, who: str) -> None:
    """Each numeric field as a number within its limits (a null one as its default)."""
    for k in ("x", "y", "width", "height", "angle", "strokeWidth", "opacity", "roughness", "fontSize", "seed"):
        if k not in el:
            continue
        v = el[k] if el[k] is not None else (0 if k in ("x", "y", "width", "height", "angle") else DEFAULTS.get(k))
        if k == "seed":
            el[k] = int(limits.number(v, k, source, who, -SEED_RANGE, SEED_RANGE))
        else:
            el[k] = limits.number(v, k, source, who, *limits.LIMITS.get(k, (-limits.MAX_COORD, limits.MAX_COORD)))


def _restore_text(el: dict, raw: dict, source: str, who: str) -> None:
    _legacy_font(el, raw)
    if el.get("fontFamily") is None:
        el["fontFamily"] = DEFAULT_FAMILY
    if family(el["fontFamily"]) is None:
        known = ", ".join(f"{k} ({f.name})" for k, f in FAMILIES.items())
        raise DrawingError(f"{source}: text element {el.get('id', '?')!r} has unknown fontFamily "
                           f"{el['fontFamily']!r}; use one of {known}")
    el.setdefault("fontSize", 20)
    el.setdefault("text", el.get("originalText", ""))
    el.setdefault("originalText", el["text"])
    el.setdefault("textAlign", "left")
    el.setdefault("verticalAlign", "top")
    el.setdefault("containerId", None)
    if not el.get("lineHeight"):
        el["lineHeight"] = _line_height(el)


def _restore_points(el: dict, raw: dict, source: str, who: str) -> None:
    limits.check_points(el, source, who)
    try:
        el["points"] = [[float(p[0]), float(p[1])] for p in el.get("points") or []] or [[0.0, 0.0]]
    except (TypeError, ValueError, IndexError) as exc:
        raise DrawingError(f"{source}: {el['type']} element {el.get('id', '?')!r} has malformed points; each "
                           "point must be [x, y] numbers relative to the element's x/y") from exc


def _restore_arrowheads(el: dict, raw: dict, source: str, who: str) -> None:
    el.setdefault("startArrowhead", None)
    el.setdefault("endArrowhead", "arrow")
    for key in ("startArrowhead", "endArrowhead"):
        if el[key] == "dot":
            el[key] = "circle"


def _restore_pressures(el: dict, raw: dict, source: str, who: str) -> None:
    el.setdefault("pressures", [])
    el.setdefault("simulatePressure", not el["pressures"])


def _restore_scale(el: dict, raw: dict, source: str, who: str) -> None:
    el.setdefault("scale", [1, 1])


# The fields each type of element has beyond the common ones, filled in step by step.
_BY_TYPE: dict[str, tuple[Callable[[dict, dict, str, str], None], ...]] = {
    "text": (_restore_text,), "line": (_restore_points,), "arrow": (_restore_points, _restore_arrowheads),
    "freedraw": (_restore_points, _restore_pressures), "image": (_restore_scale,),
}


def _restore_element(raw: dict, source: str) -> dict:
    el = {**DEFAULTS, **raw}
    kind = _element_type(el, source)
    _legacy_fields(el, raw, kind)
    who = f"element {el.get('id', '?')!r} ({kind})"
    _numbers(el, source, who)
    for step in _BY_TYPE.get(kind, ()):
        step(el, raw, source, who)
    return el


def _restored_elements(data: dict, source: str) -> list[dict]:
    """The scene's elements, each checked and normalised; deleted ones and selections left out."""
    elements = []
    limits.check_counts(data.get("elements", []), source)
    for n, raw in enumerate(data.get("elements", [])):
        if not isinstance(raw, dict):
            raise DrawingError(f"{source}: an element is not a JSON object ({raw!r:.40}); remove it")
        if raw.get("isDeleted"):
            continue
        limits.check_element(raw, n, source)  # before any arithmetic on it
        el = _restore_element(raw, source)
        limits.check_element(el, n, source)  # what restore derived (a legacy font's size, a line height)
        if not isinstance(el.get("id"), str) or not el["id"]:
            el["id"] = f"element-{n}"  # hand-written scenes may omit ids; renders need one
        if el["type"] == "selection":
            continue
        elements.append(el)
    ids = {e["id"] for e in elements if "id" in e}
    for el in elements:  # a bound text whose container is gone becomes free text, as repairBindings does
        if el["type"] == "text" and el.get("containerId") and el["containerId"] not in ids:
            el["containerId"] = None
    return elements


def _app_state(data: dict, source: str) -> dict:
    app = data.get("appState") or {}
    if not isinstance(app, dict):
        raise DrawingError(f"{source}: \"appState\" is not an object; re-save the scene from Excalidraw")
    app = dict(app)
    app.setdefault("viewBackgroundColor", "#ffffff")
    if not isinstance(app["viewBackgroundColor"], str):
        raise DrawingError(f"{source}: appState.viewBackgroundColor is not a colour (text); "
                           "re-save the scene from Excalidraw")
    return app


def _check_images(elements: list[dict], files: dict, source: str) -> None:
    """Each image element's file is embedded in the scene, with its dataURL."""
    for el in elements:
        if el["type"] == "image":
            fid = el.get("fileId")
            if not fid or fid not in files or not str(files[fid].get("dataURL", "")).startswith("data:"):
                raise DrawingError(f"{source}: image element {el.get('id', '?')!r} refers to file {fid!r}, which "
                                   "is not embedded in the scene's \"files\"; re-insert the image in Excalidraw "
                                   "and save again (the file must carry its dataURL)")


def restore(data: dict, source: str = "<scene>") -> dict:
    """A normalised copy of the scene: ``{"elements", "appState", "files"}``, deleted elements gone."""
    elements = _restored_elements(data, source)
    app = _app_state(data, source)
    files = data.get("files") or {}
    limits.check_files(files, source)
    _check_images(elements, files, source)
    return {"elements": elements, "appState": app, "files": files}
