"""Trust in the store: a strict build that passes means every record behind the pages is true.

Each fault is made with real files and checked through real `ldr` and `mkdocs build` runs:
the message names the file and the fix, the last good output is kept, the store stays
standard JSON, and the fault is reported on every build until it is fixed.
"""

import json
import os
import re
import time
from pathlib import Path as _Path

import pytest

from build_hooks.core.errors import StoreError
from build_hooks.proofs.discovery import discover
from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.run.library import Library
from build_hooks.store.record import Failure, Record
from build_hooks.store.store import Corrupt, Store

PIN = _pinned(_Path(__file__).resolve().parents[2])


GOOD = 'import json\nprint("answer: 42")\nprint("DATA=" + json.dumps({"answer": 42}))\n'
PAGE = "# P\n\nThe answer is {{ p.DATA.answer }}.\n\n```proof\np\n```\n"
NO_RUN = "site_name: Test\ntheme:\n  name: material\n  font: false\nplugins:\n  - ldr:\n      run: false\n"


def strict_json(path):
    """The file parses as standard JSON (no NaN or Infinity)."""
    def refuse(name):
        raise AssertionError(f"{path} holds {name}, which is not standard JSON")
    return json.loads(path.read_text(), parse_constant=refuse)


def shown(html: str) -> str:
    """The inline value the page quotes (quiet text, its provenance in its title)."""
    match = re.search(r'The answer is <span class="ldr-value"[^>]*>([^<]*)</span>', html)
    assert match, "the page does not quote the value"
    return match.group(1)


def make(**kw):
    base = dict(proof="p", device_class="cpu", script_sha256="a" * 64, torch=PIN,
                torch_build=f"{PIN}+cpu", python="3.11.7", os="Linux-x", machine="x86_64",
                device="CPU", measured_at="2026-01-01T00:00:00Z", wall_s=0.5, status="ok",
                returncode=0, signal=None, stdout=["X=1"], stderr=[], data={"X": 1})
    base.update(kw)
    return Record(**base)


@pytest.fixture
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # rich tables in `ldr status` must not wrap the text


# -- 1. every field is type-checked; the store is standard JSON ----------------------------------

FAILURE = {"status": "failed", "returncode": 1, "signal": None, "torch": PIN,
           "script_sha256": "b" * 64, "measured_at": "2026-01-02T00:00:00Z", "wall_s": 0.1,
           "message": "exited with status 1"}


@pytest.mark.parametrize("key, value, reason", [
    ("wall_s", "slow", "field wall_s must be a number, not 'slow'"),
    ("stdout", [1, 2], "field stdout must be a list of strings, not [1, 2]"),
    ("returncode", "0", "field returncode must be an integer or null, not '0'"),
    ("data", [], "field data must be an object, not []"),
    ("torch", 2.13, "field torch must be a string, not 2.13"),
    ("problems", "bad", "field problems must be a list of strings, not 'bad'"),
    ("failure", {"status": 3}, "field failure lacks"),
    ("failure", dict(FAILURE, status=3), "field failure.status must be a string, not 3"),
    ("failure", dict(FAILURE, stderr_tail=[None]), "field failure.stderr_tail must be a list of strings"),
    ("failure", "boom", "field failure must be null or an object, not 'boom'"),
])
def test_a_wrong_typed_field_makes_the_record_corrupt_naming_the_field(tmp_path, key, value, reason):
    store = Store(tmp_path)
    body = json.loads(make().to_text())
    body[key] = value
    store.dir.mkdir()
    store.path("p", "cpu").write_text(json.dumps(body))
    item = store.read("p", "cpu")
    assert isinstance(item, Corrupt) and reason in item.reason
    assert item.describe(tmp_path) == f"_results/p.cpu.json: {item.reason}; fix: `ldr run p --force` rewrites it"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_number_in_a_record_file_is_corrupt(tmp_path, constant):
    store = Store(tmp_path)
    text = make(data={"X": 1.5}).to_text().replace("1.5", constant)
    store.dir.mkdir()
    store.path("p", "cpu").write_text(text)
    item = store.read("p", "cpu")
    assert isinstance(item, Corrupt) and f"non-finite number {constant}" in item.reason


