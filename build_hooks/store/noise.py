"""Measured noise: how far a proof's timing values move between repeated runs.

``ldr run --repeat N`` runs each selected proof N times under the current torch and writes,
next to the record (never inside it, so the record format is unchanged)::

    proofs/_results/_noise/<torch version>/<proof>.<device>.json
    {"format": 2, "proof", "device_class", "torch", "runs": N, "measured_at",
     "stats": {"TOLL.small_us": {"median": 1.07, "mad": 0.01}, ...},
     "spread": {"TOLL.small_us": 0.042, ...}}

``stats`` holds, per numeric data key, the median and the median absolute deviation (MAD) of
the N runs; ``spread`` their range over the median (kept for older readers). Format-1 files
hold ``spread`` alone.

**The model.** Timing values move multiplicatively, so noise is judged on the log of a ratio.
A key's relative noise is ``s = 1.4826 * MAD / |median|`` (the MAD of a normal sample, scaled
to estimate its standard deviation, relative to the median; robust to one wild run); from a
format-1 file it is ``spread / d2(N)``, the range estimator (d2: the expected range of N
normal draws in standard deviations, 1.128 for 2 runs, 1.693 for 3...). Drift compares one
run under each version, so a change ``old -> new`` has a standard error of
``sqrt(s_old^2 + s_new^2)`` in log units (a side with no measured noise takes the other
side's ``s``), and its score is ``z = |ln(new / old)| / that``. A change is **significant**
when ``z > 3`` (about 3 in 1,000 for a normal error: on a page of 100 quoted values, drift
flags a noise-only change about once in three upgrades) and it moves by more than the
proof's declared tolerance. With no noise measured on either side, ``z`` is unknown and every
change beyond the tolerance counts as significant.
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
from functools import lru_cache
from pathlib import Path
from typing import TypeGuard

from build_hooks.core.atomic import write_atomic
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, check_inside, read_bytes, read_text
from build_hooks.proofs.datalines import flatten
from build_hooks.proofs.discovery import NAME
from build_hooks.store.schema import DEVICE_CLASSES, MAX_TEXT, show, timestamp, version_dir
from build_hooks.store.store import Record, Store

NOISE_DIR = "_noise"
MAX_RUNS = 10_000
Z = 3.0  # a change scoring above this many standard errors is significant
MAD_TO_SIGMA = 1.4826  # 1 / Phi^-1(3/4): a normal sample's MAD times this estimates its sigma
D2 = {2: 1.128, 3: 1.693, 4: 2.059, 5: 2.326, 6: 2.534, 7: 2.704, 8: 2.847, 9: 2.970, 10: 3.078}


def numeric(value) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _samples(records: list[Record]) -> dict[str, list[float]]:
    """Per numeric key present in every good run: its values, run by run."""
    runs = [flatten(r.data) for r in records if r.ok]
    if len(runs) < 2:
        return {}
    out = {}
    for key in runs[0]:
        values = [run.get(key) for run in runs]
        if all(numeric(v) and math.isfinite(v) for v in values):
            out[key] = [float(v) for v in values]  # type: ignore[arg-type]
    return out


def spread(records: list[Record]) -> dict[str, float]:
    """Per numeric key present in every run: (max - min) / |median|."""
    out = {}
    for key, values in _samples(records).items():
        middle = statistics.median(values)
        if middle:
            out[key] = round((max(values) - min(values)) / abs(middle), 6)
    return out


def stats(records: list[Record]) -> dict[str, dict[str, float]]:
    """Per numeric key present in every run: its median and median absolute deviation."""
    out = {}
    for key, values in _samples(records).items():
        middle = statistics.median(values)
        out[key] = {"median": round(middle, 12), "mad": round(statistics.median(abs(v - middle) for v in values), 12)}
    return out


def relative_noise(body: dict) -> dict[str, float]:
    """Per key, the relative standard deviation of one run (see the module docstring)."""
    out = {}
    for key, item in (body.get("stats") or {}).items():
        if item["median"]:
            out[key] = MAD_TO_SIGMA * item["mad"] / abs(item["median"])
    runs = body["runs"]
    d2 = D2.get(runs, D2[10] if runs > 10 else 1.0)
    for key, value in body["spread"].items():
        out.setdefault(key, value / d2)
    return out


def score(old, new, key: str, *noises: dict[str, float]) -> float | None:
    """``z``: how many standard errors the change ``old -> new`` is (None: no noise measured,
    or no ratio to judge); ``inf`` for a change of a key that never moved between runs."""
    if not (numeric(old) and numeric(new)) or not old or (new / old) <= 0:
        return None
    known = [n[key] for n in noises if key in n]
    if not known:
        return None
    sides = known * 2 if len(known) == 1 else known[:2]
    error = math.sqrt(sum(s * s for s in sides))
    change = abs(math.log(new / old))
    if error == 0:
        return math.inf if change else 0.0
    return change / error


def within_noise(old, new, key: str, tolerance, *noises: dict[str, float]) -> tuple[bool, float | None]:
    """(whether ``old -> new`` is noise, its z): inside the declared tolerance, or z <= Z."""
    z = score(old, new, key, *noises)
    if numeric(old) and numeric(new) and old and abs(new / old - 1) <= tolerance_for(key, tolerance):
        return True, z
    return (z is not None and z <= Z), z


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


def declared(path: Path) -> dict[str, float] | float:
    """A proof's declared ``tolerance`` option (0.0 when it declares none)."""
    try:
        raw = read_bytes(path, inside=Path(path).parent, limit="script")
    except (OSError, ValueError, UnsafeFile):
        return 0.0
    found = _declared(str(path), raw)  # drift and corrections ask once per record: parse once per script
    return dict(found) if isinstance(found, dict) else found


@lru_cache(maxsize=512)
def _declared(path: str, raw: bytes) -> dict[str, float] | float:
    from build_hooks.proofs.discovery import _options

    try:
        tree = ast.parse(raw, filename=path)
    except (SyntaxError, ValueError):
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


__all__ = ["Z", "declared", "parse", "problems", "read", "relative_noise", "save", "score", "spread",
           "stats", "within_noise", "write"]


def record_noise(store: Store, runs: dict[tuple[str, str], list[Record]], repeat: int) -> list[Path]:
    """After ``ldr run --repeat N``: one noise file per proof and device that succeeded N times
    (a proof without torch has none: noise is what drift between torch versions allows)."""
    written = []
    for (_, _), records in sorted(runs.items()):
        if len(records) == repeat and records[-1].torch and all(r.ok and r.failure is None for r in records):
            written.append(write(store, records[-1], records))
    return written
