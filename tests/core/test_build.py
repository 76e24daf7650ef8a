"""End to end: real `mkdocs build --strict` runs on a project in tmp_path."""

import json
import shutil
import subprocess
import sys
from pathlib import Path
from pathlib import Path as _Path

import pytest

from build_hooks.proofs.pin import pinned_torch as _pinned

PIN = _pinned(_Path(__file__).resolve().parents[2])


PAGE = """\
# Costs

The fixed cost is {{ cost.DATA.us | .1f }} us.

```proof-output
proof: cost
grep: "per op"
```

## The card

```proof
cost
```
"""


def git(project, *args):
    return subprocess.run(["git", *args], cwd=project.root, capture_output=True, text=True, check=True).stdout


def setup_two(project):
    """Two proofs; cost imports torch (its record names the pinned torch), other is plain Python."""
    project.proof("cost", 'import torch\nimport json\n'
                  'print("0.5 us per op")\nprint("DATA=" + json.dumps({"us": 0.512}))\n')
    project.proof("other", 'print("other")\n')
    project.page("index.md", PAGE)
    (project.root / ".gitignore").write_text("site/\n.cache/\n")


def test_strict_build_then_a_warm_build_that_runs_nothing(project):
    setup_two(project)
    first = project.build()
    assert first.returncode == 0, first.stderr
    assert "running 2 proof(s): cost, other" in first.stderr
    html = project.html()
    assert 'id="proof-cost"' in html and ">0.5<" in html and "0.5 us per op" in html
    assert (project.root / "site" / "proofs" / "cost.py").read_bytes() == \
        (project.root / "proofs" / "cost.py").read_bytes()
    assert 'href="proofs/cost.py" download' in html
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "first")
    second = project.build()
    assert second.returncode == 0, second.stderr
    assert "running" not in second.stderr
    assert git(project, "status", "--porcelain") == ""


def test_editing_one_proof_reruns_that_proof_alone(project):
    setup_two(project)
    assert project.build().returncode == 0
    other_before = project.record("other").read_text()
    project.proof("cost", 'import torch\nimport json\n'
                  'print("0.7 us per op")\nprint("DATA=" + json.dumps({"us": 0.7}))\n')
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert "running 1 proof(s): cost" in result.stderr
    assert project.record("other").read_text() == other_before
    assert ">0.7<" in project.html() and "0.7 us per op" in project.html()


def test_failing_proof_warns_and_fails_strict_but_keeps_the_good_output(project):
    setup_two(project)
    assert project.build().returncode == 0
    project.proof("cost", 'import torch\nprint("starting")\nraise KeyError("dispatch key")\n')
    strict = project.build()
    assert strict.returncode == 1
    assert f"docs/index.md: proof cost (cpu) failed under torch {PIN}" in strict.stderr
    assert "exited with status 1" in strict.stderr and "KeyError: 'dispatch key'" in strict.stderr
    relaxed = project.build(strict=False)
    assert relaxed.returncode == 0
    html = project.html()
    assert "0.5 us per op" in html and f"Stale: failed under torch {PIN}" in html
    record = json.loads(project.record("cost").read_text())
    assert record["data"] == {"DATA": {"us": 0.512}} and record["failure"]["returncode"] == 1


def test_unknown_key_is_a_build_error_naming_page_and_line(project):
    setup_two(project)
    project.page("index.md", PAGE.replace("DATA.us", "DATA.usec"))
    result = project.build(strict=False)
    assert result.returncode == 1
    assert "docs/index.md:3: proof cost has no data key 'DATA.usec'" in result.stderr


def test_line_numbers_count_front_matter(project):
    setup_two(project)
    project.page("index.md", "---\ntitle: Costs\n---\n\n" + PAGE.replace("{{ cost.DATA.us", "{{ nope.DATA.us"))
    result = project.build(strict=False)
    assert "docs/index.md:7: unknown proof 'nope'" in result.stderr


def test_cards_on_other_pages_are_linked(project):
    setup_two(project)
    project.page("notes.md", "# Notes\n\nSee {{ cost.DATA.us | .2f }} us.\n")
    assert project.build().returncode == 0
    assert 'data-card="./#proof-cost"' in project.html("notes")  # the home page's card, from the root
    assert 'data-card="#proof-cost"' in project.html()  # this page's own


def test_torch_mismatch_stops_the_build_with_the_fix(project, fake_python):
    setup_two(project)
    wrapper = fake_python("2.11.0")
    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - ldr\n", f"  - ldr:\n      python: {wrapper}\n"))
    result = project.build()
    assert result.returncode == 1
    assert f"proofs must run under torch {PIN}" in result.stderr and "has torch 2.11.0" in result.stderr


