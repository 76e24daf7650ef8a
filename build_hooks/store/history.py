"""Per-version history: the last good record of each proof and device under each torch release.

When a proof is re-measured under another torch version (the pin moved), the record it
replaces is kept first, unchanged, in::

    proofs/_results/_history/<torch version>/<proof>.<device>.json

(the same format as a record, so it diffs like one). A rerun under the same version replaces
only the current record; a failed run never reaches history (the store keeps the last good
run in the record itself). History lives in a subfolder, so the store's ``*.json`` glob, the
status report, ``ldr check`` and the published site never see it; ``ldr drift`` and the
corrections notes read it.

``ldr merge`` may replace a good record with a newer run of the same torch version (measured
on another machine); the replaced record is kept too, unchanged, in::

    proofs/_results/_history/<torch version>/_replaced/<proof>.<device>.<its UTC time>.json

one file per replaced run, so a merge never loses a record; drift and the notes do not read
them (they compare the last good record of each version).

A record without torch (a proof that never imports it) belongs to no version: a rerun only
replaces it, it never reaches a version's folder, and a merge keeps the run it replaces in
``_history/_replaced/``.

The folder of a version is the parsed PEP 440 version's normalised public string
(schema.version_dir), never a record's text, and it must stay inside the results folder;
versions compare as versions and times as datetimes.
"""

from __future__ import annotations

import os
from pathlib import Path

from packaging.version import Version

from build_hooks.core.safefs import check_inside
from build_hooks.store.record import Record
from build_hooks.store.schema import timestamp, version_dir
from build_hooks.store.store import Corrupt, Store

HISTORY_DIR = "_history"
REPLACED_DIR = "_replaced"


def version_key(version: str) -> Version:
    """2.9.0 < 2.10.0 < 2.14.1 < 2.15.0rc1 < 2.15.0, as PEP 440 orders them (raises ValueError
    for a string that is not a version)."""
    return Version(version_dir(version))


def store_at(folder: Path) -> Store:
    """A Store whose record files live directly in ``folder`` (a history version, a shard)."""
    store = Store(Path(folder))
    store.dir = Path(folder)
    return store


def history_root(store: Store) -> Path:
    return Path(store.dir) / HISTORY_DIR


def version_store(store: Store, version: str) -> Store:
    """The history folder of ``version`` (raises ValueError for a string that is not a PEP 440
    version, UnsafeFile for a folder that leads outside the results folder)."""
    folder = history_root(store) / version_dir(version)
    check_inside(folder, store.dir)
    return store_at(folder)


class _Replaced(Store):
    """Where a merge keeps the good records it replaced with newer runs of the same version."""

    def __init__(self, folder: Path, when: str):
        super().__init__(Path(folder))
        self.dir = Path(folder)
        at = timestamp(when)
        self.stamp = at.strftime("%Y%m%dT%H%M%S") + (f".{at.microsecond:06d}" if at.microsecond else "") + "Z"

    def path(self, proof: str, device_class: str) -> Path:
        return self.dir / f"{proof}.{device_class}.{self.stamp}.json"


def keep_replaced(store: Store, record: Record) -> Path:
    """Keep ``record``, a good record that a merge replaces with a newer run of its own torch
    version, in ``_history/<version>/_replaced/`` (named by its UTC time; a record without torch
    in ``_history/_replaced/``); returns the path."""
    folder = history_root(store) / (version_dir(record.torch) if record.torch else "") / REPLACED_DIR
    check_inside(folder, store.dir)
    return _Replaced(folder, record.measured_at).write(record)


def keep(store: Store, record: Record) -> Path | None:
    """Before ``record`` replaces the current one: archive the current record when it is a good
    run made under another torch version. Returns the history path written, or None."""
    current = store.read(record.proof, record.device_class)
    if not isinstance(current, Record) or not current.ok:
        return None
    try:
        if version_dir(current.torch) == version_dir(record.torch):
            return None
    except ValueError:  # a record without torch (no version), or not a version: store.write refuses it
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
    if not root.is_dir() or os.path.islink(root):
        return []
    found = [p.name for p in root.iterdir() if _is_version_folder(p)]
    return sorted(found, key=version_key)


def _is_version_folder(path: Path) -> bool:
    """A real folder (no symlink) named by a normalised public version (``2.13.0``)."""
    try:
        return path.is_dir() and not os.path.islink(path) and version_dir(path.name) == path.name
    except ValueError:
        return False


def current_version(store: Store) -> str | None:
    """The newest torch version among the current records (None: no records)."""
    seen = set()
    for proof, device_class in store.known():
        item = store.read(proof, device_class)
        if isinstance(item, Record) and item.ok and item.torch:  # a record without torch has no version
            seen.add(version_dir(item.torch))
    return max(seen, key=version_key) if seen else None


def records_at(store: Store, version: str) -> dict[tuple[str, str], Record]:
    """Every good record made under ``version``: history's, with current records of that
    version on top (they are the newer run)."""
    version = version_dir(version)
    out: dict[tuple[str, str], Record] = {}
    archived = version_store(store, version)
    for key in sorted(archived.known()):
        item = archived.read(*key)
        if isinstance(item, Record) and item.ok:
            out[key] = item
    for key in sorted(store.known()):
        item = store.read(*key)
        if isinstance(item, Record) and item.ok and item.torch and version_dir(item.torch) == version:
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
        if isinstance(item, Record) and item.ok and item.torch:  # a record without torch has no version
            seen.add(version_dir(item.torch))
    return sorted(seen, key=version_key)


def newer(record: Record, than: Record) -> bool:
    """Whether ``record`` was measured after ``than`` (as times, never as strings)."""
    return timestamp(record.measured_at) > timestamp(than.measured_at)


__all__ = ["HISTORY_DIR", "REPLACED_DIR", "all_versions", "corrupt_files", "current_version",
           "keep", "keep_replaced", "newer", "records_at", "store_at",
           "version_key", "version_store", "versions", "write_record"]
