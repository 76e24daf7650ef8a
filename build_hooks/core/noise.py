"""Measured noise: how far a proof's timing values move between repeated runs.

``ldr run --repeat N`` runs each selected proof N times under the current torch and writes,
next to the record (never inside it, so the record format is unchanged)::

    proofs/_results/_noise/<torch version>/<proof>.<device>.json
    {"format": 1, "proof", "device_class", "torch", "runs": N, "measured_at",
     "spread": {"TOLL.small_us": 0.042, ...}}

``spread`` is, per numeric data key, (max - min) / |median| over the N runs. ``ldr drift``
treats a value whose ratio stays within max(spread, declared tolerance) of 1 as noise.
Every field of a noise file is parsed into its strict type when it is read (:func:`parse`:
the proof name, device class, PEP 440 torch version, run count, UTC time, and finite
non-negative spreads); a file that is not one is ignored by drift and named in its problems.
The folder is the parsed version's normalised public string, inside the results folder.

A proof may also declare a tolerance in its options, for all keys or per key (a key also
covers everything under it)::

    PROOF = {"tolerance": 0.1}                       # 10 % on every value
    PROOF = {"tolerance": {"TOLL.small_us": 0.15}}   # 15 % on this value only
"""

from __future__ import annotations

import ast
import json
import math
import os
import statistics
from pathlib import Path

from .discovery import NAME
from .errors import LdrError
from .safefs import UnsafeFile, check_inside, read_text
from .schema import DEVICE_CLASSES, MAX_TEXT, show, timestamp, version_dir
from .store import Record, Store, atomic_write

NOISE_DIR = "_noise"
MAX_RUNS = 10_000


def numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def flat(data: dict) -> dict[str, object]:
    from .diff import flatten

    return flatten(data)


def spread(records: list[Record]) -> dict[str, float]:
    """Per numeric key present in every run: (max - min) / |median|."""
    runs = [flat(r.data) for r in records if r.ok]
    if len(runs) < 2:
        return {}
    out = {}
    for key in runs[0]:
        values = [run.get(key) for run in runs]
        if all(numeric(v) for v in values):
            middle = statistics.median(values)
            if middle:
                out[key] = round((max(values) - min(values)) / abs(middle), 6)
    return out


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
    "format": (lambda v: v == 1, "1"),
    "proof": (lambda v: isinstance(v, str) and bool(NAME.fullmatch(v)), "a proof name"),
    "device_class": (lambda v: v in DEVICE_CLASSES, f"one of {', '.join(DEVICE_CLASSES)}"),
    "torch": (lambda v: _parses(version_dir, v), "a PEP 440 version such as 2.14.1"),
    "runs": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 2 <= v <= MAX_RUNS,
             f"a number of runs from 2 to {MAX_RUNS:,}"),
    "measured_at": (lambda v: _parses(timestamp, v), "an ISO 8601 UTC time such as 2026-12-01T09:48:41Z"),
    "spread": (_spread_ok, "an object of data keys to finite non-negative ratios"),
}


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
    if record is not None and (body["proof"], body["device_class"], version_dir(body["torch"])) != (
            record.proof, record.device_class, version_dir(record.torch)):
        raise ValueError(f"holds {body['proof']}.{body['device_class']} under torch {body['torch']}, "
                         f"not {record.proof}.{record.device_class} under {record.torch}")
    return {name: body[name] for name in _FIELDS}


def save(store: Store, body: dict) -> Path:
    """Write a checked noise body (atomically) where its fields say."""
    path = _path(store, body["torch"], body["proof"], body["device_class"])
    atomic_write(path, json.dumps(body, indent=2, sort_keys=True) + "\n")
    return path


def write(store: Store, record: Record, records: list[Record]) -> Path:
    return save(store, {"format": 1, "proof": record.proof, "device_class": record.device_class,
                        "torch": version_dir(record.torch), "runs": len(records),
                        "measured_at": record.measured_at, "spread": spread(records)})


def read(store: Store, version: str, proof: str, device_class: str) -> dict[str, float]:
    """The measured spread per key ({} when none was measured, or the file is not a noise
    file of this proof: :func:`problems` names those)."""
    try:
        path = _path(store, version, proof, device_class)
        body = parse(read_text(path, inside=store.dir, limit="record"))
    except (OSError, ValueError, UnsafeFile):
        return {}
    if (body["proof"], body["device_class"], version_dir(body["torch"])) != (proof, device_class, version_dir(version)):
        return {}
    return {k: float(v) for k, v in body["spread"].items()}


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


def declared(path: Path) -> dict[str, float] | float:
    """A proof's declared ``tolerance`` option (0.0 when it declares none)."""
    from .discovery import _options

    try:
        tree = ast.parse(Path(path).read_bytes(), filename=str(path))
    except (OSError, SyntaxError):
        return 0.0
    value = _options(tree, Path(path)).get("tolerance", 0.0)
    if isinstance(value, dict):
        bad = [k for k, v in value.items() if not isinstance(k, str) or not numeric(v) or v < 0]
        if bad:
            raise LdrError(f"{path}: PROOF tolerance must map data keys to non-negative ratios "
                           f"(e.g. {{\"TOLL.small_us\": 0.15}}); bad entries: {', '.join(map(str, bad))}")
        return {k: float(v) for k, v in value.items()}
    if not numeric(value) or value < 0:
        raise LdrError(f"{path}: PROOF tolerance must be a non-negative ratio like 0.1, not {value!r}")
    return float(value)


def tolerance_for(key: str, tolerance: dict[str, float] | float) -> float:
    if not isinstance(tolerance, dict):
        return tolerance
    best = 0.0
    for prefix, value in tolerance.items():
        if key == prefix or key.startswith(prefix + "."):
            best = max(best, value)
    return best


def allowance(key: str, tolerance, *spreads: dict[str, float]) -> float:
    """How far from 1 a ratio may be and still count as noise."""
    return max([tolerance_for(key, tolerance), *(s.get(key, 0.0) for s in spreads)])


__all__ = ["allowance", "declared", "parse", "problems", "read", "save", "spread", "write"]


def record_noise(store: Store, runs: dict[tuple[str, str], list[Record]], repeat: int) -> list[Path]:
    """After ``ldr run --repeat N``: one noise file per proof and device that succeeded N times."""
    written = []
    for (_, _), records in sorted(runs.items()):
        if len(records) == repeat and all(r.ok and r.failure is None for r in records):
            written.append(write(store, records[-1], records))
    return written
