"""Hard edges of the store: what a record, a shard, a history, noise or marker file says is
parsed into a strict type before anything uses it, and never becomes a path.

Each fault is made with real files (FIFOs, symlinks, sparse giants) and checked through the
real `ldr` and `mkdocs build`: a one-line error naming the file and the field, no traceback,
no hang, nothing written outside the project, nothing recorded lost.
"""

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from build_hooks.core.safefs import UnsafeFile
from build_hooks.proofs.pin import pinned_torch
from build_hooks.store import history, noisestore
from build_hooks.store.record import Failure, Record
from build_hooks.store.store import Corrupt, Store

from .recordkit import SCRIPT, record, snapshot

PIN = pinned_torch(Path(__file__).resolve().parents[2])
HELPER = "def toll():\n    return 1.0\n"
USES_HELPER = 'import json\nfrom _common import toll\nprint("TOLL=" + json.dumps({"small_us": toll()}))\n'
PAGE = "# P\n\nThe toll is {{ a.TOLL.small_us }} µs.\n\n```proof\na\n```\n"
NO_RUN = "site_name: Test\ntheme:\n  name: material\n  font: false\nplugins:\n  - ldr:\n      run: false\n"


def results(project) -> Path:
    return project.root / "proofs" / "_results"


def edit(path: Path, **fields) -> Path:
    body = json.loads(path.read_text())
    body.update(fields)
    path.write_text(json.dumps(body, indent=2))
    return path


def no_traceback(*outs) -> None:
    for out in outs:
        assert "Traceback" not in out.stdout + out.stderr, out.stdout + out.stderr


# -- 1. data never becomes a path ------------------------------------------------------------------

def files(root: Path) -> dict[str, bytes]:
    """:func:`snapshot` without the build's own caches."""
    return {k: v for k, v in snapshot(root).items() if not k.startswith(".cache/")}


@pytest.mark.parametrize("torch", ["../../../../x", "../../../docs/evil", "nightly", "2.14.1/../../../../../y"])
def test_a_shard_torch_that_is_no_version_is_refused_and_nothing_is_written(project, tmp_path_factory, torch):
    project.proof("a", SCRIPT)
    project.proof("b", SCRIPT)
    record(project, "b")  # the store has no record of a: the shard's would win
    shard = tmp_path_factory.mktemp("deep") / "a" / "b" / "c" / "shard"
    path = edit(record(project, "a", measured_at="2026-11-09T00:00:00Z", folder=shard), torch=torch)
    # the noise file the old code copied from <shard>/_noise/<torch>/ to <store>/_noise/<torch>/
    planted = shard / "_noise" / torch / "a.cpu.json"
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text("<script>alert(1)</script>")
    target = Path(os.path.normpath(results(project) / "_noise" / torch / "a.cpu.json"))
    before, around = files(project.root), snapshot(shard.parents[3])
    out = project.ldr("merge", str(shard))
    no_traceback(out)
    assert out.returncode == 1
    assert (f"corrupt, skipped: {path}: field torch must be a PEP 440 version such as 2.14.1, "
            f"not {torch!r}") in out.stdout
    assert files(project.root) == before and snapshot(shard.parents[3]) == around
    assert not target.exists(), target


def test_a_nightly_record_is_corrupt_everywhere_and_run_force_repairs_it(project, tmp_path):
    project.proof("a", SCRIPT)
    project.page("index.md", PAGE)
    edit(record(project, "a"), torch="nightly")
    message = ("proofs/_results/a.cpu.json: field torch must be a PEP 440 version such as 2.14.1, "
               "not 'nightly'")
    status, check = project.ldr("status", "--json"), project.ldr("check")
    no_traceback(status, check)
    entry = json.loads(status.stdout)["proofs"][0]["records"][0]
    assert entry["state"] == "corrupt" and message in entry["reasons"][0]
    assert check.returncode == 1 and message in check.stdout
    assert "fix: `ldr run a --force` rewrites it" in check.stdout

    shard = tmp_path / "shard"
    edit(record(project, "a", folder=shard), torch="nightly")
    merge = project.ldr("merge", str(shard))
    no_traceback(merge)
    assert merge.returncode == 1 and "field torch must be a PEP 440 version" in merge.stdout

    (project.root / "mkdocs.yml").write_text(NO_RUN)
    build = project.build()
    no_traceback(build)
    assert build.returncode == 1 and f"corrupt record {message}" in build.stderr

    run = project.ldr("run", "a", "--force")
    no_traceback(run)
    assert run.returncode == 0, run.stderr
    assert json.loads(project.record("a").read_text())["torch"] == PIN
    assert project.ldr("check").returncode == 0
    assert not (results(project) / "_history").exists()  # a corrupt record has nothing to keep