def test_a_record_with_non_finite_data_is_refused_naming_proof_and_key(tmp_path):
    store = Store(tmp_path)
    path = store.write(make())
    before = path.read_text()
    with pytest.raises(StoreError, match=r"proof p \(cpu\): data\.SWEEP\.1\.us is not a finite number"):
        store.write(make(data={"SWEEP": [{"us": 1.0}, {"us": float("nan")}]}))
    assert path.read_text() == before and sorted(p.name for p in store.dir.iterdir()) == ["p.cpu.json"]


def test_old_records_without_the_new_fields_read_and_rewrite_byte_for_byte(tmp_path):
    old = make(failure=Failure(**FAILURE))
    text = old.to_text()
    assert '"problems"' not in text and '"helpers"' not in text
    record = Record.from_text(text)
    assert record.problems == [] and record.helpers == {} and record.failure.helpers == {}
    assert record.to_text() == text


def test_a_wrong_typed_record_is_corrupt_in_status_check_and_a_strict_build(project, wide):
    project.proof("p", GOOD)
    project.page("index.md", PAGE)
    assert project.ldr("run").returncode == 0
    path = project.record("p")
    body = json.loads(path.read_text())
    body["wall_s"] = "slow"
    path.write_text(json.dumps(body, indent=2))
    message = "proofs/_results/p.cpu.json: field wall_s must be a number, not 'slow'"

    status = project.ldr("status")
    assert status.returncode == 0 and message in status.stdout and "`ldr run p --force` rewrites it" in status.stdout
    record = json.loads(project.ldr("status", "--json").stdout)["proofs"][0]["records"][0]
    assert record["state"] == "corrupt" and message in record["reasons"][0]
    check = project.ldr("check")
    assert check.returncode == 1 and message in check.stdout

    config = project.root / "mkdocs.yml"
    running = config.read_text()
    config.write_text(NO_RUN)  # only read the records: nothing rewrites it
    for _ in range(2):
        build = project.build()
        assert build.returncode == 1 and f"corrupt record {message}" in build.stderr
    assert json.loads(path.read_text())["wall_s"] == "slow", "a build that does not run must not touch it"

    config.write_text(running)  # a build that runs proofs re-measures it, and says so
    rerun = project.build()
    assert rerun.returncode == 1 and "p had a corrupt record, proofs/_results/p.cpu.json" in rerun.stderr
    assert strict_json(path)["wall_s"] != "slow"
    again = project.build()
    assert again.returncode == 0, again.stderr
    assert shown(project.html()) == "42"


def test_non_finite_data_never_reaches_the_store(project):
    project.proof("p", 'print("RATIO=NaN")\nprint("OTHER=1")\n')
    run = project.ldr("run")
    assert "RATIO" in run.stdout
    path = project.record("p")
    if path.exists():
        assert "RATIO" not in strict_json(path)["data"]
    assert project.ldr("check").returncode == 1


# -- 2. data-line problems persist until fixed ---------------------------------------------------

def test_bad_data_lines_fail_every_strict_build_and_check_until_fixed(project, wide):
    project.proof("p", GOOD + 'print("BAD={bad")\nprint("TWICE=1")\nprint("TWICE=2")\n')
    project.page("index.md", PAGE)
    first = project.build()
    assert first.returncode == 1 and "running 1 proof(s): p" in first.stderr
    for text in ("proof p (cpu): output line 3: BAD= is not valid JSON", "TWICE printed twice"):
        assert text in first.stderr
    second = project.build()
    assert "running" not in second.stderr, "the record is fresh: nothing reruns"
    assert second.returncode == 1 and "BAD= is not valid JSON" in second.stderr
    assert project.build(strict=False).returncode == 0
    assert shown(project.html()) == "42", "the good data is still shown"

    record = strict_json(project.record("p"))
    assert any("BAD=" in p for p in record["problems"]) and record["data"]["TWICE"] == 2
    entry = json.loads(project.ldr("status", "--json").stdout)["proofs"][0]
    assert entry["state"] == "problem" and entry["records"][0]["problems"] == record["problems"]
    assert "problem" in project.ldr("status").stdout and "BAD=" in project.ldr("status").stdout
    check = project.ldr("check")
    assert check.returncode == 1 and "p (cpu): problem: output line 3: BAD=" in check.stdout
    run = project.ldr("run")
    assert "Nothing to run" not in run.stdout and "printed bad data lines" in run.stderr

    project.proof("p", GOOD)
    fixed = project.build()
    assert fixed.returncode == 0, fixed.stderr
    assert "problems" not in strict_json(project.record("p"))
    assert project.ldr("check").returncode == 0


