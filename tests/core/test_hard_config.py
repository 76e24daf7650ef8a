"""The files that configure a project are read as data too: a FIFO or a symlink to a device in
place of pyproject.toml or requirements.txt is an error naming it, never a hang."""

from __future__ import annotations

import os
import subprocess
import sys


def ldr(project, *args):
    return subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", *args], cwd=project.root,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_fifo_in_place_of_pyproject_is_named_not_waited_on(project):
    project.proof("x", 'print("x")\n')
    pyproject = project.root / "pyproject.toml"
    pyproject.unlink()
    os.mkfifo(pyproject)
    result = ldr(project, "status")  # would block forever in open() before
    assert result.returncode != 0
    assert "pyproject.toml" in result.stderr and "FIFO" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_symlink_to_dev_zero_in_place_of_requirements_is_bounded(project):
    project.proof("x", 'print("x")\n')
    (project.root / "pyproject.toml").unlink()
    os.symlink("/dev/zero", project.root / "requirements.txt")
    result = ldr(project, "status")  # would read until memory ran out before
    assert result.returncode != 0
    assert "requirements.txt" in result.stderr and "Traceback" not in result.stderr


def test_a_data_line_nested_past_any_parser_is_a_problem_not_a_crash(project):
    deep = 100_000
    project.proof("deep", f'print("shown")\nprint("X=" + "[" * {deep} + "]" * {deep})\n'
                          'print("Y=[" + "[" * 70 + "]" * 70 + "]")\n')
    result = ldr(project, "run", "deep")
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    status = ldr(project, "status")
    assert "nests too deeply" in status.stdout + status.stderr
    assert "nests 64 levels or deeper" in status.stdout + status.stderr


def test_a_corrections_entry_whose_torch_is_no_version_is_an_error_at_its_line(project):
    import os as _os

    project.proof("x", 'print("x")\n')
    project.page("index.md", '# P\n\n```corrections\n- torch: ../../x\n  note: "lost?"\n```\n')
    env = dict(_os.environ, NO_MKDOCS_2_WARNING="1", LDR_RUN="false")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=project.root,
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode != 0
    assert "docs/index.md:3" in result.stderr and "is not a torch version" in result.stderr
