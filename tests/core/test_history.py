"""History: a record replaced under another torch version is kept, per version, as a record."""

import json
from dataclasses import replace
from pathlib import Path as _Path

from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.store import history
from build_hooks.store.record import Failure, Record
from build_hooks.store.store import Store

from .recordkit import SCRIPT, record

PIN = _pinned(_Path(__file__).resolve().parents[2])



def test_a_rerun_under_a_new_torch_keeps_the_old_record_in_history(project):
    project.proof("toll", SCRIPT)
    old = record(project, "toll", torch="2.12.0", data={"TOLL": {"small_us": 9.0}})
    old_text = old.read_text()
    run = project.ldr("run")
    assert run.returncode == 0, run.stderr
    kept = project.root / "proofs" / "_results" / "_history" / "2.12.0" / "toll.cpu.json"
    assert kept.read_text() == old_text  # byte for byte: history diffs like a record
    body = json.loads(kept.read_text())  # standard JSON, key-ordered like every record
    assert body["torch"] == "2.12.0" and body["data"] == {"TOLL": {"small_us": 9.0}}
    assert Record.from_text(kept.read_text()).torch == "2.12.0"
    current = json.loads(project.record("toll").read_text())
    assert current["torch"] == PIN and current["data"] == {"TOLL": {"small_us": 1.0}}

    # A rerun under the same version replaces only the current record.
    again = project.ldr("run", "--force")
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in kept.parent.parent.iterdir()) == ["2.12.0"]
    assert kept.read_text() == old_text

    # `ldr check` and `ldr status` see the current record only.
    check = project.ldr("check")
    assert check.returncode == 0, check.stderr
    assert "1 record(s) fresh" in check.stdout
    status = json.loads(project.ldr("status", "--json").stdout)
    assert [r["path"] for p in status["proofs"] for r in p["records"]] == ["proofs/_results/toll.cpu.json"]
    assert status["orphans"] == []
    assert history.versions(Store(project.root / "proofs")) == ["2.12.0"]


def test_same_version_failed_or_never_good_records_do_not_reach_history(project):
    project.proof("toll", SCRIPT)
    store = Store(project.root / "proofs")
    record(project, "toll", torch=PIN)
    first = store.read("toll", "cpu")
    assert history.keep(store, replace(first, wall_s=0.7)) is None  # same version
    failure = Failure("failed", 1, None, "99.0.0", first.script_sha256, "2026-12-01T00:00:00Z", 0.1, "x")
    assert history.keep(store, replace(first, failure=failure)) is None  # keeps the pinned version
    broken = replace(first, status="failed", data={})
    store.write(broken)
    assert history.keep(store, replace(first, torch="99.0.0")) is None  # nothing good to keep
    assert history.versions(store) == []

    store.write(first)
    path = history.keep(store, replace(first, torch="99.0.0"))
    assert path == project.root / "proofs" / "_results" / "_history" / PIN / "toll.cpu.json"
    assert history.versions(store) == [PIN]


def test_versions_sort_as_numbers_and_records_at_prefers_current(project):
    project.proof("toll", SCRIPT)
    store = Store(project.root / "proofs")
    results = project.root / "proofs" / "_results"
    for version in ("2.9.0", "2.10.0", PIN):
        record(project, "toll", torch=version, folder=results / "_history" / version,
               data={"TOLL": {"small_us": float(version.split(".")[1])}})
    record(project, "toll", torch=PIN, data={"TOLL": {"small_us": 99.0}})
    assert history.versions(store) == ["2.9.0", "2.10.0", PIN]
    assert history.all_versions(store) == ["2.9.0", "2.10.0", PIN]
    assert history.records_at(store, PIN)[("toll", "cpu")].data == {"TOLL": {"small_us": 99.0}}
    assert history.records_at(store, "2.10.0")[("toll", "cpu")].data == {"TOLL": {"small_us": 10.0}}
    assert store.known() == {("toll", "cpu")}  # the store's own glob never sees history