def test_a_proof_stopped_by_its_output_cap_is_recorded_as_a_failure(project):
    project.proof("p", 'PROOF = {"output_cap": 1024}\nprint("x" * 5000)\n')
    run = project.ldr("run")
    assert run.returncode == 1 and "output cap" in run.stdout
    record = strict_json(project.record("p"))
    assert record["status"] == "output-limit" and record["data"] == {}
    check = project.ldr("check")
    assert check.returncode == 1 and "p (cpu): failed" in check.stdout


# -- 3. every proof is visible, on every machine -------------------------------------------------

def test_a_require_proof_on_a_cpu_machine_is_visible_checked_and_explained(project, monkeypatch, wide):
    monkeypatch.setenv("LDR_ACCELERATOR", "none")
    project.proof("gpu", 'PROOF = {"accelerator": "require"}\n' + GOOD)
    project.proof("plain", GOOD)
    assert project.ldr("run", "plain").returncode == 0

    entry = {p["name"]: p for p in json.loads(project.ldr("status", "--json").stdout)["proofs"]}["gpu"]
    assert entry["state"] == "unmeasured" and entry["needs"] == ["cuda", "mps"] and entry["records"] == []
    assert entry["allowed_unmeasured"] is False
    assert "needs cuda or mps; never measured" in project.ldr("status").stdout
    check = project.ldr("check")
    assert check.returncode == 1 and "gpu: unmeasured: needs cuda or mps" in check.stdout
    assert '"allow_unmeasured": True' in check.stdout
    assert project.ldr("check", "--device", "cpu").returncode == 0

    run = project.ldr("run", "gpu")
    assert run.returncode == 1 and "Nothing to run" not in run.stdout
    assert "gpu needs cuda or mps; this machine has neither: run it on one and merge the record" in run.stderr
    assert "Nothing to run" not in project.ldr("run").stdout

    project.proof("gpu", 'PROOF = {"accelerator": "require", "allow_unmeasured": True}\n' + GOOD)
    allowed = project.ldr("check")
    assert allowed.returncode == 0 and "1 proof(s) allowed unmeasured here" in allowed.stdout

    project.proof("gpu", 'PROOF = {"accelerator": "require"}\n' + GOOD)
    library = Library(project.root)
    proof = library.proofs["gpu"]
    Store(project.root / "proofs").write(make(proof="gpu", device_class="cuda", script_sha256=proof.sha256,
                                              device="NVIDIA H200", data={"DATA": {"answer": 42}}))
    entry = {p["name"]: p for p in json.loads(project.ldr("status", "--json").stdout)["proofs"]}["gpu"]
    assert entry["state"] == "fresh" and [r["device_class"] for r in entry["records"]] == ["cuda"]
    assert project.ldr("check").returncode == 0


