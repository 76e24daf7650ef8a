"""Results from other machines: shards, and merging them into the store.

``ldr run --shard DIR`` records into ``DIR`` (files ``<proof>.<device>.json``, the store's
own layout) instead of ``proofs/_results``; what is already fresh in the store is not rerun.
``ldr merge DIR...`` brings shards home:

* the same proof, device and torch version recorded twice keeps the newer run (measured_at);
  a run under the pin beats one under another version; a replaced run of another version
  goes to history (see history.py), so nothing is lost;
* a shard record made from another script than today's ``proofs/<proof>.py`` is refused,
  naming the proof; a shard file that does not parse is named and skipped; the store is
  never touched by either;
* an accelerator record made under another torch than the pin (a GPU box with an older
  torch) merges as what it is: it becomes the current record of its device class, marked
  foreign in ``proofs/_results/_foreign/<proof>.<device>.json``; pages show its own version
  ("measured on H200 under torch 2.11.0, the pin is 2.13.0"), ``ldr status`` lists it as
  "foreign" and ``ldr check`` accepts it (a host with an accelerator and the pinned torch
  still re-measures it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .history import store_at, version_key, version_store, write_record
from .pin import public_version
from .store import DEVICE_CLASSES, Corrupt, Record, Store, store_lock

FOREIGN_DIR = "_foreign"


class ShardStore(Store):
    """Writes go to the shard folder; reads fall back to the project's store."""

    keeps_history = False  # history is kept when the shard is merged

    def __init__(self, folder: Path, base: Store, any_torch: bool = False):
        super().__init__(Path(folder))
        self.dir = Path(folder)
        self.base = base
        self.any_torch = any_torch  # run under whatever torch the interpreter has (see cli)

    def read(self, proof: str, device_class: str):
        item = super().read(proof, device_class)
        return self.base.read(proof, device_class) if item is None else item

    def known(self) -> set[tuple[str, str]]:
        return super().known() | self.base.known()


# -- foreign markers ---------------------------------------------------------
def marker_path(store: Store, proof: str, device_class: str) -> Path:
    return Path(store.dir) / FOREIGN_DIR / f"{proof}.{device_class}.json"


def is_foreign(store: Store, record: Record) -> bool:
    """Whether ``record`` is the accelerator record a merge kept as foreign."""
    if record.device_class == "cpu":
        return False
    try:
        body = json.loads(marker_path(store, record.proof, record.device_class).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(body, dict) and body.get("torch") == public_version(record.torch)
            and body.get("measured_at") == record.measured_at)


def mark_foreign(store: Store, record: Record, pin: str, source: str) -> Path:
    path = marker_path(store, record.proof, record.device_class)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"format": 1, "proof": record.proof, "device_class": record.device_class,
            "torch": public_version(record.torch), "measured_at": record.measured_at,
            "device": record.device, "pin": pin, "source": source}
    path.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def clear_foreign(store: Store, proof: str, device_class: str) -> None:
    marker_path(store, proof, device_class).unlink(missing_ok=True)


# -- merging -----------------------------------------------------------------
@dataclass
class MergeReport:
    merged: list[str] = field(default_factory=list)    # what became the current record
    archived: list[str] = field(default_factory=list)  # went to history only
    kept: list[str] = field(default_factory=list)      # the store's record was newer
    foreign: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)   # runs that failed there: nothing to merge
    corrupt: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.refused or self.corrupt)

    def text(self) -> str:
        lines = []
        for label, items in (("merged", self.merged), ("to history", self.archived),
                             ("kept the store's newer record", self.kept), ("foreign", self.foreign),
                             ("failed there, skipped", self.skipped), ("refused", self.refused),
                             ("corrupt, skipped", self.corrupt)):
            lines.extend(f"{label}: {item}" for item in items)
        total = len(self.merged) + len(self.archived)
        lines.append(f"ldr merge: {total} record(s) brought home, {len(self.refused)} refused, "
                     f"{len(self.corrupt)} corrupt shard file(s) skipped")
        return "\n".join(lines)


