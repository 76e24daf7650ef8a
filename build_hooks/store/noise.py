"""Measured noise: how far a proof's timing values move between repeated runs.

``ldr run --repeat N`` measures it (noisestore.py keeps it next to the record): per numeric
data key, the median and the median absolute deviation (MAD) of the N runs (``stats``), and
their range over the median (``spread``, kept for older readers; format-1 files hold it alone).

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

A proof may also declare a tolerance in its options, for all keys or per key (a key also
covers everything under it)::

    PROOF = {"tolerance": 0.1}                       # 10 % on every value
    PROOF = {"tolerance": {"TOLL.small_us": 0.15}}   # 15 % on this value only
"""

from __future__ import annotations

import ast
import math
import statistics
from functools import lru_cache
from pathlib import Path
from typing import TypeGuard

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, read_bytes
from build_hooks.proofs.datalines import flatten
from build_hooks.store.record import Record

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


__all__ = ["Z", "declared", "relative_noise", "score", "spread", "stats", "within_noise"]
