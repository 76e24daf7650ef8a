"""Noise files: the spread of repeated runs, kept next to the records.

``ldr run --repeat N`` runs each selected proof N times under the current torch and writes,
next to the record (never inside it, so the record format is unchanged)::

    proofs/_results/_noise/<torch version>/<proof>.<device>.json
    {"format": 2, "proof", "device_class", "torch", "runs": N, "measured_at",
     "stats": {"TOLL.small_us": {"median": 1.07, "mad": 0.01}, ...},
     "spread": {"TOLL.small_us": 0.042, ...}}

``stats`` holds, per numeric data key, the median and the median absolute deviation (MAD) of
the N runs; ``spread`` their range over the median (kept for older readers). Format-1 files
hold ``spread`` alone.

Every field of a noise file is parsed into its strict type when it is read (:func:`parse`:
the proof name, device class, PEP 440 torch version, run count, UTC time, and finite
non-negative spreads); a file that is not one is ignored by drift and named in its problems.
The folder is the parsed version's normalised public string, inside the results folder.

What the spread means, and when a change is more than noise: noise.py.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from build_hooks.core.atomic import write_atomic
from build_hooks.core.safefs import UnsafeFile, check_inside, read_text
from build_hooks.proofs.discovery import NAME
from build_hooks.store.noise import numeric, relative_noise, spread, stats
from build_hooks.store.record import Record
from build_hooks.store.schema import DEVICE_CLASSES, MAX_TEXT, show, timestamp, version_dir
from build_hooks.store.store import Store

NOISE_DIR = "_noise"
MAX_RUNS = 10_000


def folder(store: Store, version: str) -> Path:
    """``_noise/<version>`` (raises ValueError for a string that is not a PEP 440 version,
    UnsafeFile for a folder that leads outside the results folder)."""
    return check_inside(Path(store.dir) / NOISE_DIR / version_dir(version), store.dir)


def _path(store: Store, version: str, proof: str, device_class: str) -> Path:
    if not NAME.fullmatch(proof) or device_class not in DEVICE_CLASSES:
        raise ValueError(f"not a proof and device class: {proof!r}, {device_class!r}")
    return folder(store, version) / f"{proof}.{device_class}.json"


def _spread_ok(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and len(k) <= MAX_TEXT and numeric(v) and math.isfinite(v) and v >= 0
        for k, v in value.items())


_FIELDS = {
    "format": (lambda v: v in (1, 2) and not isinstance(v, bool), "1 or 2"),
    "proof": (lambda v: isinstance(v, str) and bool(NAME.fullmatch(v)), "a proof name"),
    "device_class": (lambda v: v in DEVICE_CLASSES, f"one of {', '.join(DEVICE_CLASSES)}"),
    "torch": (lambda v: _parses(version_dir, v), "a PEP 440 version such as 2.14.1"),
    "runs": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 2 <= v <= MAX_RUNS,
             f"a number of runs from 2 to {MAX_RUNS:,}"),
    "measured_at": (lambda v: _parses(timestamp, v), "an ISO 8601 UTC time such as 2026-12-01T09:48:41Z"),
    "spread": (_spread_ok, "an object of data keys to finite non-negative ratios"),
}
_OPTIONAL = {"stats": (lambda v: _stats_ok(v), "an object of data keys to {median, mad} finite numbers")}


def _stats_ok(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and len(k) <= MAX_TEXT and isinstance(v, dict) and set(v) == {"median", "mad"}
        and all(numeric(x) and math.isfinite(x) for x in v.values()) and v["mad"] >= 0
        for k, v in value.items())


def _parses(parse, value) -> bool:
    try:
        parse(value)
    except ValueError:
        return False
    return True


def parse(text: str, record: Record | None = None) -> dict:
    """A noise file's text as its checked body (raises ValueError naming the field); with
    ``record``, the file must be the one of its proof, device class and torch version."""
    try:
        body = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    if not isinstance(body, dict):
        raise ValueError("not a noise file (a JSON object)")
    for name, (check, what) in _FIELDS.items():
        if name not in body:
            raise ValueError(f"field {name} is missing")
        if not check(body[name]):
            raise ValueError(f"field {name} must be {what}, not {show(body[name])}")
    for name, (check, what) in _OPTIONAL.items():
        if name in body and not check(body[name]):
            raise ValueError(f"field {name} must be {what}, not {show(body[name])}")
    if record is not None and (body["proof"], body["device_class"], version_dir(body["torch"])) != (
            record.proof, record.device_class, version_dir(record.torch)):
        raise ValueError(f"holds {body['proof']}.{body['device_class']} under torch {body['torch']}, "
                         f"not {record.proof}.{record.device_class} under {record.torch}")
    return {name: body[name] for name in (*_FIELDS, *_OPTIONAL) if name in body}


def save(store: Store, body: dict) -> Path:
    """Write a checked noise body (atomically) where its fields say."""
    path = _path(store, body["torch"], body["proof"], body["device_class"])
    write_atomic(path, json.dumps(body, indent=2, sort_keys=True) + "\n")
    return path


def write(store: Store, record: Record, records: list[Record]) -> Path:
    return save(store, {"format": 2, "proof": record.proof, "device_class": record.device_class,
                        "torch": version_dir(record.torch), "runs": len(records),
                        "measured_at": record.measured_at, "spread": spread(records),
                        "stats": stats(records)})


def read(store: Store, version: str, proof: str, device_class: str) -> dict[str, float]:
    """The relative noise of one run per key (:func:`relative_noise`; {} when none was
    measured, or the file is not a noise file of this proof: :func:`problems` names those)."""
    try:
        path = _path(store, version, proof, device_class)
        body = parse(read_text(path, inside=store.dir, limit="record"))
    except (OSError, ValueError, UnsafeFile):
        return {}
    if (body["proof"], body["device_class"], version_dir(body["torch"])) != (proof, device_class, version_dir(version)):
        return {}
    return relative_noise(body)


def problems(store: Store) -> list[str]:
    """Every noise file that cannot be read or is not a noise file, named (``ldr drift``)."""
    root = Path(store.dir) / NOISE_DIR
    if not root.is_dir() or os.path.islink(root):
        return []
    out = []
    for version in sorted(os.listdir(root)):
        where = root / version
        if not where.is_dir() or os.path.islink(where):
            continue
        for name in sorted(os.listdir(where)):
            if name.endswith(".json") and not name.startswith("."):
                try:
                    parse(read_text(where / name, inside=store.dir, limit="record"))
                except UnsafeFile as exc:
                    out.append(f"{where / name}: {exc.what} (skipped)")
                except (OSError, ValueError) as exc:
                    out.append(f"{where / name}: {exc} (skipped)")
    return out


__all__ = ["parse", "problems", "read", "save", "write"]


def record_noise(store: Store, runs: dict[tuple[str, str], list[Record]], repeat: int) -> list[Path]:
    """After ``ldr run --repeat N``: one noise file per proof and device that succeeded N times
    (a proof without torch has none: noise is what drift between torch versions allows)."""
    written = []
    for (_, _), records in sorted(runs.items()):
        if len(records) == repeat and records[-1].torch and all(r.ok and r.failure is None for r in records):
            written.append(write(store, records[-1], records))
    return written
