"""What the workflows do, read from their YAML (tests/core/test_merge.py lints them with actionlint
and the GitHub schema): the accelerator job is opt-in and the merge runs on what came back, so a
repository without a GPU runner still gets its pull request; a push that moves the pin (wherever
it is set) re-measures; configure-pages may read the Pages settings; and every job that builds
the series or runs its proofs installs the series' torch (the tool itself brings none)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from build_hooks.proofs.pin import FILES

WORKFLOWS = Path(__file__).resolve().parents[1] / ".github" / "workflows"
RESULTS = ("success", "failure", "cancelled", "skipped")


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(doc: dict) -> dict:
    return doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true


def runs_on(job: dict) -> list[str]:
    labels = job.get("runs-on", [])
    return [labels] if isinstance(labels, str) else list(labels)


def evaluate(expression: str, results: dict[str, str], variables: dict[str, str], cancelled: bool = False) -> bool:
    """A job's ``if:``, as GitHub would decide it for these needed jobs' results, repository
    variables and run state (the operators and functions the workflows use; anything else fails)."""
    text = expression.strip()
    if text.startswith("${{"):
        text = text[3:]
        text = text[: text.rindex("}}")]
    text = re.sub(r"needs\.([\w-]+)\.result", lambda m: repr(results[m.group(1)]), text)
    text = re.sub(r"vars\.(\w+)", lambda m: repr(variables.get(m.group(1), "")), text)
    text = text.replace("!cancelled()", repr(not cancelled)).replace("always()", "True")
    text = text.replace("cancelled()", repr(cancelled)).replace("success()", repr(not cancelled and all(
        r == "success" for r in results.values())))
    text = text.replace("!=", " NE ").replace("==", " EQ ").replace("&&", " and ").replace("||", " or ")
    text = text.replace("!", " not ").replace(" NE ", " != ").replace(" EQ ", " == ")
    assert re.fullmatch(r"[\s\w'()!=]*", text), f"cannot evaluate {expression!r}"
    return bool(eval(text, {"__builtins__": {}}, {}))  # noqa: S307  (our own workflow text, checked above)


def runs(job: dict, results: dict[str, str], variables: dict[str, str], cancelled: bool = False) -> bool:
    """Whether GitHub starts ``job``: with no ``if:``, only when every needed job succeeded."""
    needs = job.get("needs", [])
    needs = [needs] if isinstance(needs, str) else needs
    if "if" not in job:
        return not cancelled and all(results[n] == "success" for n in needs)
    expression = str(job["if"])
    status = any(f in expression for f in ("always()", "cancelled()", "failure()", "success()"))
    if not status and (cancelled or any(results[n] != "success" for n in needs)):
        return False  # without a status function, a job runs only after its needs succeeded
    return evaluate(expression, results, variables, cancelled)


def test_the_accelerator_job_is_opt_in():
    """A job for a self-hosted runner waits in the queue while no such runner exists; it runs
    only where the repository says it has one."""
    jobs = load("proofs.yml")["jobs"]
    hosted = {name: job for name, job in jobs.items() if "self-hosted" in runs_on(job)}
    assert hosted, "the proofs workflow has no accelerator job"
    assert not any("matrix" in str(job.get("runs-on")) for job in jobs.values())
    for name, job in hosted.items():
        assert not runs(job, {}, {}), f"{name} runs without the repository's say-so"
        assert runs(job, {}, {"LDR_GPU_RUNNER": "true"}), name
        assert not runs(job, {}, {"LDR_GPU_RUNNER": "false"}), name
    for name, job in jobs.items():
        if name not in hosted and not job.get("needs"):
            assert runs(job, {}, {}), f"{name} must run on every repository"


@pytest.mark.parametrize("gpu", ["skipped", "failure", "success"])
@pytest.mark.parametrize("cpu", ["success", "failure"])
def test_the_merge_runs_on_what_came_back(cpu, gpu):
    jobs = load("proofs.yml")["jobs"]
    (gpu_job,) = [n for n, j in jobs.items() if "self-hosted" in runs_on(j)]
    (merge,) = [n for n, j in jobs.items() if "create-pull-request" in str(j.get("steps"))]
    needs = jobs[merge]["needs"]
    assert gpu_job in needs
    results = {name: ("success" if name != gpu_job else "skipped") for name in needs}
    results.update({n: cpu for n in needs if n != gpu_job})
    results[gpu_job] = gpu
    assert runs(jobs[merge], results, {}), f"merge does not run after {results}"
    assert not runs(jobs[merge], results, {}, cancelled=True), "merge runs after a cancel"


def test_the_merge_does_not_run_when_nothing_measured():
    jobs = load("proofs.yml")["jobs"]
    (merge,) = [n for n, j in jobs.items() if "create-pull-request" in str(j.get("steps"))]
    needs = jobs[merge]["needs"]
    assert not runs(jobs[merge], {n: "skipped" for n in needs}, {})
    assert not runs(jobs[merge], {n: "cancelled" for n in needs}, {})


def test_a_push_that_moves_the_pin_remeasures():
    """The pin is read from mkdocs.yml (the plugin's torch option), pyproject.toml or
    requirements.txt: a push that changes any of them, or a proof, starts the workflow."""
    paths = triggers(load("proofs.yml"))["push"]["paths"]
    for name in ("mkdocs.yml", *FILES):
        assert name in paths, f"a pin set in {name} does not trigger a re-measure: {paths}"
    assert "proofs/*.py" in paths


def test_configure_pages_may_read_the_pages_settings():
    doc = load("pages.yml")
    for name, job in doc["jobs"].items():
        if "configure-pages" in str(job.get("steps")):
            permissions = job.get("permissions", doc.get("permissions", {}))
            assert permissions.get("pages") in ("read", "write"), f"{name}: {permissions}"
            assert permissions.get("contents") in ("read", "write"), f"{name}: {permissions}"


@pytest.mark.parametrize("name", sorted(p.name for p in WORKFLOWS.glob("*.yml")))
def test_every_job_that_builds_or_runs_proofs_installs_the_series_torch(name):
    """torch is the series extra's (pyproject.toml), not a dependency of the tool: a job that
    runs `ldr` or `mkdocs build` on this series installs `.[series]`."""
    for job_name, job in load(name)["jobs"].items():
        commands = "\n".join(str(step.get("run", "")) for step in job.get("steps", []))
        if not re.search(r"\bldr\b|mkdocs build", commands):
            continue
        installs = [line for line in commands.splitlines() if "pip install" in line]
        assert installs, f"{name} {job_name}: runs the tool without installing it"
        for line in installs:
            assert re.search(r"-e '\.\[series\]'", line), f"{name} {job_name}: {line.strip()}"
