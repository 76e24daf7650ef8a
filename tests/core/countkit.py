"""A real `mkdocs build` in a process that counts what the build did (the test's script writes
the counts to a JSON file when the build ends): test_memo.py counts handler calls,
test_spotbook.py page parses, test_proofbook.py proof parses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

BUILD = """
from mkdocs.__main__ import cli
out, sys.argv = sys.argv[1], ["mkdocs", "build", "-d", "site", *sys.argv[2:]]
try:
    cli()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
with open(out, "w") as handle:
    json.dump(counts(), handle)
sys.exit(code)
"""
"""The end of a counting script: the build, then what the script's ``counts()`` returns, written
to the counts file, and the build's exit status."""


def counted_build(project, script: str, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    """Run ``script`` (given the counts file, then mkdocs' arguments) in the project; its result
    and the counts it wrote."""
    folder = project.root / ".counting"
    folder.mkdir(exist_ok=True)
    path, counts = folder / "build.py", folder / "counts.json"
    path.write_text(script)
    counts.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, str(path), str(counts), *extra], cwd=project.root,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert counts.exists(), done.stderr[-3000:]
    return done, json.loads(counts.read_text())
