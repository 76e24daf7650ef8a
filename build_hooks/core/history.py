"""Per-version history: the last good record of each proof and device under each torch release.

When a proof is re-measured under another torch version (the pin moved), the record it
replaces is kept first, unchanged, in::

    proofs/_results/_history/<torch version>/<proof>.<device>.json

(the same format as a record, so it diffs like one). A rerun under the same version replaces
only the current record; a failed run never reaches history (the store keeps the last good
run in the record itself). History lives in a subfolder, so the store's ``*.json`` glob, the
status report, ``ldr check`` and the published site never see it; ``ldr drift`` and the
corrections notes read it.
"""

from __future__ import annotations

import re
from pathlib import Path

from .pin import public_version
from .store import Corrupt, Record, Store

HISTORY_DIR = "_history"
VERSION = re.compile(r"^[0-9][0-9A-Za-z.!-]*$")


def version_key(version: str) -> tuple:
    """2.9.0 < 2.10.0 < 2.14.1 (numbers compare as numbers, anything else as text)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"[.\-]", public_version(version)))


def store_at(folder: Path) -> Store:
    """A Store whose record files live directly in ``folder`` (a history version, a shard)."""
    store = Store(Path(folder))
    store.dir = Path(folder)
    return store


def history_root(store: Store) -> Path:
    return Path(store.dir) / HISTORY_DIR


def version_store(store: Store, version: str) -> Store:
    version = public_version(version)
    if not VERSION.match(version):
        raise ValueError(f"not a torch version: {version!r}")
    return store_at(history_root(store) / version)


def keep(store: Store, record: Record) -> Path | None:
    """Before ``record`` replaces the current one: archive the current record when it is a good
    run made under another torch version. Returns the history path written, or None."""
    current = store.read(record.proof, record.device_class)
    if not isinstance(current, Record) or not current.ok:
        return None
    if public_version(current.torch) == public_version(record.torch):
        return None
    return version_store(store, current.torch).write(current)


def write_record(store: Store, record: Record) -> Path:
    """Write a record into the store, keeping history; stores that say ``keeps_history =
    False`` (a shard) only write."""
    if getattr(store, "keeps_history", True):
        keep(store, record)
    return store.write(record)


def versions(store: Store) -> list[str]:
    """Every torch version with records in history, oldest first."""
    root = history_root(store)
    if not root.is_dir():
        return []
    found = [p.name for p in root.iterdir() if p.is_dir() and VERSION.match(p.name)]
    return sorted(found, key=version_key)


def current_version(store: Store) -> str | None:
    """The newest torch version among the current records (None: no records)."""
    seen = set()
    for proof, device_class in store.known():
        item = store.read(proof, device_class)
        if isinstance(item, Record) and item.ok:
            seen.add(public_version(item.torch))
    return max(seen, key=version_key) if seen else None


def records_at(store: Store, version: str) -> dict[tuple[str, str], Record]:
    """Every good record made under ``version``: history's, with current records of that
    version on top (they are the newer run)."""
    version = public_version(version)
    out: dict[tuple[str, str], Record] = {}
    archived = version_store(store, version)
    for key in sorted(archived.known()):
        item = archived.read(*key)
        if isinstance(item, Record) and item.ok:
            out[key] = item
    for key in sorted(store.known()):
        item = store.read(*key)
        if isinstance(item, Record) and item.ok and public_version(item.torch) == version:
            out[key] = item
    return out


def corrupt_files(store: Store) -> list[Corrupt]:
    """History files that do not parse (reported by ``ldr drift``, never fatal)."""
    out = []
    for version in versions(store):
        archived = version_store(store, version)
        for proof, device_class in sorted(archived.known()):
            item = archived.read(proof, device_class)
            if isinstance(item, Corrupt):
                out.append(item)
    return out


def all_versions(store: Store) -> list[str]:
    """History versions plus the current records' versions, oldest first."""
    seen = set(versions(store))
    for proof, device_class in store.known():
        item = store.read(proof, device_class)
        if isinstance(item, Record) and item.ok:
            seen.add(public_version(item.torch))
    return sorted(seen, key=version_key)


__all__ = ["HISTORY_DIR", "all_versions", "corrupt_files", "current_version",
           "keep", "records_at", "store_at", "version_key", "version_store", "versions",
           "write_record"]
