"""Rendered figures cached by content: key = sha256(scene bytes + renderer version + options).

Two levels: a dict for the running process and ``.cache/ldr/drawings/<key>.svg`` on disk. Writes
are atomic (a temp file in the same folder, then ``os.replace``) so a crash or a concurrent build
never leaves half a figure; an entry that does not read back as a whole SVG counts as a miss.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

_MEMORY: dict[str, str] = {}


def default_dir(root: Path | None = None) -> Path:
    """``$LDR_CACHE_DIR/drawings``, else ``<project root>/.cache/ldr/drawings``."""
    if os.environ.get("LDR_CACHE_DIR"):
        return Path(os.environ["LDR_CACHE_DIR"]) / "drawings"
    if root is None:
        checkout = Path(__file__).resolve().parents[2]
        root = checkout if (checkout / "pyproject.toml").exists() else Path.cwd()
    return Path(root) / ".cache" / "ldr" / "drawings"


@functools.lru_cache(maxsize=1)
def renderer_fingerprint() -> str:
    """RENDERER_VERSION plus a hash of the renderer's own files, so any change to the code that
    draws (or to the font metrics) invalidates every cached figure without anyone bumping a number."""
    from . import RENDERER_VERSION

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


def read(directory: Path, key: str) -> str | None:
    try:
        text = (directory / f"{key}.svg").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if _valid(text) else None


def write(directory: Path, key: str, svg: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(svg)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a cache entry is ordinary build output
        os.replace(tmp, directory / f"{key}.svg")
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def render_file(path: Path, *, cache_dir: Path | None = None, **opts) -> str:
    """``render_svg`` of a scene file, from the memory or disk cache when its content was seen."""
    from . import render_svg
    from ..errors import DrawingError

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise DrawingError(f"{path}: cannot read the drawing ({exc.strerror}); check the file name") from exc
    opts.setdefault("source", Path(path).name)
    key = cache_key(data, **opts)
    if key in _MEMORY:
        return _MEMORY[key]
    directory = cache_dir or default_dir()
    svg = read(directory, key)
    if svg is None:
        svg = render_svg(data.decode("utf-8", errors="replace"), **opts)
        try:
            write(directory, key, svg)
        except OSError:
            pass  # a read-only checkout still renders; it just does not remember
    _MEMORY[key] = svg
    return svg


def clear_memory() -> None:
    _MEMORY.clear()
