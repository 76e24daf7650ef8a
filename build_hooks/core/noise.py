"""Measured noise: how far a proof's timing values move between repeated runs.

``ldr run --repeat N`` runs each selected proof N times under the current torch and writes,
next to the record (never inside it, so the record format is unchanged)::

    proofs/_results/_noise/<torch version>/<proof>.<device>.json
    {"format": 1, "proof", "device_class", "torch", "runs": N, "measured_at",
     "spread": {"TOLL.small_us": 0.042, ...}}

``spread`` is, per numeric data key, (max - min) / |median| over the N runs. ``ldr drift``
treats a value whose ratio stays within max(spread, declared tolerance) of 1 as noise.
A proof may also declare a tolerance in its options, for all keys or per key (a key also
covers everything under it)::

    PROOF = {"tolerance": 0.1}                       # 10 % on every value
    PROOF = {"tolerance": {"TOLL.small_us": 0.15}}   # 15 % on this value only
"""

from __future__ import annotations

import ast
import json
import statistics
from pathlib import Path

from .errors import LdrError
from .pin import public_version
from .store import Record, Store

NOISE_DIR = "_noise"


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
    return Path(store.dir) / NOISE_DIR / public_version(version)


def write(store: Store, record: Record, records: list[Record]) -> Path:
    body = {"format": 1, "proof": record.proof, "device_class": record.device_class,
            "torch": public_version(record.torch), "runs": len(records),
            "measured_at": record.measured_at, "spread": spread(records)}
    path = folder(store, record.torch) / f"{record.proof}.{record.device_class}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(body, indent=2, sort_keys=True) + "\n"
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def read(store: Store, version: str, proof: str, device_class: str) -> dict[str, float]:
    """The measured spread per key ({} when none was measured or the file is unreadable)."""
    path = folder(store, version) / f"{proof}.{device_class}.json"
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = body.get("spread") if isinstance(body, dict) else None
    if not isinstance(found, dict):
        return {}
    return {k: float(v) for k, v in found.items() if numeric(v)}


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


__all__ = ["allowance", "declared", "read", "spread", "write"]


def record_noise(store: Store, runs: dict[tuple[str, str], list[Record]], repeat: int) -> list[Path]:
    """After ``ldr run --repeat N``: one noise file per proof and device that succeeded N times."""
    written = []
    for (_, _), records in sorted(runs.items()):
        if len(records) == repeat and all(r.ok and r.failure is None for r in records):
            written.append(write(store, records[-1], records))
    return written
