"""A small content-addressed text cache under ``.cache/ldr/<namespace>/`` (not committed).

Keys are hashes of everything the value depends on. Writes are atomic (temporary file, then
``os.replace``); an entry that cannot be read counts as a miss. A process-wide dict sits in
front, so `mkdocs serve` rebuilds do not touch the disk.
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


class TextCache:
    def __init__(self, root: Path, namespace: str, suffix: str = ".txt"):
        self.dir = Path(root) / ".cache" / "ldr" / namespace
        self.namespace, self.suffix = namespace, suffix

    def path(self, key: str) -> Path:
        return self.dir / f"{key}{self.suffix}"

    def get(self, key: str) -> str | None:
        hit = _MEMORY.get((self.namespace, key))
        if hit is not None:
            return hit
        try:
            text = self.path(key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        _MEMORY[(self.namespace, key)] = text
        return text

    def put(self, key: str, text: str) -> None:
        _MEMORY[(self.namespace, key)] = text
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:12]}.", suffix=".tmp", dir=self.dir)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, self.path(key))
        except OSError:  # a read-only checkout still builds; it just does not cache
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)

    def get_or_make(self, key: str, make: Callable[[], str]) -> str:
        text = self.get(key)
        if text is None:
            text = make()
            self.put(key, text)
        return text
