"""A small content-addressed text cache under ``.cache/ldr/<namespace>/`` (not committed).

Keys are hashes of everything the value depends on. Writes are atomic (temporary file, then
``os.replace``); an entry that cannot be read, or fails the cache's validity check, counts as a
miss. A process-wide dict sits in front, so `mkdocs serve` rebuilds do not touch the disk.
Used for highlighted proof sources and rendered drawings.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import mmap
import os
import tempfile
import time
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


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` at once (a temporary file beside it, then ``os.replace``):
    a reader sees the old file or the new one, never half of one. Raises OSError."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)  # mkstemp makes it private; these are ordinary build files
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_mapped(path: Path):
    """marshal.loads of a file, read through a memory map: a large memo is not copied into a
    bytes object first (raises OSError, EOFError, ValueError or TypeError when it cannot)."""
    with open(path, "rb") as handle:
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return marshal.loads(mapped)


RACY_NS = 2_000_000_000  # a file written this recently may change again within its mtime's tick


def is_racy(stamp: tuple | None) -> bool:
    """Whether a file of this :func:`file_stamp` was written too recently for its stamp to be
    trusted: a file's time moves in ticks of a few milliseconds, so one written again within
    the same tick, at the same size, keeps its stamp (git's "racy" entries, the same way)."""
    return stamp is not None and time.time_ns() - stamp[0] < RACY_NS


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
        write_atomic(self.path(key), text.encode("utf-8"))

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


class StampTable:
    """Values derived from files, kept by each file's :func:`file_stamp` in one marshal file, so
    that a fresh process finds what an earlier one read (a proof's parse, a script's hash)
    without opening the files. Values are marshal's plain types. A torn or foreign table reads
    as empty; :meth:`save` writes it atomically, only when something changed."""

    VERSION = 1

    def __init__(self, path: Path):
        self.path = Path(path)
        self._rows: dict[str, tuple] | None = None
        self._changed = False

    def _table(self) -> dict[str, tuple]:
        if self._rows is None:
            rows: dict[str, tuple] = {}
            try:
                data = load_mapped(self.path)
                if isinstance(data, tuple) and len(data) == 2 and data[0] == self.VERSION and isinstance(data[1], dict):
                    rows = {k: v for k, v in data[1].items()
                            if isinstance(k, str) and isinstance(v, tuple) and len(v) == 2}
            except (OSError, ValueError, EOFError, TypeError):
                pass
            self._rows = rows
        return self._rows

    def get(self, path: Path, stamp: tuple | None = None):
        """The value kept for ``path`` if the file's stamp has not moved since, else None."""
        row = self._table().get(str(path))
        if row is None:
            return None
        stamp = file_stamp(path) if stamp is None else stamp
        return row[1] if stamp is not None and row[0] == stamp else None

    def put(self, path: Path, value, stamp: tuple | None = None) -> None:
        stamp = file_stamp(path) if stamp is None else stamp
        if stamp is None or is_racy(stamp):  # read again by the next process rather than trusted
            return
        row = (stamp, value)
        if self._table().get(str(path)) != row:
            self._table()[str(path)] = row
            self._changed = True

    def save(self) -> None:
        if not self._changed:
            return
        with contextlib.suppress(OSError, ValueError):  # read-only checkout: the next process reads again
            write_atomic(self.path, marshal.dumps((self.VERSION, self._table())))
            self._changed = False