def test_cli_status_check_and_run(project):
    setup_two(project)
    check = project.ldr("check")
    assert check.returncode == 1 and "cost (cpu): missing: no record" in check.stdout
    run = project.ldr("run", "cost")
    assert run.returncode == 0 and "ok     cost" in run.stdout
    status = json.loads(project.ldr("status", "--json").stdout)
    assert status["format"] == 1 and status["pin"] == PIN
    by_name = {p["name"]: p for p in status["proofs"]}
    assert by_name["cost"]["state"] == "fresh" and by_name["other"]["state"] == "missing"
    record = by_name["cost"]["records"][0]
    assert record["device_class"] == "cpu" and record["data_keys"] == ["DATA"]
    assert record["path"] == "proofs/_results/cost.cpu.json"
    assert project.ldr("run").returncode == 0
    assert project.ldr("check").returncode == 0
    again = project.ldr("run")
    assert "Nothing to run" in again.stdout
    bad = project.ldr("run", "nope")
    assert bad.returncode == 2 and "unknown proof nope" in bad.stderr
    project.proof("cost", 'import torch\nraise SystemExit(5)\n')
    failed = project.ldr("run")
    assert failed.returncode == 1 and "exited with status 5" in failed.stdout
    cost = next(p for p in json.loads(project.ldr("status", "--json").stdout)["proofs"] if p["name"] == "cost")
    assert cost["state"] == "failed" and cost["records"][0]["failure"]["message"] == "exited with status 5"
    assert project.ldr("check").returncode == 1
    project.ldr("run")
    (project.root / "proofs" / "other.py").unlink()
    orphan = project.ldr("check")
    assert orphan.returncode == 1 and "proofs/_results/other.cpu.json: orphan" in orphan.stdout
    assert json.loads(project.ldr("status", "--json").stdout)["orphans"] == ["proofs/_results/other.cpu.json"]


def test_diff_names_moved_values_and_the_lines_that_quote_them(project):
    setup_two(project)
    git(project, "init", "-q")
    assert project.ldr("run").returncode == 0
    git(project, "add", "-A")
    git(project, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "measured")
    assert "Nothing moved since HEAD" in project.ldr("diff").stdout
    project.proof("cost", 'import torch\nimport json\n'
                  'print("0.6 us per op")\nprint("DATA=" + json.dumps({"us": 0.64}))\n')
    assert project.ldr("run").returncode == 0
    text = project.ldr("diff").stdout
    assert f"cost (cpu, torch {PIN}): 1 value(s) moved, 1 output line(s) changed" in text
    assert "  DATA.us: 0.512 -> 0.64 (+25.0%)  quoted at docs/index.md:3" in text
    assert "  output excerpted at docs/index.md:5: re-read that claim" in text
    moved = json.loads(project.ldr("diff", "--json").stdout)
    assert moved[0]["changes"] == [{"key": "DATA.us", "old": 0.512, "new": 0.64, "relative": pytest.approx(0.25),
                                    "quoted_at": ["docs/index.md:3"]}]


def test_two_concurrent_runs_measure_a_proof_once(project, tmp_path):
    log = tmp_path / "ran.log"
    project.proof("slow", f'import time\nopen({str(log)!r}, "a").write("ran\\n")\ntime.sleep(1.5)\nprint("done")\n')
    procs = [subprocess.Popen([sys.executable, "-m", "build_hooks.hosts.cli.main", "run"], cwd=project.root,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    assert log.read_text() == "ran\n", "the store lock should make the second run find a fresh record"
    assert json.loads(project.record("slow").read_text())["stdout"] == ["done"]


def test_a_second_robot_on_a_page_fails_a_strict_build(project):
    repo = Path(__file__).resolve().parents[2]
    (project.root / "data").mkdir(parents=True)
    shutil.copy(repo / "data" / "floors.yml", project.root / "data" / "floors.yml")
    mkdocs_yml = project.root / "mkdocs.yml"
    widgets = "  - ldr:\n      widgets: [build_hooks.series]\n"
    mkdocs_yml.write_text(mkdocs_yml.read_text().replace("  - ldr\n", widgets))
    robot = '```robot\nsays: "Hello."\n```\n\n'
    project.page("index.md", "# One robot\n\n" + robot)
    assert project.build().returncode == 0
    project.page("index.md", "# Two robots\n\n" + robot + robot)
    result = project.build()
    assert result.returncode == 1 and "index.md" in result.stderr and "robot" in result.stderr


def test_widgets_join_only_the_sites_that_name_them(project):
    """The series' fences are not every site's: without the widgets option a ```robot block is
    code, as on any site; with it, the robot; a module that cannot be imported is an error
    naming the option and the module."""
    project.page("index.md", '# Robot\n\n```robot\nsays: "Hello."\n```\n')
    plain = project.build()
    assert plain.returncode == 0, plain.stderr
    html = (project.root / "site" / "index.html").read_text()
    assert 'class="ldr-robot' not in html and '<code>says: "Hello."' in html
    mkdocs_yml = project.root / "mkdocs.yml"
    base = mkdocs_yml.read_text()
    mkdocs_yml.write_text(base.replace("  - ldr\n", "  - ldr:\n      widgets: [build_hooks.series]\n"))
    assert project.build().returncode == 0
    assert 'class="ldr-robot' in (project.root / "site" / "index.html").read_text()
    mkdocs_yml.write_text(base.replace("  - ldr\n", "  - ldr:\n      widgets: [no_such_widgets]\n"))
    broken = project.build()
    assert broken.returncode == 1
    assert "widgets: cannot import no_such_widgets" in broken.stderr and "fix:" in broken.stderr


def test_one_strict_build_names_every_pages_directive_errors(project):
    """Issue 21.5: four problems on three pages are four lines of one failed build, not four builds."""
    project.page("index.md", "# A\n\n```proof\nnope\n```\n\n```proof\nnada\n```\n")
    project.page("b.md", "# B\n\n```proof\nzilch\n```\n")
    project.page("c.md", "# C\n\n```figure\nsrc: missing.excalidraw\n```\n")
    result = project.build()
    assert result.returncode == 1
    for where in ("docs/index.md:3: unknown proof 'nope'", "docs/index.md:7: unknown proof 'nada'",
                  "docs/b.md:3: unknown proof 'zilch'", "docs/c.md:3: figure: drawings/missing.excalidraw"):
        assert where in result.stderr, where
    assert "4 directive error(s) on 3 page(s)" in result.stderr
