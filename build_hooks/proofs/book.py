"""What discovery read from each proof, kept between builds (proofs/discovery.py reads it).

Every build lists the proofs, and each proof's title, purpose, ``PROOF`` options and imports come
from its syntax tree: ``ast.parse`` of a hundred small scripts is about 70 ms, most of what
listing them costs a fresh process. The book keeps, under the SHA-256 of a proof's bytes and its
name, what its tree said; a proof whose bytes are in the book is not parsed again. It is one
entry of the text cache (namespace ``discovery``), read when a library first lists its proofs
(:meth:`ProofBook.open`) and written after a listing, only when the proofs that listing read
differ from what the book held (:meth:`ProofBook.close`). Only a proof that parsed cleanly is
kept: a syntax error or a bad ``PROOF`` is found again, and reported, on every build. Anything
of another shape reads as an empty book; the text cache seals entries under this package's
code, so a change to how proofs are read starts a new book.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from build_hooks.core.cache import TextCache

NAMESPACE = "discovery"
KEY = "book"
_SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class Parsed:
    """What a proof's syntax tree says (discovery.py makes the Proof of it)."""
    title: str
    purpose: str
    options: dict
    imports: tuple[tuple[str, int, str], ...]
    own_torch: bool


_RECALLED: dict[str, Parsed] = {}  # what the book held when it was opened
_LOOKED: dict[str, Parsed] = {}  # what this process's listings read, by key


def key(sha256: str, name: str) -> str:
    return f"{sha256} {name}"


def recall(found: str) -> Parsed | None:
    """The book's entry for a proof's key, noted as read by this process; None when absent."""
    parsed = _RECALLED.get(found)
    if parsed is not None:
        _LOOKED[found] = parsed
    return parsed


def learn(found: str, parsed: Parsed) -> None:
    """A proof this process parsed: kept in the book at the next close."""
    _LOOKED[found] = parsed


class ProofBook:
    def __init__(self, root: Path):
        self.cache = TextCache.for_project(root, NAMESPACE, ".json")
        self._read: dict[str, Parsed] | None = None

    def open(self) -> None:
        """Hand discovery what earlier builds read (once: a later open keeps what is in memory)."""
        if self._read is None:
            self._read = _book(self.cache.get(KEY))
            _RECALLED.update(self._read)

    def close(self, names: set[str]) -> None:
        """Keep what this process read of the proofs called ``names`` (today's proofs), if it
        is not what the book held."""
        if self._read is None:
            return
        today = {k: v for k, v in _LOOKED.items() if k.split(" ", 1)[1] in names}
        if today == self._read:
            return
        self.cache.put(KEY, json.dumps({k: [p.title, p.purpose, p.options, [list(i) for i in p.imports], p.own_torch]
                                        for k, p in sorted(today.items())}))
        self._read = today
        _RECALLED.update(today)


def _book(text: str | None) -> dict[str, Parsed]:
    """The book :meth:`ProofBook.close` wrote; empty for none or anything of another shape."""
    try:
        body = json.loads(text) if text else {}
        book = {}
        for found, (title, purpose, options, imports, own_torch) in body.items():
            if not (isinstance(found, str) and " " in found and isinstance(title, str) and isinstance(purpose, str)
                    and isinstance(options, dict) and type(own_torch) is bool
                    and all(isinstance(k, str) and (isinstance(v, _SCALARS) or _flat(v)) for k, v in options.items())):
                return {}
            rows = []
            for module, line, said in imports:
                if not (isinstance(module, str) and type(line) is int and isinstance(said, str)):
                    return {}
                rows.append((module, line, said))
            book[found] = Parsed(title, purpose, options, tuple(rows), own_torch)
        return book
    except (ValueError, TypeError, AttributeError):
        return {}


def _flat(value: object) -> bool:
    """A dict of names to numbers (a per-value tolerance)."""
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, (int, float)) for k, v in value.items())
