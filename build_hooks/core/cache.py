"""A small content-addressed text cache under ``.cache/ldr/<namespace>/`` (not committed).

A cache is a hint, never the truth: whatever is found there is checked before it is used, and
anything that fails a check is a miss, made again and written over.

* Keys are hashes of everything the value depends on; the file's name also holds
  :func:`package_digest` (this package's code and the Python running it), so that a change to
  the code that made an entry never reads it.
* Each entry starts with a line holding the HMAC-SHA-256 of its name and body, under a key kept
  outside every project (:func:`seal_key`): a torn write, flipped bytes, another cache's entry
  copied over it, a file of another format, or an entry made by whoever can write ``.cache/``
  but not this user's own cache folder (a restored CI cache, a committed ``.cache/``) is a miss.
  A cache's own ``valid`` check then looks at the body (a whole SVG, a JSON of the right shape).
* Entries are read through :mod:`.safefs`: a FIFO, a folder, a symlink leading out of the cache
  folder (to ``/dev/zero``, say) or an entry over 64 MiB is a miss, never a hang.
* Writes are atomic (temporary file, then ``os.replace``, which also replaces a FIFO or symlink
  found there); a folder that cannot be written (a read-only checkout) builds without caching.

A process-wide dict sits in front, so `mkdocs serve` rebuilds do not touch the disk. Used for
highlighted proof sources, located directives, proofs' parses, notebooks and rendered drawings.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from build_hooks.config import cache_dir
from build_hooks.core.atomic import write_atomic
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import read_bytes

_MEMORY: dict[tuple[str, str], str] = {}
HEADER = b"ldr-cache/2 "
PACKAGE = Path(__file__).resolve().parents[1]


def key_of(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def package_digest() -> str:
    """Every ``.py`` and ``.json`` file of this package and its jinja templates (``.html``: an
    edited template must not replay the markup the old one made) by content (about 10 ms for
    all of them), and the Python version: what any cached value was made by."""
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    found = []
    for top, dirs, files in os.walk(PACKAGE):  # one walk, bytecode folders left out
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [os.path.join(top, name) for name in files if name.endswith((".py", ".json", ".html"))]
    for path in sorted(os.path.relpath(f, PACKAGE).split(os.sep) for f in found):
        with contextlib.suppress(OSError), open(os.path.join(PACKAGE, *path), "rb") as handle:
            digest.update("/".join(path).encode() + b"\0" + handle.read() + b"\0")
    return digest.hexdigest()


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """(mtime_ns, size, inode) of a file, or None when it cannot be read: what a process keeps
    by a file's outside compares (discovery under `mkdocs serve`; the store replaces a record by
    renaming a new file, so its inode always moves)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size, stat.st_ino


def clear_memory() -> None:
    _MEMORY.clear()


@functools.lru_cache(maxsize=1)
def seal_key() -> bytes:
    """The secret every seal is made with: 32 random bytes in ``$XDG_CACHE_HOME/ldr-seal.key``
    (``~/.cache/ldr-seal.key``), made once, readable by this user only. Where it cannot be kept
    (no home, a read-only one), a key of this process: caches then last one process."""
    with contextlib.suppress(OSError, LdrError, RuntimeError):  # RuntimeError: no home folder
        path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ldr-seal.key"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".ldr-seal.", dir=path.parent)  # mode 0600
            try:
                os.write(fd, secrets.token_bytes(32))
                os.close(fd)
                with contextlib.suppress(FileExistsError):  # another process made it first: use theirs
                    os.link(tmp, path)
            finally:
                os.unlink(tmp)
        key = read_bytes(path, limit=64)
        if len(key) == 32:
            return key
    return secrets.token_bytes(32)


def _seal(name: str, body: bytes) -> bytes:
    return hmac.new(seal_key(), name.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()


def seal(name: str, body: bytes) -> bytes:
    """An entry's bytes: the header line (the keyed SHA-256 of ``name`` and the body), then the body."""
    return HEADER + _seal(name, body) + b"\n" + body


def unseal(name: str, data: bytes) -> bytes | None:
    """The body of an entry :func:`seal` wrote under ``name``; None for anything else."""
    head, newline, body = data.partition(b"\n")
    if not newline or not head.startswith(HEADER):
        return None
    if not hmac.compare_digest(head[len(HEADER):], _seal(name, body)):
        return None
    return body


def pack(name: str, text: str) -> bytes:
    return seal(name, text.encode("utf-8"))


def unpack(name: str, data: bytes) -> str | None:
    """The text of an entry :func:`pack` wrote under ``name``; None for anything else."""
    body = unseal(name, data)
    try:
        return None if body is None else body.decode("utf-8")
    except UnicodeDecodeError:
        return None


class TextCache:
    def __init__(self, directory: Path, suffix: str = ".txt", valid: Callable[[str], bool] | None = None):
        self.dir = Path(directory)
        self.suffix, self.valid = suffix, valid

    @classmethod
    def for_project(cls, root: Path, namespace: str, suffix: str = ".txt", **kw) -> TextCache:
        return cls(cache_dir(root) / namespace, suffix, **kw)

    @staticmethod
    def name(key: str) -> str:
        """The entry's file name (without the suffix): the key under this package's code."""
        return key_of(package_digest(), key)

    def path(self, key: str) -> Path:
        return self.dir / f"{self.name(key)}{self.suffix}"

    def get(self, key: str) -> str | None:
        name = self.name(key)
        hit = _MEMORY.get((str(self.dir), name))
        if hit is not None:
            return hit
        try:
            data = read_bytes(self.dir / f"{name}{self.suffix}", inside=self.dir, limit="cache")
        except (OSError, LdrError):  # missing, or not a regular file inside the cache, or too large
            return None
        text = unpack(name, data)
        if text is None:
            return None  # torn, flipped or foreign: a miss, rewritten by the next put
        try:
            if self.valid is not None and not self.valid(text):
                return None
        except Exception:  # noqa: BLE001 - a check that trips on odd content: a miss, not an error
            return None
        _MEMORY[(str(self.dir), name)] = text
        return text

    def write(self, key: str, text: str) -> None:
        """Atomically replace the entry on disk (raises OSError)."""
        name = self.name(key)
        write_atomic(self.dir / f"{name}{self.suffix}", pack(name, text))

    def put(self, key: str, text: str) -> None:
        _MEMORY[(str(self.dir), self.name(key))] = text
        with contextlib.suppress(OSError):  # a read-only checkout still builds; it just does not cache
            self.write(key, text)

    def get_or_make(self, key: str, make: Callable[[], str]) -> str:
        text = self.get(key)
        if text is None:
            text = make()
            self.put(key, text)
        return text
