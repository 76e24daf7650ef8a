"""What a page shows when a proof fails, times out, is corrupt or needs an accelerator."""

import json
from pathlib import Path as _Path

import pytest

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.run.library import Library

PIN = _pinned(_Path(__file__).resolve().parents[2])


# Proofs of torch's, as the series' are: their cards and warnings name the torch they ran under.
GOOD = 'import torch\nprint("answer: 42")\nprint("DATA={\\"answer\\": 42}")\n'
CRASH = 'import torch\nprint("partial")\nraise RuntimeError("the kernel moved")\n'


def card(md, name):
    return md(f"```proof\n{name}\n```\n", page="chapter.md")


def test_failure_keeps_the_last_good_output_and_marks_it_stale(project, md):
    project.proof("flaky", GOOD)
    good = card(md, "flaky")
    assert "answer: 42" in good and "ldr-proof__notice" not in good
    before = json.loads(project.record("flaky").read_text())

    project.proof("flaky", CRASH)
    md.state.begin_build()
    html = card(md, "flaky")
    after = json.loads(project.record("flaky").read_text())
    for key in ("stdout", "data", "measured_at", "script_sha256", "status"):
        assert after[key] == before[key], f"{key} of the good run was lost"
    assert after["failure"]["status"] == "failed" and after["failure"]["returncode"] == 1
    assert after["failure"]["stderr_tail"][-1] == "RuntimeError: the kernel moved"
    assert "answer: 42" in html
    assert f"<strong>Stale: failed under torch {PIN} on {after['failure']['measured_at'][:10]}</strong>" in html
    assert "(it exited with status 1)" in html
    warning = next(d for d in md.state.diagnostics if d.level == "warning")
    assert warning.message.startswith(f"docs/chapter.md: proof flaky (cpu) failed under torch {PIN}")
    assert "exited with status 1" in warning.message and "RuntimeError: the kernel moved" in warning.message

    project.proof("flaky", GOOD + "# fixed\n")
    md.state.begin_build()
    assert "ldr-proof__notice" not in card(md, "flaky")
    assert json.loads(project.record("flaky").read_text())["failure"] is None


def test_a_proof_that_never_succeeded_shows_its_traceback(project, md):
    project.proof("broken", CRASH)
    html = card(md, "broken")
    assert f"<strong>This proof failed</strong> under torch {PIN}" in html
    assert '<pre class="ldr-proof__traceback"><code>' in html and "RuntimeError: the kernel moved" in html
    assert "ldr-proof__output" not in html
    warning = next(d for d in md.state.diagnostics if d.level == "warning")
    assert ("it exited with an error; fix: run `python proofs/broken.py` to see it fail; saving the fixed "
            "script reruns it (or `ldr run broken --force`); last lines:") in warning.message
    assert warning.message.rstrip().endswith("RuntimeError: the kernel moved")


def test_timeout_is_recorded_as_such(project, md):
    project.proof("spins", 'PROOF = {"timeout": 1}\nwhile True:\n    pass\n')  # 1 s of CPU time
    html = card(md, "spins")
    record = json.loads(project.record("spins").read_text())
    assert record["status"] == "timeout" and record["signal"] == 9
    assert "it timed out." in html


def test_script_error_escapes_html(project, md):
    project.proof("xss", 'raise ValueError("<script>alert(1)</script>")\n')
    html = card(md, "xss")
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_corrupt_record_is_reported_and_rerun(project, md):
    project.proof("fine", GOOD)
    library = Library(project.root)
    library.run()
    project.record("fine").write_text("{ half a rec")
    assert [p.name for p in library.plan()] == ["fine"]
    state = library.state(library.proofs["fine"], "cpu")
    assert state.state == "corrupt" and "proofs/_results/fine.cpu.json: JSONDecodeError" in state.reasons[0]
    with pytest.raises(DirectiveError, match="proof fine has no readable record: corrupt record "
                       "proofs/_results/fine.cpu.json: JSONDecodeError"):
        library.lookup("fine")
    library.run()
    assert json.loads(project.record("fine").read_text())["data"] == {"DATA": {"answer": 42}}


def test_prefer_accelerator_without_one_shows_the_cpu_result_and_a_panel(project, md, monkeypatch):
    monkeypatch.setenv("LDR_ACCELERATOR", "none")
    project.proof("clocks", 'PROOF = {"accelerator": "prefer"}\n' + GOOD)
    html = card(md, "clocks")
    assert ("<strong>Not yet measured on an accelerator.</strong> This proof is meant for a GPU (CUDA or MPS), "
            "and no run on one is recorded yet. The output below was measured on the CPU.</div>") in html
    assert "answer: 42" in html
    assert "ldr run" not in html and "commit" not in html  # the page is for readers; the build log tells the author
    assert [d.level for d in md.state.diagnostics if d.proof == "clocks"] == ["info"]


def test_require_accelerator_without_one_shows_the_panel_and_warns(project, md, monkeypatch):
    monkeypatch.setenv("LDR_ACCELERATOR", "none")
    project.proof("gpu_only", 'PROOF = {"accelerator": "require"}\n' + GOOD)
    html = card(md, "gpu_only")
    assert "no run on one is recorded yet. It does not run on a CPU, so there is nothing to show yet." in html
    assert "ldr run" not in html and "commit" not in html
    assert not project.record("gpu_only").exists()
    assert [d.level for d in md.state.diagnostics if d.proof == "gpu_only"] == ["warning"]


def test_recorded_accelerator_result_is_shown_with_its_provenance(project, md, monkeypatch):
    monkeypatch.setenv("LDR_ACCELERATOR", "none")
    project.proof("clocks", 'PROOF = {"accelerator": "prefer"}\n' + GOOD)
    card(md, "clocks")
    cuda = json.loads(project.record("clocks").read_text())
    cuda.update(device_class="cuda", device="NVIDIA H200", measured_at="2026-11-01T10:00:00Z",
                stdout=["answer on the GPU: 43", 'DATA={"answer": 43}'], data={"DATA": {"answer": 43}})
    project.record("clocks", "cuda").write_text(json.dumps(cuda, indent=2))
    md.state.begin_build()
    html = card(md, "clocks")
    assert 'data-device="cuda"' in html and "answer on the GPU: 43" in html
    assert (f'<p class="ldr-proof__provenance">Measured on NVIDIA H200: torch {PIN} · '
            '<span class="ldr-proof__device">NVIDIA H200') in html
    assert "<summary>Also measured on the CPU</summary>" in html and "Not yet measured" not in html
    assert ">43<" in md("{{ clocks.DATA.answer }}\n") and ">42<" in md("{{ clocks@cpu.DATA.answer }}\n")