def test_history_noise_and_marker_folders_come_from_the_parsed_version(project, tmp_path):
    store = Store(project.root / "proofs")
    for bad in ("../x", "nightly", "2.14.1/..", " 2.14.1"):
        with pytest.raises(ValueError, match="not a PEP 440 version"):
            history.version_store(store, bad)
        with pytest.raises(ValueError, match="not a PEP 440 version"):
            noisestore.folder(store, bad)
    assert history.version_store(store, "2.13.0+cpu").dir == results(project) / "_history" / "2.13.0"
    assert history.version_key("2.10.0") > history.version_key("2.9.0") > history.version_key("2.9.0rc1")

    # A version folder that is a symlink leading out of the store is never read nor written.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (results(project) / "_history").mkdir(parents=True)
    (results(project) / "_history" / "2.12.0").symlink_to(elsewhere, target_is_directory=True)
    (results(project) / "_noise").mkdir()
    (results(project) / "_noise" / PIN).symlink_to(elsewhere, target_is_directory=True)
    project.proof("a", SCRIPT)
    record(project, "a", torch="2.12.0", folder=elsewhere)
    assert history.versions(store) == []
    assert noisestore.read(store, PIN, "a", "cpu") == {}
    with pytest.raises(UnsafeFile, match="leads outside"):
        history.version_store(store, "2.12.0")


def test_a_foreign_marker_is_parsed_not_compared_as_text(project, tmp_path):
    project.proof("a", 'PROOF = {"accelerator": "prefer"}\n' + SCRIPT)
    record(project, "a", device="cuda", torch="2.11.0", folder=tmp_path / "gpu")
    assert project.ldr("merge", str(tmp_path / "gpu")).returncode == 0
    marker = results(project) / "_foreign" / "a.cuda.json"
    status = json.loads(project.ldr("status", "--json").stdout)["proofs"][0]["records"]
    assert [r["state"] for r in status if r["device_class"] == "cuda"] == ["foreign"]
    for torch, at in (("../2.11.0", "2026-11-01T00:00:00Z"), ("2.11.0", "zzzz"), ("2.11.0", 7)):
        edit(marker, torch=torch, measured_at=at)
        out = project.ldr("status", "--json")
        no_traceback(out)
        cuda = [r for r in json.loads(out.stdout)["proofs"][0]["records"] if r["device_class"] == "cuda"]
        assert cuda[0]["state"] == "stale", (torch, at)
    marker.write_text("[" * 60_000)  # nested past the parser's depth
    out = project.ldr("status", "--json")
    no_traceback(out)
    records = json.loads(out.stdout)["proofs"][0]["records"]
    assert [r["state"] for r in records if r["device_class"] == "cuda"] == ["stale"]
    os.unlink(marker)
    os.mkfifo(marker)  # a FIFO marker is refused, never waited on
    out = project.ldr("status", "--json")
    no_traceback(out)
    records = json.loads(out.stdout)["proofs"][0]["records"]
    assert [r["state"] for r in records if r["device_class"] == "cuda"] == ["stale"]
    # and a merge replaces it (never writes into it, which would wait for a reader)
    record(project, "a", device="cuda", torch="2.11.0", measured_at="2026-11-09T00:00:00Z", folder=tmp_path / "gpu2")
    merged = project.ldr("merge", str(tmp_path / "gpu2"))
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert json.loads(marker.read_text())["measured_at"] == "2026-11-09T00:00:00Z"
    status = json.loads(project.ldr("status", "--json").stdout)["proofs"][0]["records"]
    assert [r["state"] for r in status if r["device_class"] == "cuda"] == ["foreign"]


# -- 2. merge keeps what it should -------------------------------------------------------------------

def test_a_shard_made_with_other_helpers_is_refused_naming_the_helper(project, tmp_path):
    (project.root / "proofs" / "_common.py").write_text(HELPER)
    project.proof("a", USES_HELPER)
    run = project.ldr("run")
    assert run.returncode == 0, run.stderr
    before = snapshot(results(project))
    fresh = json.loads(project.record("a").read_text())
    shard = tmp_path / "shard"
    shard.mkdir()
    newer = dict(fresh, measured_at="2099-01-01T00:00:00Z", helpers={"_common.py": "0" * 64})
    (shard / "a.cpu.json").write_text(json.dumps(newer, indent=2))
    out = project.ldr("merge", str(shard))
    no_traceback(out)
    assert out.returncode == 1
    assert ("proof a was recorded with another version of its helpers: "
            "proofs/_common.py (sha256 000000000000 there") in out.stdout
    assert "0 record(s) brought home, 1 refused" in out.stdout
    assert snapshot(results(project)) == before  # the fresh record is kept, not lost

    (shard / "a.cpu.json").write_text(json.dumps(dict(newer, helpers={}), indent=2))
    out = project.ldr("merge", str(shard))
    assert out.returncode == 1 and "proofs/_common.py (imported today, not there)" in out.stdout
    assert snapshot(results(project)) == before


