"""The status report: the stable, documented form behind ``ldr status --json``.

Format 1::

    {"format": 1, "pin": "2.13.0", "root": "/path",
     "host": {"accelerator": null | "cuda" | "mps"},
     "proofs": [{"name", "path", "title", "accelerator", "parallel", "timeout",
                 "state": worst record state,
                 "records": [{"device_class", "state": "fresh|foreign|stale|failed|missing|corrupt",
                              "reasons": [str], "path", "torch", "device", "python",
                              "measured_at", "wall_s", "status", "data_keys": [str],
                              "failure": null | {"status", "message", "torch", "measured_at"}}]}],
     "orphans": [record paths whose proof script no longer exists]}
"""

from __future__ import annotations

from .library import Library, host_accelerator

ORDER = ("fresh", "foreign", "failed", "stale", "missing", "corrupt")


def status_report(library: Library, names: list[str] | None) -> dict:
    proofs = {}
    for state in library.states(names):
        proof = state.proof
        entry = proofs.setdefault(proof.name, {
            "name": proof.name, "path": str(proof.path.relative_to(library.root)),
            "title": proof.title, "accelerator": proof.accelerator, "parallel": proof.parallel,
            "timeout": proof.timeout, "state": "fresh", "records": [],
        })
        record = state.record
        failure = record.failure if record else None
        entry["records"].append({
            "device_class": state.device_class,
            "state": state.state,
            "reasons": state.reasons if state.reasons else (
                [f"last run {failure.message}"] if failure else
                ([f"never succeeded: {record.status}"] if record and not record.ok else [])),
            "path": str(library.store.path(proof.name, state.device_class).relative_to(library.root)),
            "torch": record.torch if record else None,
            "device": record.device if record else None,
            "python": record.python if record else None,
            "measured_at": record.measured_at if record else None,
            "wall_s": record.wall_s if record else None,
            "status": record.status if record else None,
            "data_keys": sorted(record.data) if record else [],
            "failure": None if failure is None else {
                "status": failure.status, "message": failure.message, "torch": failure.torch,
                "measured_at": failure.measured_at,
            },
        })
        worst = max(entry["state"], state.state, key=ORDER.index)
        entry["state"] = worst
    orphans = sorted(str(library.store.path(p, d).relative_to(library.root))
                     for p, d in library.store.known() if p not in library.proofs)
    return {"format": 1, "pin": library.pin, "root": str(library.root),
            "host": {"accelerator": host_accelerator()}, "proofs": list(proofs.values()),
            "orphans": [] if names else orphans}
