"""Foreign records: an accelerator record a merge kept under another torch than the pin.

An accelerator record made under another torch than the pin (a GPU box with an older torch)
merges as what it is (merge.py): it becomes the current record of its device class, marked
foreign in ``proofs/_results/_foreign/<proof>.<device>.json``; pages show its own version
("measured on H200 under torch 2.11.0, the pin is 2.13.0"), ``ldr status`` lists it as
"foreign" and ``ldr check`` accepts it (a host with an accelerator and the pinned torch still
re-measures it).
"""

from __future__ import annotations

import json
from pathlib import Path

from build_hooks.core.atomic import write_atomic
from build_hooks.core.safefs import UnsafeFile, check_inside, read_text
from build_hooks.proofs.discovery import NAME
from build_hooks.store.record import Record
from build_hooks.store.schema import DEVICE_CLASSES, timestamp, version_dir
from build_hooks.store.store import Store

FOREIGN_DIR = "_foreign"
MARKER_LIMIT = 64 * 1024  # bytes: a foreign marker is a few lines


def marker_path(store: Store, proof: str, device_class: str) -> Path:
    """``_foreign/<proof>.<device>.json``; the names are checked (a proof name, a device class)
    and the path must stay inside the store (raises ValueError or UnsafeFile)."""
    if not NAME.fullmatch(proof) or device_class not in DEVICE_CLASSES:
        raise ValueError(f"not a proof and device class: {proof!r}, {device_class!r}")
    return check_inside(Path(store.dir) / FOREIGN_DIR / f"{proof}.{device_class}.json", store.dir)


def is_foreign(store: Store, record: Record) -> bool:
    """Whether ``record`` is the accelerator record a merge kept as foreign: its marker names
    the same version and the same time (parsed: a marker that does not parse marks nothing)."""
    if record.device_class == "cpu":
        return False
    try:
        path = marker_path(store, record.proof, record.device_class)
        body = json.loads(read_text(path, inside=store.dir, limit=MARKER_LIMIT))
        return (isinstance(body, dict) and version_dir(body.get("torch")) == version_dir(record.torch)
                and timestamp(body.get("measured_at")) == timestamp(record.measured_at))
    except (OSError, ValueError, UnsafeFile, RecursionError):
        return False


def mark_foreign(store: Store, record: Record, pin: str, source: str) -> Path:
    path = marker_path(store, record.proof, record.device_class)
    body = {"format": 1, "proof": record.proof, "device_class": record.device_class,
            "torch": version_dir(record.torch), "measured_at": record.measured_at,
            "device": record.device, "pin": pin, "source": source}
    return write_atomic(path, json.dumps(body, indent=2, sort_keys=True) + "\n")  # replaces a FIFO or link


def clear_foreign(store: Store, proof: str, device_class: str) -> None:
    marker_path(store, proof, device_class).unlink(missing_ok=True)