def test_times_compare_as_times_not_text(project, tmp_path):
    project.proof("a", SCRIPT)
    record(project, "a", measured_at="2026-11-05T10:00:00Z", data={"X": 1})
    shard = tmp_path / "shard"
    # Half a second later: as text ".5Z" sorts before "Z", as a time it is newer.
    record(project, "a", measured_at="2026-11-05T10:00:00.500000Z", data={"X": 2}, folder=shard)
    out = project.ldr("merge", str(shard))
    assert out.returncode == 0, out.stdout
    assert json.loads(project.record("a").read_text())["data"] == {"X": 2}
    kept = results(project) / "_history" / PIN / "_replaced" / "a.cpu.20261105T100000Z.json"
    assert json.loads(kept.read_text())["data"] == {"X": 1}  # the replaced run is kept

    edit(record(project, "a", data={"X": 3}, folder=shard), measured_at="zzzz")
    out = project.ldr("merge", str(shard))
    assert out.returncode == 1
    assert "field measured_at must be an ISO 8601 UTC time such as 2026-12-01T09:48:41Z, not 'zzzz'" in out.stdout
    assert json.loads(project.record("a").read_text())["data"] == {"X": 2}


def test_special_and_oversized_shard_files_are_refused_by_name_and_never_hang(project, tmp_path):
    for name in ("a", "b", "c", "d", "e"):
        project.proof(name, SCRIPT)
    record(project, "e")
    shard, outside = tmp_path / "shard", tmp_path / "outside"
    os.mkfifo(shard.mkdir() or shard / "a.cpu.json")
    (shard / "b.cpu.json").symlink_to("/dev/zero")
    (shard / "c.cpu.json").symlink_to(record(project, "c", folder=outside))  # a good record, elsewhere
    with open(shard / "d.cpu.json", "wb") as handle:
        handle.truncate(9 * 1024 * 1024)  # sparse: over the 8 MiB record limit
    record(project, "e", measured_at="2026-11-09T00:00:00Z", folder=shard)
    noise_fifo = shard / "_noise" / PIN / "e.cpu.json"
    noise_fifo.parent.mkdir(parents=True)
    os.mkfifo(noise_fifo)
    out = project.ldr("merge", str(shard))  # the fixture's subprocess timeout would fail a hang
    no_traceback(out)
    assert out.returncode == 1
    assert f"{shard / 'a.cpu.json'}: a FIFO (named pipe); it was not read" in out.stdout
    assert f"{shard / 'b.cpu.json'}: a symlink that leads outside {shard}" in out.stdout
    assert f"{shard / 'c.cpu.json'}: a symlink that leads outside {shard}" in out.stdout
    assert f"{shard / 'd.cpu.json'}: 9,437,184 bytes, over the limit of 8,388,608" in out.stdout
    assert f"{noise_fifo}: a FIFO (named pipe); the noise file was not brought home" in out.stdout
    assert "merged: e.cpu" in out.stdout  # the good record still comes home
    assert sorted(p.name for p in results(project).glob("*.json")) == ["e.cpu.json"]


def test_a_fifo_or_giant_in_the_store_is_corrupt_and_run_force_replaces_it(project):
    project.proof("a", SCRIPT)
    project.proof("b", SCRIPT)
    results(project).mkdir(parents=True)
    os.mkfifo(project.record("a"))
    with open(project.record("b"), "wb") as handle:
        handle.truncate(9 * 1024 * 1024)
    check = project.ldr("check")
    no_traceback(check)
    assert check.returncode == 1
    assert "proofs/_results/a.cpu.json: a FIFO (named pipe); fix: `ldr run a --force` rewrites it" in check.stdout
    assert "proofs/_results/b.cpu.json: 9,437,184 bytes, over the limit of 8,388,608" in check.stdout
    run = project.ldr("run", "--force")
    assert run.returncode == 0, run.stderr
    assert project.record("a").is_file() and project.record("b").stat().st_size < 10_000
    assert project.ldr("check").returncode == 0


# -- 3. bounds with clear errors ----------------------------------------------------------------------

