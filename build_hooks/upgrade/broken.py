"""Why a claim that does not hold does not: what changed, said honestly.

A claim fails on the record a page shows. Whether torch is to blame depends on what else is
known, and the words follow the evidence, never the other way:

* **torch changed**: history keeps the last good record of the proof under an older torch
  (store/history.py), and the claim held on it: "no longer holds under torch 2.14.1; it held
  under 2.13.0" (``ldr drift`` tells the rest);
* **the same torch, another run**: the claim held on an earlier run under the same torch (the
  record this process replaced, say under ``mkdocs serve``; the record committed at git
  ``HEAD``), or on the medians of the repeated runs ``ldr run --repeat`` measured
  (store/noise.py): the values moved between runs of one torch, which is noise, and the fix is
  the claim's margin or the proof's declared ``tolerance``, never the version;
* **nothing earlier**: the claim does not hold on this run, and that is all that is said.

Each case names the proof's noise declaration (its ``tolerance`` for each value the check
reads) and the noise measured under this torch, where there is one.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from build_hooks.run.library import earlier_run
from build_hooks.store import history, noise, noisestore
from build_hooks.store.record import Record
from build_hooks.store.schema import version_dir
from build_hooks.upgrade.claims import evaluate
from build_hooks.upgrade.expression import ClaimError


@dataclass(frozen=True)
class Why:
    title: str  # the reader's box: "This claim ..."
    note: str  # the author's warning: the cause, the noise declared and measured, the fix


def why_broken(library, name: str, check: str, device_class: str, values: dict) -> Why:
    """What can honestly be said of ``check`` failing on the current record of ``name`` on
    ``device_class`` (``values``: what the check read, by path as written)."""
    current = library.store.read(name, device_class)
    if not isinstance(current, Record):
        return Why("This claim does not hold", "")
    torch, day = current.torch, current.measured_at[:10]
    ran = f"torch {torch}" if torch else "no torch"  # a plain-Python proof's record names none
    declared = _declared(library, name, values, torch, device_class)
    older = _older(library, name, device_class, torch)
    if older is not None:
        if _holds(check, older.data):
            return Why(f"This claim no longer holds under torch {torch} ({device_class}); it held under "
                       f"torch {older.torch}",
                       f"it held under torch {older.torch} (measured {older.measured_at[:10]}), so torch "
                       f"changed under it (`ldr drift` compares the two); {declared}")
        return Why(f"This claim does not hold on the run of {day} ({ran}, {device_class}), nor "
                   f"under torch {older.torch}",
                   f"it did not hold under torch {older.torch} either, so no torch upgrade broke it; {declared}")
    before = _same_torch(library, name, device_class, current, check)
    if before:
        return Why(f"This claim does not hold on the run of {day} ({ran}, {device_class}): it held "
                   "on an earlier run of the same torch, so the values moved between runs",
                   f"torch did not change: it held {before} under the same torch {torch}, so the values "
                   f"moved between runs (noise), not because of torch; {declared}")
    return Why(f"This claim does not hold on the run of {day} ({ran}, {device_class})",
               f"no earlier run is recorded to compare with{f' (under {ran} or another)' if torch else ''}; "
               f"{declared}")


def _holds(check: str, data: dict) -> bool:
    try:
        return evaluate(check, data).holds
    except ClaimError:  # an earlier run without a value the check reads: no evidence either way
        return False


def _older(library, name: str, device_class: str, torch: str) -> Record | None:
    """The last good record of the proof under the newest torch older than ``torch``."""
    try:
        mine = history.version_key(torch)
        versions = [v for v in history.versions(library.store) if history.version_key(v) < mine]
    except ValueError:
        return None
    for version in reversed(versions):
        try:
            found = history.version_store(library.store, version).read(name, device_class)
        except (OSError, ValueError):
            continue
        if isinstance(found, Record) and found.ok:
            return found
    return None


def _same_torch(library, name: str, device_class: str, current: Record, check: str) -> str:
    """Where the claim held under the current record's torch, in words ("" if nowhere known)."""
    held = _held(earlier_run(library.root, name, device_class), current, check)
    if held is not None:
        return f"on the run of {held.measured_at} this process replaced"
    held = _held(_committed(library, name, device_class), current, check)
    if held is not None:
        return f"on the run of {held.measured_at} committed at git HEAD"
    medians, runs = _medians(library, name, device_class, current)
    if medians and _holds(check, _with(current.data, medians)):
        return f"on the medians of {runs} repeated runs (`ldr run {name} --repeat {runs}`)"
    return ""


def _held(record, current: Record, check: str) -> Record | None:
    """``record`` if it is a good run under the current record's torch on which the claim holds
    (so another run than the current one, on which it fails)."""
    if (isinstance(record, Record) and record.ok and version_dir(record.torch) == version_dir(current.torch)
            and _holds(check, record.data)):
        return record
    return None


def _committed(library, name: str, device_class: str) -> Record | None:
    from build_hooks.upgrade.diff import old_record

    relpath = library.layout.shown(library.store.path(name, device_class))
    try:
        return old_record(library.root, "HEAD", relpath)
    except OSError:  # no git here
        return None


def _noise_body(library, name: str, device_class: str, torch: str) -> dict:
    from build_hooks.core.safefs import UnsafeFile, read_text

    try:
        path = noisestore.folder(library.store, torch) / f"{name}.{device_class}.json"
        return noisestore.parse(read_text(path, inside=library.store.dir, limit="record"))
    except (OSError, ValueError, UnsafeFile):
        return {}


def _medians(library, name: str, device_class: str, current: Record) -> tuple[dict, int]:
    body = _noise_body(library, name, device_class, current.torch)
    stats = body.get("stats") or {}
    return {key: item["median"] for key, item in stats.items()}, int(body.get("runs") or 0)


def _with(data: dict, flat: dict) -> dict:
    """``data`` with the leaves named by flat paths (``SWEEP.0.us``) set to other values."""
    out = copy.deepcopy(data)
    for key, value in flat.items():
        parts, node = key.split("."), out
        try:
            for part in parts[:-1]:
                node = node[int(part)] if isinstance(node, list) else node[part]
            last = parts[-1]
            if isinstance(node, list):
                node[int(last)] = value
            elif last in node:
                node[last] = value
        except (KeyError, IndexError, ValueError, TypeError):
            continue
    return out


def _declared(library, name: str, values: dict, torch: str, device_class: str) -> str:
    """The proof's noise declaration and measured noise for the values the check read, and the fix."""
    proof = library.proofs.get(name)
    script = library.layout.shown(proof.path) if proof is not None else f"proofs/{name}.py"
    tolerance = noise.declared(Path(proof.path)) if proof is not None else 0.0
    measured = noise.relative_noise(body) if (body := _noise_body(library, name, device_class, torch)) else {}
    keys = [key for key in values if isinstance(values[key], (int, float)) and not isinstance(values[key], bool)]
    told = []
    for key in keys or list(values):
        share = noise.tolerance_for(key, tolerance)
        said = f"{key}: declared tolerance {share:.0%}" if share else f"{key}: no tolerance declared"
        if key in measured:  # measured per data path (SWEEP.0.us), as a check writes most of them
            said += f", measured noise {measured[key]:.1%} over {body['runs']} runs"
        told.append(said)
    return (f"the noise {script} declares ({'; '.join(told) or 'none'}); fix: if these values move "
            f"between runs, give the check a margin wider than their noise, and declare it in the PROOF "
            f'of {script} ("tolerance": a ratio, or one per key), measured with `ldr run {name} --repeat 5`')