def test_a_proof_made_to_require_an_accelerator_keeps_no_trap(project, monkeypatch, wide):
    """Issue 21.1: a CPU record made before the proof said ``accelerator: require`` is called
    unneeded (not stale), no page shows it, `ldr forget` removes it; the build's note on the
    missing accelerator record names the line and the fix, and allow_unmeasured quiets it."""
    monkeypatch.setenv("LDR_ACCELERATOR", "none")
    project.proof("gpu", GOOD)
    assert project.ldr("run", "gpu").returncode == 0
    project.proof("gpu", 'PROOF = {"accelerator": "require"}\n' + GOOD)
    project.page("index.md", "# GPU\n\n```proof\ngpu\n```\n")
    check = project.ldr("check")
    assert check.returncode == 1
    assert ("gpu (cpu): unneeded: the proof requires an accelerator (cuda or mps), so this CPU record "
            "is from before; no page shows it; fix: `ldr forget gpu --device cpu` removes it") in check.stdout
    strict = project.build()
    assert strict.returncode == 1
    assert ("docs/index.md:3: proof gpu is not yet measured on an accelerator; fix: run `ldr run gpu` on a "
            "machine with cuda or mps") in strict.stderr
    assert project.build(strict=False).returncode == 0 and "ldr-proof__output" not in project.html()
    forgot = project.ldr("forget", "gpu", "--device", "cpu")
    assert forgot.returncode == 0 and "removed proofs/_results/gpu.cpu.json" in forgot.stdout
    assert not project.record("gpu").exists()
    assert project.ldr("forget", "gpu", "--device", "cpu").returncode == 1  # nothing left to remove
    assert project.ldr("forget", "nope", "--device", "cpu").returncode == 2
    project.proof("gpu", 'PROOF = {"accelerator": "require", "allow_unmeasured": True}\n' + GOOD)
    assert project.ldr("check").returncode == 0
    allowed = project.build()
    assert allowed.returncode == 0, allowed.stderr


def test_a_failed_record_is_never_called_fresh(project, wide):
    project.proof("p", 'print("working")\nraise SystemExit(3)\n')
    assert project.ldr("run").returncode == 1
    again = project.ldr("run")
    assert "Nothing to run" not in again.stdout
    assert "p (cpu): failed on its last run (exited with status 3); rerun with `ldr run p --force`" \
        in again.stderr
    named = project.ldr("run", "p")
    assert "failed on its last run" in named.stderr and "fresh" not in named.stdout + named.stderr
    assert project.ldr("run", "p", "--force").returncode == 1


# -- 4. local helpers ----------------------------------------------------------------------------

HELPER_PROOF = 'import json\nfrom _common import value\nprint("DATA=" + json.dumps({"answer": value()}))\n'


def helper(project, value: int) -> None:
    (project.root / "proofs" / "_common.py").write_text(f"from _deep import base\n\ndef value():\n"
                                                        f"    return base() + {value}\n")
    (project.root / "proofs" / "_deep.py").write_text("def base():\n    return 40\n")


def test_a_helper_change_makes_the_proof_stale_and_the_page_shows_the_new_value(project, wide):
    helper(project, 2)
    project.proof("p", HELPER_PROOF)
    project.page("index.md", PAGE)
    first = project.build()
    assert first.returncode == 0, first.stderr
    assert shown(project.html()) == "42"
    html = project.html()
    assert 'needs <a class="ldr-proof__helper" href="proofs/_common.py" download>' in html  # no torch
    assert 'href="proofs/_deep.py"' in html
    site = project.root / "site" / "proofs"
    assert (site / "_common.py").read_text() == (project.root / "proofs" / "_common.py").read_text()
    assert (site / "_deep.py").is_file() and not (project.root / "site" / "proofs" / "_results").exists()
    record = strict_json(project.record("p"))
    assert sorted(record["helpers"]) == ["_common.py", "_deep.py"]

    time.sleep(0.01)
    helper(project, 3)
    status = project.ldr("status")
    assert "helper _common.py changed since it was recorded" in status.stdout
    entry = json.loads(project.ldr("status", "--json").stdout)["proofs"][0]
    assert entry["state"] == "stale" and sorted(entry["helpers"]) == ["_common.py", "_deep.py"]
    second = project.build()
    assert second.returncode == 0 and "running 1 proof(s): p" in second.stderr, second.stderr
    assert shown(project.html()) == "43"
    assert project.ldr("check").returncode == 0


