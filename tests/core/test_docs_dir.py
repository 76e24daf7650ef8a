"""A site whose pages are not in docs/ and whose proofs are not in proofs/ builds whole: every
directive that reads pages (corrections, the proofs index, exercises, the drift report, quotes'
pages) follows MkDocs' ``docs_dir`` and the plugin's folder options."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.core.conftest import PIN_LINE

PAGE = """\
# Costs

```corrections
- torch: 2.99.0
  note: "Checked."
```

The toll is {{ toll.TOLL.us | .1f }} us.

```claim
proof: toll
check: TOLL.us > 0.1
```

```exercises
toll: "Predict the toll."
```

```proof
toll
```
"""

INDEX = """\
# Index

```proofs-index
```
"""


def test_pages_in_content_and_proofs_in_lab_build_strict(tmp_path):
    root = tmp_path
    (root / "content").mkdir()
    (root / "lab").mkdir()
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "t"\nversion = "0"\ndependencies = [\n    {PIN_LINE}\n]\n')
    (root / "mkdocs.yml").write_text(
        "site_name: Test\ndocs_dir: content\ntheme:\n  name: material\n  font: false\n"
        "plugins:\n  - ldr:\n      proofs_dir: lab\n"
        "markdown_extensions:\n  - attr_list\n  - pymdownx.superfences\n")
    (root / "lab" / "toll.py").write_text(
        '"""The toll.\n\nIt costs."""\nimport json\nprint("TOLL=" + json.dumps({"us": 0.5}))\n')
    (root / "content" / "index.md").write_text(PAGE)
    (root / "content" / "proofs.md").write_text(INDEX)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=root,
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not (root / "docs").exists()
    home = (root / "site" / "index.html").read_text()
    assert 'id="proof-toll"' in home and ">0.5<" in home and 'class="ldr-exercise"' in home
    assert "ldr-corrections" in home
    index = (root / "site" / "proofs" / "index.html").read_text()
    assert 'id="index-toll"' in index and "content/index.md" in index
    # The card's source link opens the script's own page, published at proofs/ whatever the
    # folders, and that page links back to the card.
    assert '<p class="ldr-proof__source"><a href="proofs/toll.py.html">' in home
    source = (root / "site" / "proofs" / "toll.py.html").read_text()
    assert '<a href="../#proof-toll">&larr; Back to the card</a>' in source
    assert '<span class="kn">import</span> <span class="nn">json</span>' in source
    assert 'href="toll.py" download' in source
    check = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "check"], cwd=root,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr


def test_a_linked_mkdocs_yml_builds_the_project_where_the_link_is(tmp_path):
    """MkDocs finds docs_dir beside the link; so does the plugin find proofs/ and its store: a
    project that links a shared mkdocs.yml records into its own proofs/_results, and nothing is
    written where the link points."""
    shared, root = tmp_path / "shared", tmp_path / "site"
    shared.mkdir()
    (root / "docs").mkdir(parents=True)
    (root / "proofs").mkdir()
    (shared / "mkdocs.yml").write_text(
        "site_name: Test\ntheme:\n  name: material\n  font: false\nplugins:\n  - ldr\n"
        "markdown_extensions:\n  - attr_list\n  - pymdownx.superfences\n")
    (root / "mkdocs.yml").symlink_to(shared / "mkdocs.yml")
    (root / "proofs" / "toll.py").write_text(
        '"""The toll.\n\nIt costs."""\nimport json\nprint("TOLL=" + json.dumps({"us": 0.5}))\n')
    (root / "docs" / "index.md").write_text("# T\n\nIt is {{ toll.TOLL.us }} us.\n\n```proof\ntoll\n```\n")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=root,
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (root / "proofs" / "_results" / "toll.cpu.json").is_file()
    assert sorted(p.name for p in shared.iterdir()) == ["mkdocs.yml"]
    assert "0.5" in (root / "site" / "index.html").read_text()
