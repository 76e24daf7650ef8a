"""The record a run leaves: a good run's output and data, or a failure that keeps the last
good result (the library writes it, run/library.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from build_hooks.proofs.datalines import parse_output
from build_hooks.proofs.discovery import Proof
from build_hooks.proofs.pin import public_version
from build_hooks.run.results import RunResult, last_lines
from build_hooks.store.record import Failure, Record
from build_hooks.store.store import Store


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def run_record(store: Store, proof: Proof, device_class: str, result: RunResult, probe: dict) -> Record:
    """The record to write for a run; a failure keeps the last good result."""
    stdout = result.stdout.splitlines()
    stderr = result.stderr.splitlines()
    device = probe["cpu"] if device_class == "cpu" else probe.get("accelerator_name") or device_class
    now = utc_now()
    build = (probe.get("torch") or "") if proof.torch else ""  # no version for a proof without torch
    torch = public_version(build)
    if result.ok:
        # Data-line problems stay in the record, so every build reports them until fixed.
        parsed = parse_output(stdout)
        return Record(
            proof=proof.name, device_class=device_class, script_sha256=proof.sha256,
            torch=torch, torch_build=build,
            python=probe["python"], os=probe["os"], machine=probe["machine"], device=device,
            measured_at=now, wall_s=round(result.wall_s, 3), status="ok", returncode=0,
            signal=None, stdout=stdout, stderr=stderr, data=parsed.data,
            problems=list(parsed.problems), helpers=proof.helper_hashes,
        )
    failure = Failure(
        status=result.status, returncode=result.returncode, signal=result.signal,
        torch=torch, script_sha256=proof.sha256, measured_at=now,
        wall_s=round(result.wall_s, 3), message=result.describe(), stderr_tail=last_lines(stdout, stderr),
        helpers=proof.helper_hashes,
    )
    previous = store.read(proof.name, device_class)
    if isinstance(previous, Record) and previous.ok:
        return replace(previous, failure=failure)
    return Record(
        proof=proof.name, device_class=device_class, script_sha256=proof.sha256,
        torch=torch, torch_build=build, python=probe["python"],
        os=probe["os"], machine=probe["machine"], device=device, measured_at=now,
        wall_s=failure.wall_s, status=result.status, returncode=result.returncode,
        signal=result.signal, stdout=stdout, stderr=stderr, data={}, helpers=proof.helper_hashes,
    )
