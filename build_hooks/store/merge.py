"""Bringing shards home: ``ldr merge DIR...`` merges shard folders (shards.py) into the store.

* the same proof, device and torch version recorded twice keeps the newer run (measured_at,
  compared as times); a run under the pin beats one under another version; a replaced run
  of another version goes to history (see history.py), and a good record replaced by a newer
  run of its own version goes to ``_history/<version>/_replaced/``, so nothing is lost;
* a shard record made from another script than today's ``proofs/<proof>.py``, or with
  another version of a local helper it imports, is refused, naming the proof (and the
  helper); a shard file that does not parse, or whose fields are not of their strict types
  (store/schema.py), is named and skipped; so is a FIFO, a device, a socket, a symlink leading
  out of the shard or a file over the record size limit (read through core/safefs.py, never
  waited on); the store is never touched by any of them;
* an accelerator record made under another torch than the pin (a GPU box with an older
  torch) merges as what it is: it becomes the current record of its device class, marked
  foreign (foreign.py).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.proofs.discovery import helper_changes
from build_hooks.proofs.pin import public_version
from build_hooks.store import noisestore
from build_hooks.store.foreign import clear_foreign, mark_foreign
from build_hooks.store.history import keep_replaced, newer, version_key, version_store, write_record
from build_hooks.store.lock import store_lock
from build_hooks.store.record import Record
from build_hooks.store.schema import timestamp, version_dir
from build_hooks.store.shards import read_shard_file, shard_files
from build_hooks.store.store import Corrupt, Store

CLOCK_SKEW = dt.timedelta(days=1)  # how far ahead of this machine a shard's clock may run


@dataclass
class MergeReport:
    merged: list[str] = field(default_factory=list)    # what became the current record
    archived: list[str] = field(default_factory=list)  # went to history only
    replaced: list[str] = field(default_factory=list)  # the store's runs a newer one replaced, kept
    kept: list[str] = field(default_factory=list)      # the store's record was newer
    foreign: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)   # runs that failed there: nothing to merge
    corrupt: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.refused or self.corrupt)

    def text(self) -> str:
        lines: list[str] = []
        for label, items in (("merged", self.merged), ("to history", self.archived),
                             ("replaced, kept in history", self.replaced),
                             ("kept the store's newer record", self.kept), ("foreign", self.foreign),
                             ("failed there, skipped", self.skipped), ("refused", self.refused),
                             ("corrupt, skipped", self.corrupt)):
            lines.extend(f"{label}: {item}" for item in items)
        total = len(self.merged) + len(self.archived)
        lines.append(f"ldr merge: {total} record(s) brought home, {len(self.refused)} refused, "
                     f"{len(self.corrupt)} corrupt shard file(s) skipped")
        return "\n".join(lines)


def _same_release(version: str, pin: str) -> bool:
    try:
        return version_dir(version) == version_dir(pin)
    except ValueError:  # a pin that is not PEP 440 (the pin's own check names it)
        return public_version(version) == public_version(pin)


def rank(record: Record, pin: str | None) -> tuple:
    """Higher is better: under the pin, then the newer torch, then the newer run (a version
    and a time compare parsed, never as text: ``zzzz`` is no time, and 2.10 > 2.9). With no
    pin (a proof that never imports torch), the newer run alone."""
    if pin is None:
        return (timestamp(record.measured_at),)
    if not record.torch:  # made when the proof imported no torch: below every version
        return (False, Version("0"), timestamp(record.measured_at))
    return (_same_release(record.torch, pin), version_key(record.torch), timestamp(record.measured_at))


def _release(record: Record, pin: str | None) -> str:
    """The version a record counts under: its torch's, or "" for a proof without torch (one
    version, whatever a record made before that says)."""
    return version_dir(record.torch) if pin is not None and record.torch else ""


def _under(record: Record) -> str:
    return f"torch {record.torch}" if record.torch else "no torch"


def helper_mismatch(recorded: dict, today: dict) -> list[str]:
    """Each local helper whose hash differs between a record and today's proofs/ (named)."""
    said = {"gone": lambda name: "imported there, not today", "new": lambda name: "imported today, not there",
            "changed": lambda name: f"sha256 {recorded[name][:12]} there, {today[name][:12]} today"}
    return [f"proofs/{name} ({said[how](name)})" for name, how in helper_changes(recorded, today)]


