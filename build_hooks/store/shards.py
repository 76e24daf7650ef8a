"""Results from other machines: a shard, the folder ``ldr run --shard DIR`` records into.

``ldr run --shard DIR`` records into ``DIR`` (files ``<proof>.<device>.json``, the store's
own layout) instead of ``proofs/_results``; what is already fresh in the store is not rerun.
``ldr merge DIR...`` brings shards home (merge.py). A shard file is read only as a regular
file inside the shard and at most the record size limit (core/safefs.py, never waited on); a
file that does not parse, or whose fields are not of their strict types (store/schema.py),
reads as Corrupt, naming what is wrong.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.proofs.discovery import NAME
from build_hooks.store.record import Record
from build_hooks.store.schema import DEVICE_CLASSES
from build_hooks.store.store import Corrupt, Store


class ShardStore(Store):
    """Writes go to the shard folder; reads fall back to the project's store."""

    keeps_history = False  # history is kept when the shard is merged

    def __init__(self, folder: Path, base: Store, any_torch: bool = False):
        shard, store = Path(os.path.realpath(folder)), Path(os.path.realpath(base.dir))
        if shard == store or store in shard.parents:  # its writes would bypass history and merge
            raise LdrError(f"--shard {folder} is {'the store' if shard == store else 'inside the store'} "
                           f"({base.dir}): a shard is a folder of its own, brought home with `ldr merge`; "
                           "fix: name a new folder outside it")
        super().__init__(Path(folder))
        self.dir = Path(folder)
        self.base = base
        self.any_torch = any_torch  # run under whatever torch the interpreter has (see cli)

    def read(self, proof: str, device_class: str):
        item = super().read(proof, device_class)
        return self.base.read(proof, device_class) if item is None else item

    def known(self) -> set[tuple[str, str]]:
        return super().known() | self.base.known()


def shard_files(folder: Path) -> list[Path]:
    """Every ``*.json`` under ``folder`` outside ``_*`` folders (symlinked folders are not
    followed; a symlinked file is listed, and refused when read if it leads outside)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(folder)
    found: list[Path] = []
    for where, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("_"))
        found.extend(Path(where) / name for name in files if name.endswith(".json"))
    return sorted(found)


def read_shard_file(path: Path, root: Path | None = None) -> Record | Corrupt:
    """The record in a shard file (read only as a regular file inside ``root``, the shard
    folder, and at most the record size limit), or Corrupt naming what is wrong."""
    parts = path.name[: -len(".json")].rsplit(".", 1)
    if len(parts) != 2 or parts[1] not in DEVICE_CLASSES or not NAME.fullmatch(parts[0]):
        return Corrupt(path, "not a record file name (<proof>.<cpu|cuda|mps>.json)")
    try:
        record = Record.from_text(read_text(path, inside=root or path.parent, limit="record"))
    except UnsafeFile as exc:
        return Corrupt(path, f"{exc.what}; it was not read")
    except json.JSONDecodeError as exc:
        return Corrupt(path, f"JSONDecodeError: {exc}")
    except (OSError, ValueError, TypeError, KeyError) as exc:
        return Corrupt(path, str(exc))
    if (record.proof, record.device_class) != (parts[0], parts[1]):
        return Corrupt(path, f"holds {record.proof}.{record.device_class}, not {parts[0]}.{parts[1]}")
    return record
