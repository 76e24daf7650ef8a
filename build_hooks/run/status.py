"""The status report: the stable, documented form behind ``ldr status --json``.

Format 1 (fields are only ever added, never removed or renamed)::

    {"format": 1, "pin": "2.13.0" | null (nothing pins torch), "root": "/path",
     "host": {"accelerator": null | "cuda" | "mps"},
     "proofs": [{"name", "path", "title", "accelerator", "parallel", "timeout",
                 "state": worst record state, or "unmeasured" (no record, cannot run here),
                 "helpers": {"_common.py": sha256} (local helpers it imports),
                 "allowed_unmeasured": bool (PROOF allow_unmeasured),
                 "needs": null | ["cuda", "mps"] (what it needs that this machine lacks),
                 "records": [{"device_class",
                              "state": "fresh|foreign|unneeded|problem|failed|stale|missing|corrupt",
                              "reasons": [str], "problems": [str] (data-line problems kept
                              in the record), "path", "torch" (null: a proof without
                              torch), "device", "python",
                              "measured_at", "wall_s", "status", "data_keys": [str],
                              "failure": null | {"status", "message", "torch", "measured_at",
                                                 "stderr_tail": [str]},
                              "last_lines": [str] (a failed run's last lines: what it printed,
                              then its stderr; [] for a run that succeeded)}]}],
     "orphans": [record paths whose proof script no longer exists],
     "leftovers": [temporary files of writes that never finished]}
"""

from __future__ import annotations

from build_hooks.core.textsafe import printable
from build_hooks.run.library import Diagnostic, Library
from build_hooks.run.results import last_lines
from build_hooks.run.states import ProofState, host_accelerator

ORDER = ("fresh", "foreign", "unmeasured", "unneeded", "problem", "failed", "stale", "missing", "corrupt")


def _reasons(state: ProofState) -> list[str]:
    record = state.record
    if state.reasons:
        return state.reasons
    failure = record.failure if record else None
    if failure:
        return [f"last run {failure.message}"]
    if record and not record.ok:
        return [f"never succeeded: {ended(record)}"]
    return list(record.problems) if record else []


def ended(record) -> str:
    """How a run that never succeeded ended, from its record, in the runner's own words."""
    from build_hooks.run.results import RunResult

    return RunResult(record.proof, record.status, record.returncode, record.signal, record.wall_s,
                     "", "").describe()


def _record_entry(library: Library, state: ProofState) -> dict:
    record = state.record
    failure = record.failure if record else None
    return {
        "device_class": state.device_class,
        "state": state.state,
        "reasons": _reasons(state),
        "problems": list(record.problems) if record else [],
        "path": library.layout.shown(library.store.path(state.proof.name, state.device_class)),
        "torch": record.torch or None if record else None,
        "device": record.device if record else None,
        "python": record.python if record else None,
        "measured_at": record.measured_at if record else None,
        "wall_s": record.wall_s if record else None,
        "status": record.status if record else None,
        "data_keys": sorted(record.data) if record else [],
        "failure": None if failure is None else {
            "status": failure.status, "message": failure.message, "torch": failure.torch or None,
            "measured_at": failure.measured_at, "stderr_tail": list(failure.stderr_tail),
        },
        "last_lines": failed_lines(record),
    }


def failed_lines(record) -> list[str]:
    """The last lines of a record's failed run (what it printed before a timeout included)."""
    if record is None:
        return []
    if record.failure is not None:
        return list(record.failure.stderr_tail)
    return [] if record.ok else last_lines(record.stdout, record.stderr)


def unmeasured_reason(needs: list[str]) -> str:
    return f"needs {' or '.join(needs)}; never measured (this machine has neither)"


def status_report(library: Library, names: list[str] | None) -> dict:
    proofs: dict[str, dict] = {}
    for proof in library.select(names):
        proofs[proof.name] = {
            "name": proof.name, "path": library.layout.shown(proof.path),
            "title": proof.title, "accelerator": proof.accelerator, "parallel": proof.parallel,
            "timeout": proof.timeout, "state": "fresh", "helpers": proof.helper_hashes,
            "allowed_unmeasured": proof.allow_unmeasured, "needs": library.needs(proof),
            "records": [],
        }
    for state in library.states(names):
        entry = proofs[state.proof.name]
        entry["records"].append(_record_entry(library, state))
        entry["state"] = max(entry["state"], state.state, key=ORDER.index)
    for entry in proofs.values():
        if not entry["records"]:  # it cannot run here and nothing was committed
            entry["state"] = "unmeasured"
    orphans = sorted(str(library.store.path(p, d).relative_to(library.root))
                     for p, d in library.store.known() if p not in library.proofs)
    leftovers = [str(path.relative_to(library.root)) for path in library.store.leftovers()]
    return {"format": 1, "pin": library.pin, "root": str(library.root),
            "host": {"accelerator": host_accelerator()}, "proofs": list(proofs.values()),
            "orphans": [] if names else orphans, "leftovers": leftovers}


def store_diagnostics(library: Library) -> list[Diagnostic]:
    """What is wrong in the store right now, reported on every build until it is fixed:
    corrupt records, and the data-line problems kept in the records."""
    out = []
    for state in library.states():
        name = state.proof.name
        if state.corrupt is not None:
            out.append(Diagnostic("warning", printable(state.corrupt.warning(library.root)), proof=name))
        elif state.record is not None:
            for problem in state.record.problems:
                out.append(Diagnostic(
                    "warning", printable(f"proof {name} ({state.device_class}): {problem}; fix the line "
                                         f"proofs/{name}.py prints (or a helper it uses), then `ldr run {name}`"),
                    proof=name))
    return out
