"""Rendered directives, kept across rebuilds and across processes while nothing they read moved.

A warm build renders the same cards, excerpts, figures and instruments as the build before it:
the same records, scripts, drawings and package code give the same HTML. :class:`FenceMemo`
keeps each directive's HTML under its page, URL, kind and body, all of it valid for one
*world*: a digest of what any of them may read (:func:`world_digest`). When the world moves
(a record written, a script or drawing saved, the pin or the package changed), every entry is
dropped at once; nothing finer is attempted, so a stale entry cannot survive.

Between processes the entries live in one file, ``.cache/ldr/fences.marshal`` (marshal: a
chapter's figures make megabytes, which it reads ten times faster than JSON), written
atomically at the end of a build that added any; a file that cannot be read, or was made for
another world or Python, reads as empty. Knows nothing of MkDocs or Markdown.
"""

from __future__ import annotations

import hashlib
import importlib
import marshal
import os
import sys
import time
from pathlib import Path

from .cache import file_stamp, is_racy, load_mapped, write_atomic

FORMAT = 2
_PACKAGE: list[str] = []  # the package's own digest, once per process
_MEMOS: dict[Path, "FenceMemo"] = {}


def _stats(folder: Path, recursive: bool = True) -> list[tuple[str, int, int, int]]:
    """(path, mtime_ns, size, inode) of every file under ``folder``, sorted ([] when it is
    missing): the store replaces a record by renaming a new file, so its inode always moves."""
    out: list[tuple[str, int, int, int]] = []
    stack = [Path(folder)]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if recursive and entry.name != "__pycache__":
                        stack.append(Path(entry.path))
                    continue
                stat = entry.stat()
            except OSError:
                continue
            out.append((entry.path, stat.st_mtime_ns, stat.st_size, stat.st_ino))
    return sorted(out)


def package_digest() -> str:
    """The renderers' code and templates, and the libraries whose output they embed."""
    if not _PACKAGE:
        versions = []
        for name in ("pygments", "markdown", "pymdownx", "jinja2", "yaml"):
            module = sys.modules.get(name) or importlib.import_module(name)
            versions.append(f"{name}={getattr(module, '__version__', '?')}")
        parts = [sys.version, str(marshal.version), *versions,
                 repr(_stats(Path(__file__).resolve().parents[1]))]
        _PACKAGE.append(hashlib.sha256("\0".join(parts).encode()).hexdigest())
    return _PACKAGE[0]


def world_digest(layout, proofs: dict, pin: object, extra: object = ()) -> str:
    """A digest of everything a memoised directive may read: the records (history and noise
    files too), the scripts and the helpers they import, the drawings, ``data/``, the pin and
    the files it is read from, the package, and ``extra`` (what the caller adds: the pages that
    hold cards, proofs running in the background, the host's accelerator)."""
    root = Path(layout.root)
    drawings, data = _stats(layout.drawings), _stats(root / "data")
    parts = [
        package_digest(), repr(pin), repr(extra),
        repr(sorted((name, proof.sha256, sorted(proof.helper_hashes.items()))
                    for name, proof in proofs.items())),
        repr(_stats(layout.results)), repr(drawings), repr(data),
        repr([file_stamp(root / name) for name in ("pyproject.toml", "requirements.txt")]),
    ]
    if any(is_racy(item[1:]) for item in (*drawings, *data)):
        # A scene or data file saved just now may be saved again, at the same size, within its
        # time's tick (records are always renamed into place: their inode moves). Nothing is
        # reused until it has aged (core/cache.py is_racy).
        parts.append(f"racy {time.time_ns()}")
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _valid(value: object) -> bool:
    """A text, or tuples of texts (nested once), as the adapters store them."""
    if isinstance(value, str):
        return True
    return isinstance(value, tuple) and all(
        isinstance(item, tuple) and all(isinstance(part, str) for part in item) for item in value)


class FenceMemo:
    """Directive HTML by (page, page URL, kind, body), for one world at a time. An entry is a
    text or a tuple of tuples of texts (what marshal keeps exactly)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.world: str | None = None
        self.entries: dict[str, object] = {}
        self.dirty = False
        self.hits = self.misses = 0

    @classmethod
    def for_project(cls, root: Path) -> "FenceMemo":
        """The project's memo, one per process (rebuilds under serve load the config again)."""
        path = Path(root).resolve() / ".cache" / "ldr" / "fences.marshal"
        if path not in _MEMOS:
            _MEMOS[path] = cls(path)
        return _MEMOS[path]

    @staticmethod
    def key(page: str | None, page_url: str | None, kind: str, body: str) -> str:
        return "\0".join((page or "", page_url or "", kind, body))

    def enter(self, world: str) -> None:
        """Start using ``world``: keep what is held for it, else read the file, else start empty."""
        if world == self.world:
            return
        self.world, self.entries, self.dirty = world, self._read(world), False

    def get(self, key: str):
        found = self.entries.get(key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, key: str, value) -> None:
        if self.entries.get(key) != value:
            self.entries[key] = value
            self.dirty = True

    def _read(self, world: str) -> dict[str, object]:
        try:
            doc = load_mapped(self.path)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("world") != world:
            return {}
        entries = doc.get("entries")
        if not isinstance(entries, dict) or not all(
                isinstance(k, str) and _valid(v) for k, v in entries.items()):
            return {}
        return entries

    def save(self) -> None:
        """Write the entries if any were added (atomically); a failure only costs the next
        process a render."""
        if not self.dirty or self.world is None:
            return
        doc = marshal.dumps({"format": FORMAT, "world": self.world, "entries": self.entries})
        try:
            write_atomic(self.path, doc)
        except OSError:
            return
        self.dirty = False