def shard_files(folder: Path) -> list[Path]:
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(folder)
    return sorted(p for p in folder.rglob("*.json") if not any(part.startswith("_") for part in p.relative_to(folder).parts))


def read_shard_file(path: Path) -> Record | Corrupt:
    parts = path.name[: -len(".json")].rsplit(".", 1)
    if len(parts) != 2 or parts[1] not in DEVICE_CLASSES:
        return Corrupt(path, "not a record file name (<proof>.<cpu|cuda|mps>.json)")
    item = store_at(path.parent).read(parts[0], parts[1])
    if item is None:
        return Corrupt(path, "vanished while reading")
    return item


def rank(record: Record, pin: str) -> tuple:
    """Higher is better: under the pin, then the newer torch, then the newer run."""
    under_pin = public_version(record.torch) == public_version(pin)
    return (under_pin, version_key(record.torch), record.measured_at)


def merge(library, folders: list[Path]) -> MergeReport:
    """Merge shard folders into ``library.store`` (see the module docstring)."""
    store, pin, report = library.store, library.pin, MergeReport()
    candidates: dict[tuple[str, str], list[tuple[Record, str]]] = {}
    for folder in folders:
        try:
            files = shard_files(folder)
        except FileNotFoundError:
            report.corrupt.append(f"{folder}: no such shard folder")
            continue
        for path in files:
            item = read_shard_file(path)
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
            if not item.ok:
                report.skipped.append(f"{path}: proof {item.proof} ({item.device_class}) never "
                                      f"succeeded there ({item.status}); nothing to bring home")
                continue
            candidates.setdefault((item.proof, item.device_class), []).append((item, str(path)))
    with store_lock(library.lock_path):  # never while a build writes the same records
        for (proof, device_class), found in sorted(candidates.items()):
            _merge_one(store, pin, proof, device_class, found, report)
    return report


def _merge_one(store: Store, pin: str, proof: str, device_class: str,
               found: list[tuple[Record, str]], report: MergeReport) -> None:
    label = f"{proof}.{device_class}"
    current = store.read(proof, device_class)
    best, source = max(found, key=lambda pair: rank(pair[0], pin))
    # Every other version seen goes to history (when newer than what history holds).
    for record, _ in found:
        if record is not best and public_version(record.torch) != public_version(best.torch):
            _to_history(store, record, report, label)
    if isinstance(current, Record) and current.ok and rank(current, pin) >= rank(best, pin):
        if public_version(best.torch) != public_version(current.torch):
            _to_history(store, best, report, label)
        else:
            report.kept.append(f"{label}: store has torch {current.torch} from {current.measured_at}, "
                               f"shard {best.measured_at}")
        return
    write_record(store, best)  # archives the replaced record when its torch differs
    _bring_noise(store, best, Path(source))
    where = f"{label} (torch {best.torch}, {best.measured_at}) from {source}"
    if public_version(best.torch) != public_version(pin) and device_class != "cpu":
        mark_foreign(store, best, pin, source)
        report.foreign.append(f"{label}: measured on {best.device} under torch {best.torch} "
                              f"(the pin is {pin}); kept as the current {device_class} record")
    else:
        clear_foreign(store, proof, device_class)
    report.merged.append(where)


def _bring_noise(store: Store, record: Record, source: Path) -> None:
    """The spread measured with ``ldr run --shard DIR --repeat N`` travels with its record."""
    from .noise import NOISE_DIR

    version = public_version(record.torch)
    found = source.parent / NOISE_DIR / version / source.name
    if found.is_file():
        target = Path(store.dir) / NOISE_DIR / version / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(found.read_bytes())


def _to_history(store: Store, record: Record, report: MergeReport, label: str) -> None:
    archive = version_store(store, record.torch)
    there = archive.read(record.proof, record.device_class)
    if isinstance(there, Record) and there.measured_at >= record.measured_at:
        return
    archive.write(record)
    report.archived.append(f"{label}: torch {record.torch} ({record.measured_at}) kept in history")


def cmd_merge(args, library) -> int:
    report = merge(library, [Path(p) for p in args.shards])
    print(report.text())
    return 0 if report.ok else 1
