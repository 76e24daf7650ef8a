"""The drawing fonts cut down to the characters the site's drawings use.

A page with a drawing loads the face its text needs; the Latin face of Excalifont holds 217
glyphs in 25 KB, and the series' drawings use 77 characters. On a phone network those bytes
come before the page's load event. :func:`cut_faces` gives, for each face of a family that a
scene under the drawings folder names, the face with only the characters of every text in every
scene (a superset of what any one page shows), its layout features kept, as woff2; the published
name carries a digest of its bytes (``Excalifont-latin.3f2a9c1d0b.woff2``), so a browser that
kept yesterday's cut never pairs it with today's drawings. A face none of those characters fall
in is not cut: it keeps its shipped name and file, and no page asks for it.

What is read each build is the scenes' size and times; the characters are read from the scenes
again only when one changes, and a face is cut again only when those characters or the face
change (both kept in the text cache, namespace ``fonts``, sealed under this package's code), so
a warm build imports no font library. A cut is the same bytes every time (no timestamp in it).
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from build_hooks.core.cache import TextCache, file_stamp, key_of
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, read_bytes, read_text
from build_hooks.drawing.fonts import DEFAULT_FAMILY, FAMILIES, FONTS_DIR, family

NAMESPACE = "fonts"


def _scenes(drawings: Path) -> list[Path]:
    return sorted(drawings.rglob("*.excalidraw")) if drawings.is_dir() else []


def text_elements(path: Path, base: Path) -> list[dict]:
    """The text elements of the scene in ``path`` (inside ``base``) that are not deleted; none
    for a scene that cannot be read (the figure that shows it says why)."""
    try:
        data = json.loads(read_text(path, inside=base, limit="scene"))
    except (OSError, ValueError, RecursionError, UnsafeFile):
        return []
    elements = data.get("elements") if isinstance(data, dict) else None
    if not isinstance(elements, list):
        return []
    return [el for el in elements if isinstance(el, dict) and el.get("type") == "text" and not el.get("isDeleted")]


def scene_text(drawings: Path) -> tuple[str, list[int]]:
    """The characters of every text element of every scene under ``drawings`` (sorted, no line
    breaks) and the ids of the families they are set in. A scene that cannot be read adds
    nothing."""
    chars: set[str] = set()
    families: set[int] = set()
    for path in _scenes(drawings):
        for el in text_elements(path, drawings):
            for field in ("text", "originalText"):
                if isinstance(el.get(field), str):
                    chars.update(el[field])
            fam = family(el.get("fontFamily")) or FAMILIES[DEFAULT_FAMILY]
            families.add(fam.id)
    # no line breaks, and no lone surrogate (a scene may hold one; its figure is a drawing error)
    kept = (ch for ch in chars if ch not in "\r\n" and not 0xD800 <= ord(ch) <= 0xDFFF)
    return "".join(sorted(kept)), sorted(families)


def cut(face: bytes, chars: str) -> bytes | None:
    """``face`` (woff2) with the glyphs of ``chars`` only, as woff2; None when it has none of them."""
    import io

    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(face), recalcTimestamp=False)  # the same cut, byte for byte, every time
    cmap = font.getBestCmap() or {}
    if not any(ord(ch) in cmap for ch in chars):
        return None
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]  # kerning and ligatures as Excalidraw's own text has them
    options.name_IDs = ["*"]
    options.notdef_outline = True
    cutter = subset.Subsetter(options)
    cutter.populate(text=chars)
    cutter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff2"
    font.save(out)
    return out.getvalue()


def cut_faces(drawings: Path, root: Path) -> list[tuple[str, str, bytes]]:
    """``(shipped file, published file, woff2 bytes)`` for each face cut to the drawings' text."""
    cache = TextCache.for_project(root, NAMESPACE, ".txt")
    stamps = key_of(*(f"{path}:{file_stamp(path)}" for path in _scenes(drawings)))
    seen = cache.get(f"text-{stamps}")
    try:
        chars, ids = json.loads(seen) if seen else (None, None)
    except ValueError:
        chars, ids = None, None
    if not isinstance(chars, str) or not isinstance(ids, list):
        chars, ids = scene_text(drawings)
        cache.put(f"text-{stamps}", json.dumps([chars, ids]))
    if not chars:
        return []
    out = []
    for fid in ids:
        fam = FAMILIES.get(fid)
        for file, _range in fam.files if fam else ():
            key = key_of(file, str(file_stamp(FONTS_DIR / file)), chars)  # the shipped face as installed
            kept = cache.get(f"face-{key}")
            if kept is None:
                try:
                    made = cut(read_bytes(FONTS_DIR / file, inside=FONTS_DIR, limit="data"), chars)
                except ImportError as exc:
                    raise LdrError(f"cutting the drawing fonts needs {exc.name}, which is not installed; "
                                   "fix: reinstall the package (it depends on fonttools and brotli)") from exc
                kept = base64.b64encode(made).decode("ascii") if made else ""
                cache.put(f"face-{key}", kept)
            if kept:
                data = base64.b64decode(kept)
                stem = file.removesuffix(".woff2")
                out.append((file, f"{stem}.{hashlib.sha256(data).hexdigest()[:10]}.woff2", data))
    return out
