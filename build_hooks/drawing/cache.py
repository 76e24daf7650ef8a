"""Rendered figures cached by content: key = sha256(scene bytes + renderer version + options).

Stored through the project's text cache (``build_hooks.core.cache``): a dict for the running process
and ``.cache/ldr/drawings/<name>.svg`` on disk, written atomically; an entry that is not one the
cache wrote (torn, altered, not a regular file: see core/cache.py) or does not read back as a
whole SVG counts as a miss. The scene itself is read through core/safefs.py.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from build_hooks.config import cache_dir
from build_hooks.core.cache import TextCache
from build_hooks.core.cache import clear_memory as _clear_memory
from build_hooks.core.safefs import read_bytes
from build_hooks.drawing.version import RENDERER_VERSION


def default_dir(root: Path | None = None) -> Path:
    """``$LDR_CACHE_DIR/drawings``, else ``<project root>/.cache/ldr/drawings``."""
    if os.environ.get("LDR_CACHE_DIR"):
        return Path(os.environ["LDR_CACHE_DIR"]) / "drawings"
    if root is None:
        checkout = Path(__file__).resolve().parents[2]
        root = checkout if (checkout / "pyproject.toml").exists() else Path.cwd()
    return cache_dir(root) / "drawings"


@functools.lru_cache(maxsize=1)
def renderer_fingerprint() -> str:
    """RENDERER_VERSION plus a hash of the renderer's own files, so any change to the code that
    draws (or to the font metrics) invalidates every cached figure without anyone bumping a number."""
    h = hashlib.sha256(RENDERER_VERSION.encode())
    here = Path(__file__).resolve().parent
    for f in sorted([*here.glob("*.py"), *here.glob("*.json")]):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def cache_key(data: bytes, **opts) -> str:
    h = hashlib.sha256()
    h.update(data)
    h.update(b"\0" + renderer_fingerprint().encode())
    h.update(b"\0" + json.dumps(opts, sort_keys=True, default=str).encode())
    return h.hexdigest()


def _valid(text: str) -> bool:
    return text.startswith("<svg") and text.rstrip().endswith("</svg>")


def _store(directory: Path) -> TextCache:
    return TextCache(directory, ".svg", valid=_valid)


def read(directory: Path, key: str) -> str | None:
    return _store(directory).get(key)


def write(directory: Path, key: str, svg: str) -> None:
    _store(directory).write(key, svg)


def render_file(path: Path, *, cache_dir: Path | None = None, **opts) -> str:
    """``render_svg`` of a scene file, from the memory or disk cache when its content was seen."""
    from build_hooks.core.errors import DrawingError
    from build_hooks.drawing.render import render_svg

    try:
        data = read_bytes(Path(path), limit="scene")  # a FIFO or /dev/zero here: an error, not a hang
    except OSError as exc:
        raise DrawingError(f"{path}: cannot read the drawing ({exc.strerror}); check the file name") from exc
    opts.setdefault("source", Path(path).name)
    key = cache_key(data, **opts)
    return _store(cache_dir or default_dir()).get_or_make(
        key, lambda: render_svg(data.decode("utf-8", errors="replace"), **opts))


def clear_memory() -> None:
    _clear_memory()