def merge(library, folders: list[Path], now: dt.datetime | None = None) -> MergeReport:
    """Merge shard folders into ``library.store`` (see the module docstring); ``now`` is the
    clock a shard record may not be measured after (by more than :data:`CLOCK_SKEW`)."""
    store, pin, report = library.store, library.pin, MergeReport()
    latest = (now or dt.datetime.now(dt.UTC)) + CLOCK_SKEW
    candidates: dict[tuple[str, str], list[tuple[Record, str, Path]]] = {}  # (record, file, shard)
    for folder in folders:
        try:
            files = shard_files(folder)
        except FileNotFoundError:
            report.corrupt.append(f"{folder}: no such shard folder")
            continue
        for path in files:
            item = read_shard_file(path, Path(folder))
            if isinstance(item, Corrupt):
                report.corrupt.append(f"{path}: {item.reason}")
                continue
            proof = library.proofs.get(item.proof)
            if proof is None:
                report.refused.append(f"{path}: proof {item.proof} has no script in proofs/ any more")
                continue
            if item.script_sha256 != proof.sha256:
                report.refused.append(
                    f"{path}: proof {item.proof} was recorded from another version of its script "
                    f"(sha256 {item.script_sha256[:12]}, today's proofs/{item.proof}.py is "
                    f"{proof.sha256[:12]}); rerun it there on this commit")
                continue
            helpers = helper_mismatch(item.helpers, proof.helper_hashes)
            if helpers:
                report.refused.append(
                    f"{path}: proof {item.proof} was recorded with another version of its helpers: "
                    f"{', '.join(helpers)}; rerun it there on this commit")
                continue
            if timestamp(item.measured_at) > latest:  # it would win every later merge
                report.refused.append(
                    f"{path}: proof {item.proof} was measured at {item.measured_at}, after this machine's "
                    f"clock ({latest - CLOCK_SKEW:%Y-%m-%dT%H:%M:%SZ}); fix: set the clock of the machine "
                    "that ran it and rerun it there")
                continue
            if not item.ok:
                report.skipped.append(f"{path}: proof {item.proof} ({item.device_class}) never "
                                      f"succeeded there ({item.status}); nothing to bring home")
                continue
            candidates.setdefault((item.proof, item.device_class), []).append((item, str(path), Path(folder)))
    with store_lock(library.lock_path):  # never while a build writes the same records
        for (proof, device_class), found in sorted(candidates.items()):
            # A proof that never imports torch has one version: its runs rank by time alone.
            _merge_one(store, pin if library.proofs[proof].torch else None, proof, device_class, found, report)
    return report


def _merge_one(store: Store, pin: str | None, proof: str, device_class: str,
               found: list[tuple[Record, str, Path]], report: MergeReport) -> None:
    """``pin`` None: a proof that never imports torch (its runs rank by time alone)."""
    label = f"{proof}.{device_class}"
    current = store.read(proof, device_class)
    best, source, shard = max(found, key=lambda item: rank(item[0], pin))
    # Every other version seen goes to history (when newer than what history holds).
    for record, _, _ in found:
        if record is not best and _release(record, pin) != _release(best, pin):
            _to_history(store, record, report, label)
    if isinstance(current, Record) and current.ok and rank(current, pin) >= rank(best, pin):
        if _release(best, pin) != _release(current, pin):
            _to_history(store, best, report, label)
        else:
            report.kept.append(f"{label}: store has {_under(current)} from {current.measured_at}, "
                               f"shard {best.measured_at}")
        return
    if isinstance(current, Record) and current.ok and _release(current, pin) == _release(best, pin):
        kept = keep_replaced(store, current)  # a newer run of the same version: keep the old one
        report.replaced.append(f"{label}: {_under(current)} ({current.measured_at}) kept in "
                               f"{kept.relative_to(store.dir)}")
    write_record(store, best)  # archives the replaced record when its torch differs
    problem = _bring_noise(store, best, Path(source), shard) if best.torch else None
    if problem:
        report.corrupt.append(problem)
    where = f"{label} ({_under(best)}, {best.measured_at}) from {source}"
    if pin is not None and not _same_release(best.torch, pin) and device_class != "cpu":
        mark_foreign(store, best, pin, source)
        report.foreign.append(f"{label}: measured on {best.device} under torch {best.torch} "
                              f"(the pin is {pin}); kept as the current {device_class} record")
    else:
        clear_foreign(store, proof, device_class)
    report.merged.append(where)


def _bring_noise(store: Store, record: Record, source: Path, shard: Path) -> str | None:
    """The spread measured with ``ldr run --shard DIR --repeat N`` travels with its record:
    read only as a regular file inside the shard, checked field by field (noisestore.parse) and
    written by noisestore.save; a noise file that is refused is named (the record still merges)."""
    found = (source.parent / noisestore.NOISE_DIR / version_dir(record.torch)
             / f"{record.proof}.{record.device_class}.json")
    if not os.path.lexists(found):
        return None
    try:
        body = noisestore.parse(read_text(found, inside=shard, limit="record"), record)
    except UnsafeFile as exc:
        return f"{found}: {exc.what}; the noise file was not brought home"
    except (OSError, ValueError) as exc:
        return f"{found}: {exc}; the noise file was not brought home"
    noisestore.save(store, body)
    return None


def _to_history(store: Store, record: Record, report: MergeReport, label: str) -> None:
    if not record.torch:
        return  # no version to keep it under
    archive = version_store(store, record.torch)
    there = archive.read(record.proof, record.device_class)
    if isinstance(there, Record) and not newer(record, there):
        return
    archive.write(record)
    report.archived.append(f"{label}: torch {record.torch} ({record.measured_at}) kept in history")


def cmd_merge(args, library) -> int:
    report = merge(library, [Path(p) for p in args.shards])
    print(report.text())
    return 0 if report.ok else 1
