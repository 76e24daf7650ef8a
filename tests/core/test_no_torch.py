"""A site without torch needs none (issue 21.7): its proofs are plain Python, it pins no torch,
and its interpreter cannot import torch (a shim first on PYTHONPATH whose ``torch`` raises
ImportError, for the build and every proof it runs). It builds strictly, runs and records its
proofs, and says what they need: "needs nothing but Python", no torch version anywhere. In a
site that pins torch, only the proofs that import it (discovery's one rule) carry the pin."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from build_hooks.proofs.discovery import discover
from build_hooks.run.runner import Runner
from build_hooks.store.record import Record

MKDOCS_YML = """\
site_name: Plain
theme:
  name: material
  font: false
plugins:
  - ldr
"""

COUNT = '''"""Counting letters.

Counts the letters of one word, in plain Python.
"""
import json

from _words import WORD

print(f"{WORD} has {len(WORD)} letters")
print("COUNT=" + json.dumps({"letters": len(WORD)}))
'''

PAGE = """# Home

The word has {{ count.COUNT.letters }} letters.

```proof
count
```

```proof-output
proof: count
grep: letters
```

```proofs-index
```
"""


def no_torch(tmp_path: Path) -> dict[str, str]:
    """An environment in which ``import torch`` fails, as where torch is not installed."""
    shim = tmp_path / "no-torch"
    (shim / "torch").mkdir(parents=True)
    (shim / "torch" / "__init__.py").write_text("raise ImportError('No module named torch (test shim)')\n")
    path = os.pathsep.join(p for p in (str(shim), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, NO_MKDOCS_2_WARNING="1")
    env.pop("LDR_PYTHON", None)
    return env


def plain_site(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "proofs").mkdir()
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "docs" / "index.md").write_text(PAGE)
    (root / "proofs" / "count.py").write_text(COUNT)
    (root / "proofs" / "_words.py").write_text('WORD = "tensor"\n')
    return root


def build(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=root,
                          capture_output=True, text=True, env=env, timeout=300)


def test_a_site_without_torch_builds_runs_and_records_its_proofs(tmp_path):
    env = no_torch(tmp_path)
    check = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True)
    assert check.returncode != 0 and "test shim" in check.stderr  # the shim holds
    root = plain_site(tmp_path / "site")
    result = build(root, env)
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads((root / "proofs" / "_results" / "count.cpu.json").read_text())
    assert "torch" not in record and "torch_build" not in record, record  # no version made up
    assert record["status"] == "ok" and record["data"] == {"COUNT": {"letters": 6}}
    html = (root / "site" / "index.html").read_text()
    assert "tensor has 6 letters" in html and ">6<" in html
    card = html[html.index('id="proof-count"'):]
    assert "needs <a" in card and "_words.py</code></a> beside it" in card and "needs torch" not in card
    provenance = re.search(r'<p class="ldr-proof__provenance">(.*?)</p>', card).group(1)
    assert "torch" not in provenance and f"Python {record['python']}" in provenance
    excerpt = re.search(r"<figcaption>(.*?)</figcaption>", html).group(1)
    assert "torch" not in excerpt and f"Python {record['python']}" in excerpt
    index = html[html.index('class="ldr-index"'):]
    assert "pinned to torch" not in index and "needs nothing but Python" in index
    assert "fresh</span> cpu · Python · " in index
    notebook = json.loads((root / "site" / "proofs" / "count.ipynb").read_text())
    note = "".join(notebook["cells"][1]["source"])
    assert "It needs `_words.py` beside it." in note and "torch" not in note
    page = (root / "site" / "proofs" / "count.py.html").read_text()
    assert "needs <a" in page and "needs torch" not in page
    # ldr in the same environment: fresh, nothing to run, no pin asked for
    status = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "check"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=120)
    assert status.returncode == 0, status.stdout + status.stderr
    assert "fresh against their scripts" in status.stdout
    report = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "status", "--json"], cwd=root,
                            env=env, capture_output=True, text=True, timeout=120)
    body = json.loads(report.stdout)
    assert body["pin"] is None and body["proofs"][0]["records"][0]["torch"] is None


def test_a_proof_that_imports_torch_still_needs_the_pin(tmp_path):
    """The no-pin error stays for the proofs it concerns (find_pin names where it looked)."""
    root = plain_site(tmp_path / "site")
    (root / "proofs" / "uses_torch.py").write_text('"""Uses torch."""\n\ndef f():\n    from torch import nn\n')
    result = build(root, no_torch(tmp_path))
    assert result.returncode != 0
    assert "no torch pin found" in result.stderr and "the `torch` option: not set" in result.stderr


def test_discovery_tells_which_proofs_need_torch(tmp_path):
    """The one rule: the proof or a helper it imports imports torch (or a package of torch's)."""
    proofs = tmp_path / "proofs"
    proofs.mkdir()
    (proofs / "plain.py").write_text("import json\nprint(json.dumps(1))\n")
    (proofs / "direct.py").write_text("import torch.nn.functional as F\n")
    (proofs / "late.py").write_text("def f():\n    from torchvision import io\n")
    (proofs / "helped.py").write_text("from _tools import timer\n")
    (proofs / "_tools.py").write_text("from _deeper import x\ntimer = 1\n")
    (proofs / "_deeper.py").write_text("try:\n    import torch\nexcept ImportError:\n    torch = None\nx = 1\n")
    (proofs / "named.py").write_text("torch = 'a word'\nimport torchy\n")
    found = discover(proofs)
    assert {name: p.torch for name, p in found.items()} == {
        "plain": False, "direct": True, "late": True, "helped": True, "named": False}
    (proofs / "_deeper.py").write_text("x = 1\n")  # the helper changed: asked again
    assert discover(proofs)["helped"].torch is False


def test_the_host_for_plain_proofs_starts_where_torch_cannot_be_imported(fake_python, tmp_path):
    python = fake_python(body="raise ImportError('no torch here')\n")
    script = tmp_path / "plain.py"
    script.write_text("import sys\nprint('ran', 'torch' in sys.modules)\n")
    runner = Runner(python, None, torch=False)
    try:
        hello = runner.start()
        assert "torch" not in hello and "error" not in hello
        assert runner.probe()["torch"] is None
        from build_hooks.run.results import Job

        (result,) = runner.run([Job("plain", script, timeout=30, cap=1 << 16)])
    finally:
        runner.close()
    assert (result.status, result.stdout) == ("ok", "ran False\n")


def test_in_a_pinned_site_only_torch_proofs_carry_the_pin(project):
    """With torch installed and pinned: the plain proof's record names no torch and stays fresh
    when the pin moves; the torch proof's record carries it and goes stale."""
    project.proof("plain", "print('A=' + '1')\n")
    project.proof("uses", "import torch\nprint('B=' + str(int(torch.ones(2).sum())))\n")
    project.page("index.md", "# Home\n\n```proof\nplain\n```\n\n```proof\nuses\n```\n")
    result = project.build()
    assert result.returncode == 0, result.stderr[-3000:]
    plain = json.loads(project.record("plain").read_text())
    uses = json.loads(project.record("uses").read_text())
    assert "torch" not in plain and uses["torch"] and uses["torch_build"].startswith(uses["torch"])
    html = project.html()
    assert "needs nothing but Python" in html and "needs nothing but torch" in html
    pyproject = project.root / "pyproject.toml"
    pyproject.write_text(re.sub(r'"torch==[^"]+"', '"torch==2.99.1"', pyproject.read_text()))
    status = json.loads(project.ldr("status", "--json").stdout)
    states = {p["name"]: p["state"] for p in status["proofs"]}
    assert states == {"plain": "fresh", "uses": "stale"}, states


def test_an_older_record_of_a_plain_proof_reads_and_shows_no_torch(project):
    """Records made before (every proof's carried a torch version) read as they are; a plain
    proof's card does not claim that torch."""
    project.proof("plain", "print('A=' + '1')\n")
    project.page("index.md", "# Home\n\n```proof\nplain\n```\n")
    assert project.build().returncode == 0
    path = project.record("plain")
    body = json.loads(path.read_text())
    old = {**body, "torch": "2.11.0", "torch_build": "2.11.0+cpu"}
    path.write_text(json.dumps(old, indent=2) + "\n")
    assert Record.from_text(path.read_text()).torch == "2.11.0"
    result = project.build()
    assert result.returncode == 0, result.stderr[-3000:]
    card = project.html()
    assert "2.11.0" not in card and "needs nothing but Python" in card
    assert json.loads(path.read_text())["torch"] == "2.11.0"  # fresh: not rerun, not rewritten


@pytest.mark.parametrize("value", ["", "nightly"])
def test_a_torch_field_that_is_there_must_be_a_version(value):
    body = {"format": 1, "proof": "a", "device_class": "cpu", "script_sha256": "0" * 64, "torch": value,
            "python": "3.11", "os": "Linux", "machine": "x86_64", "device": "cpu",
            "measured_at": "2026-01-01T00:00:00Z", "wall_s": 0.1, "status": "ok", "returncode": 0,
            "signal": None, "stdout": [], "stderr": [], "data": {}}
    with pytest.raises(ValueError, match="field torch must be"):
        Record.from_text(json.dumps(body))
    del body["torch"]
    assert Record.from_text(json.dumps(body)).torch == ""


def test_notebook_of_a_plain_script_says_python():
    from build_hooks.site.notebook import notebook_text

    text = notebook_text("plain", textwrap.dedent('"""Plain."""\nprint(1)\n'))
    assert "It needs nothing but Python." in text
    assert "It needs nothing but torch." in notebook_text("t", '"""T."""\nimport torch\n')
