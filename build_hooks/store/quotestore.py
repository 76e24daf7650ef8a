"""What the pages quoted of each torch version's source, kept beside the records for drift.

A build that renders ``source`` fences writes, when anything changed::

    proofs/_results/_quotes/<torch version>.json
    {"format": 1, "torch": "2.14.1",
     "quotes": {"<file> | <from> | <to> | <nth>": {"file", "repo", "first", "last", "lines": [...],
                                                   "at": ["docs/x.md:12", ...]}}}

One file per version, never deleted by the build, so that after the pin moves the old
version's file still holds what the pages quoted then, and ``ldr drift`` can say which quotes
changed text, moved, or no longer match. Files are read strictly (a bad one is an error naming
the file and the field) and written atomically, sorted, only when their text changes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from build_hooks.core.atomic import write_atomic
from build_hooks.core.errors import StoreError
from build_hooks.core.safefs import read_text
from build_hooks.proofs.datalines import lone_surrogate
from build_hooks.proofs.sources import Quote

FORMAT = 1
QUOTES_DIR = "_quotes"


def key_of(options: dict) -> str:
    """The key a quote is kept under: what the author wrote to find it."""
    parts = [str(options.get("file", "")).strip(), str(options.get("from", "")),
             str(options.get("to") or ""), str(options.get("nth") or "")]
    return " | ".join(parts)


@dataclass(frozen=True)
class Kept:
    file: str
    repo: str | None
    first: int
    last: int
    lines: tuple[str, ...]
    at: tuple[str, ...]

    def to_json(self) -> dict:
        return {"file": self.file, "repo": self.repo, "first": self.first, "last": self.last,
                "lines": list(self.lines), "at": list(self.at)}

    @classmethod
    def of(cls, found: Quote, at) -> Kept:
        return cls(found.path, found.repo, found.first, found.last, found.lines, tuple(sorted(set(at))))


def version_name(version: str) -> str:
    """A torch version as the file's name; raises StoreError for anything not PEP 440."""
    try:
        parsed = Version(str(version))
    except InvalidVersion:
        raise StoreError(f"not a torch version: {version!r}") from None
    return parsed.public


def path_for(results: Path, version: str) -> Path:
    return Path(results) / QUOTES_DIR / f"{version_name(version)}.json"


def _check(body, where: str) -> dict[str, Kept]:
    def fail(what: str):
        raise StoreError(f"{where}: {what}; fix: delete the file and build again under that torch")

    if not isinstance(body, dict) or body.get("format") != FORMAT or not isinstance(body.get("quotes"), dict):
        fail(f"not a format-{FORMAT} quotes file")
    out = {}
    for key, item in body["quotes"].items():
        if not isinstance(item, dict):
            fail(f"quote {key!r} is not an object")
        ints = all(isinstance(item.get(n), int) and not isinstance(item.get(n), bool) and item[n] >= 1
                   for n in ("first", "last"))
        lines, at = item.get("lines"), item.get("at")
        if not (isinstance(item.get("file"), str) and (item.get("repo") is None or isinstance(item["repo"], str))
                and ints and isinstance(lines, list) and all(isinstance(x, str) for x in lines)
                and isinstance(at, list) and all(isinstance(x, str) for x in at)):
            fail(f"quote {key!r} has a field of the wrong type")
        out[str(key)] = Kept(item["file"], item["repo"], item["first"], item["last"], tuple(lines), tuple(at))
    return out


def read(results: Path, version: str) -> dict[str, Kept]:
    """The quotes kept for ``version`` ({} when none were); raises StoreError for a bad file."""
    path = path_for(results, version)
    try:
        text = read_text(path, inside=Path(results), limit="record")
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path}: {exc}") from None
    try:
        body = json.loads(text)
        surrogate = lone_surrogate(body)
    except (ValueError, RecursionError) as exc:  # RecursionError: arrays nested 100,000 deep
        raise StoreError(f"{path}: not JSON a build writes ({str(exc)[:80]}); fix: delete the file and "
                         "build again") from None
    if surrogate:
        raise StoreError(f"{path}: holds {surrogate}, a lone surrogate escape that is no character; "
                         "fix: delete the file and build again")
    return _check(body, str(path))


def versions(results: Path) -> list[str]:
    """The torch versions with a quotes file (unsorted; names that are no version are skipped)."""
    folder = Path(results) / QUOTES_DIR
    found = []
    if folder.is_dir():
        for path in folder.glob("*.json"):
            try:
                found.append(version_name(path.name[: -len(".json")]))
            except StoreError:
                continue
    return found


def text_of(version: str, quotes: dict[str, Kept]) -> str:
    body = {"format": FORMAT, "torch": version_name(version),
            "quotes": {key: quotes[key].to_json() for key in sorted(quotes)}}
    return json.dumps(body, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def write(results: Path, version: str, quotes: dict[str, Kept]) -> Path | None:
    """Keep ``quotes`` for ``version``; returns the path when the file changed, else None."""
    path = path_for(results, version)
    text = text_of(version, quotes)
    try:
        if path.read_text(encoding="utf-8") == text:
            return None
    except (OSError, ValueError):
        pass
    write_atomic(path, text)
    return path


@dataclass(frozen=True)
class QuoteDrift:
    key: str
    status: str          # changed | moved | gone | new
    old: Kept | None
    new: Kept | None

    @property
    def at(self) -> tuple[str, ...]:
        return (self.new or self.old).at  # type: ignore[union-attr]

    def to_json(self) -> dict:
        return {"key": self.key, "status": self.status, "at": list(self.at),
                "old": self.old.to_json() if self.old else None, "new": self.new.to_json() if self.new else None}


def compare(old: dict[str, Kept], new: dict[str, Kept]) -> list[QuoteDrift]:
    """Quotes whose text changed, that only moved, that the new version lacks, or are new."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a is None:
            out.append(QuoteDrift(key, "new", None, b))
        elif b is None:
            out.append(QuoteDrift(key, "gone", a, None))
        elif a.lines != b.lines:
            out.append(QuoteDrift(key, "changed", a, b))
        elif (a.first, a.file) != (b.first, b.file):
            out.append(QuoteDrift(key, "moved", a, b))
    return out


__all__ = ["FORMAT", "Kept", "QUOTES_DIR", "QuoteDrift", "compare", "key_of", "path_for", "read",
           "text_of", "version_name", "versions", "write"]