def test_helper_hashes_are_read_again_when_a_helper_changes(project):
    helper(project, 2)
    project.proof("p", HELPER_PROOF)
    before = discover(project.root / "proofs")["p"]
    path = project.root / "proofs" / "_deep.py"
    stamp = path.stat().st_mtime_ns
    path.write_text("def base():\n    return 41\n")
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
    after = discover(project.root / "proofs")["p"]
    assert before.sha256 == after.sha256 and before.helper_hashes["_deep.py"] != after.helper_hashes["_deep.py"]
    assert discover(project.root / "proofs")["p"] is after, "unchanged files are not parsed again"


def test_a_missing_helper_is_an_error_naming_proof_line_and_fix(project):
    project.proof("p", 'import json\nfrom _nope import thing  # a helper\nimport _thread\n')
    project.page("index.md", PAGE)
    status = project.ldr("status")
    assert status.returncode == 2
    assert "proofs/p.py:5: `from _nope import thing  # a helper` imports the local helper _nope" in status.stderr
    assert "fix: add proofs/_nope.py beside the proof" in status.stderr
    build = project.build()
    assert build.returncode == 1 and "imports the local helper _nope" in build.stderr
    assert "Traceback" not in build.stderr


def test_the_card_of_a_proof_without_helpers_needs_nothing_but_python(project):
    project.proof("p", GOOD)  # plain Python (a proof that imports torch needs nothing but torch)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    assert "needs nothing but Python" in project.html()
    assert not (project.root / "site" / "proofs" / "_common.py").exists()


# -- 5. file mode and leftover temporary files ---------------------------------------------------

def test_records_get_the_usual_file_mode(project):
    project.proof("p", GOOD)
    old = os.umask(0o022)
    try:
        assert project.ldr("run").returncode == 0
    finally:
        os.umask(old)
    assert project.record("p").stat().st_mode & 0o777 == 0o644


def test_a_leftover_temporary_file_is_reported_by_check_and_cleaned_by_run(project):
    project.proof("p", GOOD)
    assert project.ldr("run").returncode == 0
    folder = project.root / "proofs" / "_results"
    stale = folder / ".p.cpu.json.k1ll3d.tmp"
    stale.write_text('{"format": 1, "pro')
    old = time.time() - 60
    os.utime(stale, (old, old))
    young = folder / ".p.cpu.json.wr1t1ng.tmp"
    young.write_text("{")
    assert Store(project.root / "proofs").known() == {("p", "cpu")}

    check = project.ldr("check")
    assert check.returncode == 1 and "proofs/_results/.p.cpu.json.k1ll3d.tmp: leftover" in check.stdout
    assert "wr1t1ng" not in check.stdout + check.stderr, "a young file may belong to a write in progress"
    status = json.loads(project.ldr("status", "--json").stdout)
    assert status["leftovers"] == ["proofs/_results/.p.cpu.json.k1ll3d.tmp"]
    run = project.ldr("run")
    assert run.returncode == 0 and "removed proofs/_results/.p.cpu.json.k1ll3d.tmp" in run.stderr
    assert not stale.exists() and young.exists()
    os.utime(young, (old, old))
    project.page("index.md", PAGE)
    build = project.build()
    assert build.returncode == 0 and "removed proofs/_results/.p.cpu.json.wr1t1ng.tmp" in build.stderr
    assert not young.exists()
    assert project.ldr("check").returncode == 0
    assert strict_json(project.record("p"))["data"] == {"DATA": {"answer": 42}}


# -- 6. the status JSON gains fields only --------------------------------------------------------

def test_status_json_keeps_every_documented_field_and_adds_the_new_ones(project):
    project.proof("p", GOOD)
    assert project.ldr("run").returncode == 0
    report = json.loads(project.ldr("status", "--json").stdout)
    assert {"format", "pin", "root", "host", "proofs", "orphans", "leftovers"} <= set(report)
    proof = report["proofs"][0]
    assert {"name", "path", "title", "accelerator", "parallel", "timeout", "state", "records",
            "helpers", "allowed_unmeasured", "needs"} <= set(proof)
    assert proof["helpers"] == {} and proof["needs"] is None
    assert {"device_class", "state", "reasons", "path", "torch", "device", "python", "measured_at",
            "wall_s", "status", "data_keys", "failure", "problems"} <= set(proof["records"][0])