def test_a_visible_line_over_the_bound_is_cut_and_a_problem_a_data_line_is_whole(project, tmp_path):
    project.proof("a", SCRIPT)
    store = Store(tmp_path)
    good = Record.from_text(record(project, "a", folder=tmp_path / "x").read_text())
    big = ["x" * 50] * 400
    long_data = "BIG=" + json.dumps(big)  # 21,000 characters, hidden from pages
    store.write(replace(good, stdout=["fine", long_data], data={"BIG": big}))
    kept = store.read("a", "cpu")
    assert kept.stdout == ["fine", long_data] and kept.problems == []

    store.write(replace(good, stdout=["fine", "y" * 20_001], stderr=["e" * 30_000]))
    kept = store.read("a", "cpu")
    assert len(kept.stdout[1]) == 10_000 and kept.stdout[1].startswith("y" * 9_000)
    assert kept.stdout[1].endswith("y … [20,001 characters, cut to 10,000]")
    assert len(kept.stderr[0]) == 10_000
    assert kept.problems == [
        "output line 2 is 20,001 characters long, over the bound of 10,000: the record keeps its "
        "start; fix: print shorter lines (a long value as a NAME=<json> data line)",
        "stderr line 1 is 30,000 characters long, over the bound of 10,000: the record keeps its start; "
        "fix: print shorter lines (a long value as a NAME=<json> data line)"]

    failed = Failure("output-limit", None, 9, PIN, good.script_sha256, "2026-11-02T00:00:00Z", 1.0,
                     "printed more than its output cap", stderr_tail=["z" * 1_000_000])
    store.write(replace(good, failure=failed))
    assert len(store.read("a", "cpu").failure.stderr_tail[0]) == 10_000  # kept, cut: not lost
    assert store.read("a", "cpu").problems == []  # a failure is reported as one already

    text = store.path("a", "cpu").read_text()
    store.path("a", "cpu").write_text(text.replace('"a visible line"', json.dumps("z" * 10_001)))
    item = store.read("a", "cpu")  # a hand-made line over the bound: the store never writes one
    assert isinstance(item, Corrupt) and "field stdout line 1 is 10,001 characters long" in item.reason

    project.proof("wide", 'print("w" * 500_000)\nprint("after")\nprint("N=1")\n')
    project.page("index.md", "# W\n\n{{ wide.N }}\n\n```proof\nwide\n```\n")
    run = project.ldr("run", "wide")
    no_traceback(run)
    body = json.loads(project.record("wide").read_text())
    assert body["status"] == "ok" and body["stdout"][1:] == ["after", "N=1"] and body["data"] == {"N": 1}
    check = project.ldr("check")
    assert check.returncode == 1
    assert "wide (cpu): problem: output line 1 is 500,000 characters long, over the bound of 10,000" in check.stdout
    build = project.build(strict=False)
    assert build.returncode == 0, build.stderr
    assert project.root.joinpath("site", "index.html").stat().st_size < 200_000  # the page stays sane
    assert project.build().returncode == 1  # and a strict build fails until the proof is fixed


def test_format_width_and_precision_are_bounded_with_an_error_naming_the_page(project):
    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    project.page("index.md", "# P\n\nThe toll is {{ a.TOLL.small_us | 50000000.2f }} µs.\n")
    build = project.build()
    no_traceback(build)
    assert build.returncode == 1
    assert ("docs/index.md:3: format '50000000.2f' asks for a width of 50000000, over the bound of 50; "
            "fix: use a smaller width") in build.stderr
    site = project.root / "site"
    assert not site.exists() or max((p.stat().st_size for p in site.rglob("*.html")), default=0) < 2_000_000


def test_drift_with_a_version_that_is_no_version_is_one_line(project):
    project.proof("a", SCRIPT)
    record(project, "a")
    out = project.ldr("drift", "--from", "../../etc")
    no_traceback(out)
    assert out.returncode == 2
    assert "'../../etc' is not a torch version (PEP 440, such as 2.14.1)" in out.stderr


def test_a_run_under_a_torch_that_is_no_version_is_refused_on_write_not_recorded(project, tmp_path, fake_python):
    project.proof("a", SCRIPT)
    record(project, "a")
    before = snapshot(project.root / "proofs")
    shard = tmp_path / "shard"
    nightly = fake_python(body='__version__ = "nightly"\nclass cuda:\n    is_available = staticmethod(lambda: False)\n'
                               "class backends:\n    mps = None\n")
    run = project.ldr("run", "--force", "--shard", str(shard), "--any-torch", "--python", nightly)
    no_traceback(run)
    assert ("proof a (cpu): field torch must be a PEP 440 version such as 2.14.1, not 'nightly'; "
            "the record was not written") in run.stderr
    assert not (shard / "a.cpu.json").exists() and snapshot(project.root / "proofs") == before
