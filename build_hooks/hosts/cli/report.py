"""``ldr status`` and ``ldr check``: the store's records, as a table or as a CI verdict."""

from __future__ import annotations

import json
from pathlib import Path

from build_hooks.hosts.cli.console import console, say, table
from build_hooks.run.library import Library
from build_hooks.run.states import ACCELERATORS
from build_hooks.run.status import status_report, unmeasured_reason


def shown(path: Path, root: Path) -> Path:
    """``path`` relative to the project root when it is inside it, for messages."""
    return path.relative_to(root) if path.is_relative_to(root) else path


STATE_STYLES = {"fresh": "green", "foreign": "cyan", "stale": "yellow", "failed": "red", "missing": "red",
                "corrupt": "red", "problem": "red", "unmeasured": "yellow", "unneeded": "yellow"}


def _each_record(report: dict) -> list[tuple[dict, dict]]:
    """(proof, record) for every record of a status report, proof by proof."""
    return [(proof, rec) for proof in report["proofs"] for rec in proof["records"]]


def _status_rows(report: dict) -> tuple[list[list[str]], list[str | None]]:
    """The status table: one row per record, one for each proof with none; and each row's style."""
    rows: list[list[str]] = []
    styles: list[str | None] = []
    for proof in report["proofs"]:
        if not proof["records"]:
            allowed = "; allowed (allow_unmeasured)" if proof["allowed_unmeasured"] else ""
            rows.append([proof["name"], " or ".join(proof["needs"] or []) or "-", "unmeasured", "-", "-",
                         "-", "-", unmeasured_reason(proof["needs"] or []) + allowed])
            styles.append(STATE_STYLES["unmeasured"])
        for rec in proof["records"]:
            rows.append([proof["name"], rec["device_class"], rec["state"], rec["torch"] or "-",
                         (rec["measured_at"] or "-")[:10],
                         f"{rec['wall_s']:.2f} s" if rec["wall_s"] is not None else "-",
                         ", ".join(rec["data_keys"]) or "-", "; ".join(rec["reasons"]) or "-"])
            styles.append(STATE_STYLES.get(rec["state"]))
    return rows, styles


def _say_failed_tails(out, report: dict) -> None:
    """What a failed run printed last (before a timeout's stack, too)."""
    for proof, rec in _each_record(report):
        if rec["state"] == "failed" and rec["last_lines"]:
            say(out, ("failed: ", "red"), f"{proof['name']} ({rec['device_class']}), last lines:")
            for line in rec["last_lines"]:
                say(out, "    ", (line, "dim"))


def _say_full_reasons(out, report: dict) -> None:
    """The full text of what a narrow table cell may wrap."""
    for proof, rec in _each_record(report):
        if rec["state"] in ("corrupt", "problem"):
            for reason in rec["reasons"]:
                say(out, (f"{rec['state']}: ", "red"), f"{proof['name']} ({rec['device_class']}): {reason}")


def cmd_status(args, library: Library) -> int:
    report = status_report(library, args.proofs or None)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    rows, styles = _status_rows(report)
    out = console()
    pin = f"torch pin {report['pin']}" if report["pin"] else "no torch pin"
    table(out, f"Proofs ({pin}, this host: {report['host']['accelerator'] or 'cpu'})",
          ["proof", "device", "state", "torch", "measured", "wall", "data keys", "why"], rows, styles)
    for path in report["orphans"]:
        say(out, ("orphan: ", "yellow"), f"{path} has no proof script any more; delete it")
    for path in report["leftovers"]:
        say(out, ("leftover: ", "yellow"), f"{path} is from a write that never finished; `ldr run` removes it")
    _say_failed_tails(out, report)
    if out.is_terminal:
        _say_full_reasons(out, report)
    return 0


def _on_devices(devices: list[str] | None, device_class: str) -> bool:
    """Whether ``--device`` asked about records of ``device_class`` (without it, about all)."""
    return not devices or device_class in devices


def _unmeasured(report: dict, devices: list[str] | None) -> list[dict]:
    """Proofs with no record that are not allowed to go unmeasured (on the devices asked about)."""
    return [proof for proof in report["proofs"]
            if not proof["records"] and not proof["allowed_unmeasured"]
            and (not devices or set(devices) & set(proof["needs"] or []))]


def _print_findings(bad: list[tuple[str, dict]], unmeasured: list[dict], report: dict) -> None:
    for name, rec in bad:
        why = "; ".join(rec["reasons"]) or rec["state"]
        print(f"{name} ({rec['device_class']}): {rec['state']}: {why}")
    for proof in unmeasured:
        print(f"{proof['name']}: unmeasured: {unmeasured_reason(proof['needs'] or [])}; fix: run it on "
              "such a machine and commit the record, or set \"allow_unmeasured\": True in its PROOF")
    for path in report["orphans"]:
        print(f"{path}: orphan: its proof script is gone; delete the record")
    for path in report["leftovers"]:
        print(f"{path}: leftover temporary file of a write that never finished; `ldr run` removes it")


def _absent_device(device: str, report: dict, library: Library) -> str:
    """Why ``--device DEVICE`` has nothing to vouch for, and the fix."""
    users = [p["name"] for p in report["proofs"] if p["accelerator"] != "none"]
    which = (f"{len(users)} proof(s) could be measured there: {', '.join(users)}" if device in ACCELERATORS
             and users else "no proof is measured on it" if device in ACCELERATORS else "")
    return (f"ldr check: no {device} record in {shown(library.store.dir, library.root)}/"
            f"{' (' + which + ')' if which else ''}; nothing to check on {device}. Fix: run "
            f"`ldr run` on a machine with {device} and commit (or `ldr merge`) its records, "
            f"or leave out --device {device}")


def cmd_check(args, library: Library) -> int:
    report = status_report(library, None)
    records = _each_record(report)
    bad = [(proof["name"], rec) for proof, rec in records
           if rec["state"] not in ("fresh", "foreign") and _on_devices(args.device, rec["device_class"])]
    unmeasured = _unmeasured(report, args.device)
    _print_findings(bad, unmeasured, report)
    total = sum(1 for _, rec in records if _on_devices(args.device, rec["device_class"]))
    absent = [device for device in args.device or []
              if not any(rec["device_class"] == device for _, rec in records)]
    for device in absent:  # asked to vouch for records that do not exist
        print(_absent_device(device, report, library))
    trouble = len(bad) + len(unmeasured) + len(report["orphans"]) + len(report["leftovers"]) + len(absent)
    if trouble:
        print(f"ldr check: {trouble} item(s) need attention; fix: `ldr run` (or `ldr run NAME --force`), "
              "fix reported data lines, delete orphans, and commit proofs/_results/")
        return 1
    allowed = sum(1 for p in report["proofs"] if not p["records"])
    note = f" ({allowed} proof(s) allowed unmeasured here)" if allowed else ""
    devices = f" ({', '.join(args.device)})" if args.device else ""
    against = f"torch {report['pin']} and their scripts" if report["pin"] else "their scripts"
    print(f"ldr check: {total} record(s){devices} fresh against {against}{note}")
    return 0
