"""A claim that does not hold says what changed, and only what is known: torch (an older
version's record held it), the values between runs of the same torch (noise: an earlier run, the
committed run or the repeated runs' medians held it), or nothing known. Never "under torch X" as a
cause when torch did not change (issue 21, item 2c)."""

from __future__ import annotations

import json
import subprocess
import textwrap

from build_hooks.proofs.pin import pinned_torch
from build_hooks.run.library import Library
from build_hooks.store import noisestore
from build_hooks.store.record import Record

from .hardkit import REPO, fake_torch, ldr, mkdocs
from .recordkit import record

PIN = pinned_torch(REPO)
CLAIM = "# T\n\nFew.\n\n```claim\nproof: noisy\ncheck: V.x < 10\nsay: It stays under ten.\n```\n"
NOISY = """
    import json, os
    import torch  # noqa: F401  (a proof of torch's: its records are per torch version)
    here = os.path.dirname(os.path.abspath(__file__))
    print("V=" + json.dumps({"x": float(open(os.path.join(here, "value.txt")).read())}))
"""


def noisy(project, value: float, options: str = "") -> None:
    (project.root / "proofs" / "value.txt").write_text(str(value))
    if not (project.root / "proofs" / "noisy.py").exists():
        project.proof("noisy", options + textwrap.dedent(NOISY))


def render(md) -> tuple[str, str]:
    md.state.begin_build()
    md.state.diagnostics.clear()
    html = md(CLAIM)
    warnings = [d.message for d in md.state.diagnostics if d.level == "warning"]
    return html, "\n".join(warnings)


def test_a_claim_broken_by_a_noisy_rerun_of_the_same_torch_says_noise_not_torch(project, md):
    noisy(project, 5.0, 'PROOF = {"tolerance": {"V.x": 0.2}}\n')
    html, warnings = render(md)
    assert 'data-holds="true"' in html and not warnings
    noisy(project, 12.0)  # the same script and torch: the value moved between runs
    Library(project.root).run(["noisy"], force=True)
    html, warnings = render(md)
    assert 'data-holds="false"' in html
    assert "no longer holds under torch" not in html and "under torch" not in warnings.split("(proof noisy")[1]
    assert ("This claim does not hold on the run of" in html
            and "it held on an earlier run of the same torch, so the values moved between runs" in html)
    assert "torch did not change: it held on the run of" in warnings and "this process replaced" in warnings
    assert f"under the same torch {PIN}, so the values moved between runs (noise)" in warnings
    # the proof's noise declaration, and where to change it
    assert "the noise proofs/noisy.py declares (V.x: declared tolerance 20%)" in warnings
    assert '"tolerance"' in warnings and "ldr run noisy --repeat 5" in warnings


def test_a_claim_broken_under_a_new_torch_names_both_versions(project, md):
    noisy(project, 12.0)
    history = project.root / "proofs" / "_results" / "_history" / "2.13.0"
    record(project, "noisy", torch="2.13.0", data={"V": {"x": 5.0}}, folder=history)
    html, warnings = render(md)
    assert f"This claim no longer holds under torch {PIN} (cpu); it held under torch 2.13.0" in html
    assert "it held under torch 2.13.0 (measured 2026-11-01), so torch changed under it" in warnings
    assert "V.x: no tolerance declared" in warnings
    # It did not hold under the older torch either: no upgrade broke it.
    record(project, "noisy", torch="2.13.0", data={"V": {"x": 11.0}}, folder=history)
    html, warnings = render(md)
    assert "no longer" not in html and "nor under torch 2.13.0" in html
    assert "it did not hold under torch 2.13.0 either, so no torch upgrade broke it" in warnings


def test_the_medians_of_repeated_runs_tell_noise_from_a_false_claim(project, md):
    noisy(project, 12.0)
    library = Library(project.root)
    library.run(["noisy"])
    current = library.store.read("noisy", "cpu")
    assert isinstance(current, Record)
    html, warnings = render(md)  # nothing earlier: said as it is
    assert "no earlier run is recorded to compare with" in warnings and "noise)" not in warnings
    runs = [Record(**{**current.__dict__, "data": {"V": {"x": x}}}) for x in (6.0, 7.0, 12.0)]
    noisestore.write(library.store, current, runs)
    html, warnings = render(md)
    assert "it held on an earlier run of the same torch" in html
    assert "it held on the medians of 3 repeated runs" in warnings and "(noise)" in warnings
    assert "V.x: no tolerance declared, measured noise" in warnings and "over 3 runs" in warnings


def test_a_build_after_a_noisy_ldr_run_names_the_committed_run(project, tmp_path):
    """The author's flow in real processes: the committed record held the claim; `ldr run
    --force` under the same torch moved the value; the build says noise, not torch."""
    env = fake_torch(tmp_path / "fake")
    noisy(project, 5.0)
    project.page("index.md", CLAIM)
    assert ldr(project.root, env, "run").returncode == 0
    git = lambda *args: subprocess.run(["git", *args], cwd=project.root, check=True,  # noqa: E731
                                       capture_output=True)
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first", "--allow-empty")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "records")
    noisy(project, 12.0)
    assert ldr(project.root, env, "run", "noisy", "--force").returncode == 0
    assert json.loads(project.record("noisy").read_text())["data"] == {"V": {"x": 12.0}}
    build = mkdocs(project.root, env)
    assert build.returncode == 0, build.stderr
    assert "committed at git HEAD under the same torch" in build.stderr and "(noise)" in build.stderr
    html = (project.root / "site" / "index.html").read_text()
    assert "so the values moved between runs" in html and "no longer holds" not in html
