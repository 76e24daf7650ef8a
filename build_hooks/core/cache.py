"""A small content-addressed text cache under ``.cache/ldr/<namespace>/`` (not committed).

Keys are hashes of everything the value depends on. Writes are atomic (temporary file, then
``os.replace``); an entry that cannot be read, or fails the cache's validity check, counts as a
miss. A process-wide dict sits in front, so `mkdocs serve` rebuilds do not touch the disk.
Used for highlighted proof sources and rendered drawings.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Callable

_MEMORY: dict[tuple[str, str], str] = {}


def key_of(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """(mtime_ns, size, inode) of a file, or None when it cannot be read: what a cache keyed by
    a file's outside compares (the store replaces a record by renaming a new file, so its inode
    always moves)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size, stat.st_ino


def clear_memory() -> None:
    _MEMORY.clear()


class TextCache:
    def __init__(self, directory: Path, suffix: str = ".txt", valid: Callable[[str], bool] | None = None):
        self.dir = Path(directory)
        self.suffix, self.valid = suffix, valid

    @classmethod
    def for_project(cls, root: Path, namespace: str, suffix: str = ".txt", **kw) -> "TextCache":
        return cls(Path(root) / ".cache" / "ldr" / namespace, suffix, **kw)

    def path(self, key: str) -> Path:
        return self.dir / f"{key}{self.suffix}"

    def get(self, key: str) -> str | None:
        hit = _MEMORY.get((str(self.dir), key))
        if hit is not None:
            return hit
        try:
            text = self.path(key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if self.valid is not None and not self.valid(text):
            return None  # a torn or foreign entry: a miss, rewritten by the next put
        _MEMORY[(str(self.dir), key)] = text
        return text

    def write(self, key: str, text: str) -> None:
        """Atomically replace the entry on disk (raises OSError)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:12]}.", suffix=".tmp", dir=self.dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.chmod(tmp, 0o644)  # mkstemp makes it private; an entry is ordinary build output
            os.replace(tmp, self.path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def put(self, key: str, text: str) -> None:
        _MEMORY[(str(self.dir), key)] = text
        with contextlib.suppress(OSError):  # a read-only checkout still builds; it just does not cache
            self.write(key, text)

    def get_or_make(self, key: str, make: Callable[[], str]) -> str:
        text = self.get(key)
        if text is None:
            text = make()
            self.put(key, text)
        return text
