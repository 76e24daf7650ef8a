"""The result store: one text record per proof per device class, committed to git.

``proofs/_results/<proof>.<device>.json`` holds a record's text (record.py: its fields, and
how each is checked on read and before a write). Writes go to a temporary file in the same
folder and replace the record atomically. A record that does not parse, or has a field of the
wrong kind, reads as Corrupt and is reported with its path and the field. Record files are
read through safefs (a regular file inside the store, at most the "record" limit), so a FIFO,
a device, a symlink leading out or a giant reads as Corrupt, never waits.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from build_hooks.core.atomic import TMP_SUFFIX, write_atomic
from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.store.record import Record
from build_hooks.store.schema import DEVICE_CLASSES

RESULTS_DIR = "_results"
LEFTOVER_AGE = 5.0  # seconds: a younger temporary file may belong to a write in progress


@dataclass
class Corrupt:
    path: Path
    reason: str

    def describe(self, root: Path | None = None, note: str = "") -> str:
        """``proofs/_results/x.cpu.json: field wall_s must be ...; fix: ...``"""
        shown = self.path
        if root is not None:
            with contextlib.suppress(ValueError):
                shown = self.path.relative_to(root)
        proof = self.path.name.rsplit(".", 2)[0]
        note = f"; {note}" if note else ""
        return f"{shown}: {self.reason}{note}; fix: `ldr run {proof} --force` rewrites it"

    def warning(self, root: Path | None = None) -> str:
        """The build warning for it (one spelling, so a build reports it once)."""
        return f"corrupt record {self.describe(root, 'pages treat it as missing')}"


_PARSED: dict[str, tuple[tuple[int, int, int], Record | Corrupt | None]] = {}


class Store:
    def __init__(self, proofs_dir: Path, results_dir: Path | None = None):
        self.dir = Path(results_dir) if results_dir is not None else Path(proofs_dir) / RESULTS_DIR

    def path(self, proof: str, device_class: str) -> Path:
        return Path(self._where(proof, device_class))

    def _where(self, proof: str, device_class: str) -> str:
        """The record's file, as a string: :meth:`read` takes it a dozen times a record in a
        build, and a Path costs more than the stat."""
        return os.path.join(self.dir, f"{proof}.{device_class}.json")

    def read(self, proof: str, device_class: str) -> Record | Corrupt | None:
        """The record, or None, or Corrupt; unchanged files are parsed once per process.

        Records are shared between callers: treat them as read-only (use dataclasses.replace).
        """
        where = self._where(proof, device_class)
        try:
            stat = os.stat(where)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return Corrupt(Path(where), str(exc))
        stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        seen = _PARSED.get(where)
        if seen is not None and seen[0] == stamp:
            return seen[1]
        item = self._parse(Path(where), proof, device_class)
        _PARSED[where] = (stamp, item)
        return item

    def _parse(self, path: Path, proof: str, device_class: str) -> Record | Corrupt | None:
        try:
            text = read_text(path, inside=self.dir, limit="record")
        except FileNotFoundError:
            return None
        except UnsafeFile as exc:  # a FIFO, a device, a symlink leaving the store, too large
            return Corrupt(path, exc.what)
        except OSError as exc:
            return Corrupt(path, str(exc))
        except UnicodeDecodeError as exc:
            return Corrupt(path, f"not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})")
        try:
            checked = Record.checked_fields(text)
            record = Record.from_checked(checked)
        except json.JSONDecodeError as exc:
            return Corrupt(path, f"JSONDecodeError: {exc}")
        except (ValueError, TypeError, KeyError) as exc:
            return Corrupt(path, str(exc))
        if record.proof != proof or record.device_class != device_class:
            return Corrupt(path, f"holds {record.proof}.{record.device_class}, not {proof}.{device_class}")
        return record

    def records(self, proof: str) -> dict[str, Record | Corrupt]:
        found = {}
        for device_class in DEVICE_CLASSES:
            item = self.read(proof, device_class)
            if item is not None:
                found[device_class] = item
        return found

    def forget(self, proof: str, device_class: str) -> Path | None:
        """Remove a record (the author's ``ldr forget``); the path removed, or None if none was there."""
        path = self.path(proof, device_class)
        try:
            path.unlink()
        except FileNotFoundError:
            return None
        _PARSED.pop(str(path), None)
        return path

    def write(self, record: Record) -> Path:
        """Atomically replace the record: readers see the old or the new file, never half."""
        path = self.path(record.proof, record.device_class)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = record.bounded().to_text()
        with contextlib.suppress(OSError, UnsafeFile, ValueError):  # a FIFO is replaced, never read
            if read_text(path, inside=self.dir, limit=len(text.encode("utf-8"))) == text:
                return path  # identical: leave the file (and git) untouched
        return write_atomic(path, text, sync=True)

    def known(self) -> set[tuple[str, str]]:
        """(proof, device class) of every record file present (temporary files excluded)."""
        out = set()
        if self.dir.is_dir():
            for path in self.dir.glob("*.json"):
                if path.name.startswith("."):
                    continue
                parts = path.name[: -len(".json")].rsplit(".", 1)
                if len(parts) == 2 and parts[1] in DEVICE_CLASSES:
                    out.add((parts[0], parts[1]))
        return out

    def leftovers(self, min_age: float = LEFTOVER_AGE) -> list[Path]:
        """Temporary files of writes that never finished (a writer killed mid-write), older
        than ``min_age`` seconds so that a write in progress elsewhere is not counted."""
        if not self.dir.is_dir():
            return []
        now, out = time.time(), []
        for path in sorted(self.dir.glob(f".*.json.*{TMP_SUFFIX}")):
            with contextlib.suppress(OSError):
                if now - path.stat().st_mtime >= min_age:
                    out.append(path)
        return out

    def remove_leftovers(self, min_age: float = LEFTOVER_AGE) -> list[Path]:
        """Delete :meth:`leftovers`; call it holding the store lock (writers hold it too)."""
        removed = []
        for path in self.leftovers(min_age):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
        return removed
