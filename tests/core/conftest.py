"""Fixtures for the core: a throw-away project on tmp_path and an ``md`` converter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import markdown as pymd
import pytest

REPO = Path(__file__).resolve().parents[2]
PIN_LINE = next(line for line in (REPO / "pyproject.toml").read_text().splitlines()
                if line.strip().startswith('"torch=='))

SERIES = ["build_hooks.series"]  # the series' widgets join the core's fences
MKDOCS_YML = """\
site_name: Test
theme:
  name: material
  font: false
plugins:
  - ldr
markdown_extensions:
  - attr_list
  - pymdownx.superfences
"""


class Project:
    def __init__(self, root: Path):
        self.root = root
        (root / "proofs").mkdir()
        (root / "docs").mkdir()
        (root / "pyproject.toml").write_text(
            f'[project]\nname = "t"\nversion = "0"\ndependencies = [\n    {PIN_LINE}\n]\n')
        (root / "mkdocs.yml").write_text(MKDOCS_YML)

    def proof(self, name: str, body: str, doc: str = "A test proof.\n\nIt proves a point.") -> Path:
        path = self.root / "proofs" / f"{name}.py"
        path.write_text(f'"""{doc}"""\n' + textwrap.dedent(body))
        return path

    def page(self, name: str, text: str) -> Path:
        path = self.root / "docs" / name
        path.write_text(textwrap.dedent(text))
        return path

    def record(self, name: str, device: str = "cpu") -> Path:
        return self.root / "proofs" / "_results" / f"{name}.{device}.json"

    def build(self, *extra: str, strict: bool = True) -> subprocess.CompletedProcess:
        args = [sys.executable, "-m", "mkdocs", "build", "-v", "-d", "site"]
        if strict:
            args.append("--strict")
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
        return subprocess.run([*args, *extra], cwd=self.root, capture_output=True, text=True, env=env,
                              timeout=300)

    def ldr(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", *args], cwd=self.root,
                              capture_output=True, text=True, timeout=300)

    def html(self, page: str = "index") -> str:
        path = self.root / "site" / ("index.html" if page == "index" else f"{page}/index.html")
        return path.read_text()


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


@pytest.fixture
def md(project):
    """Convert Markdown the way a build does, with the ldr extension raising on errors."""
    from build_hooks.hosts.markdown.extension import LdrExtension, LdrState, custom_fences

    state = LdrState(project.root, raise_errors=True, autorun=True, widgets=SERIES, typed_versions="error")

    def convert(text: str, page: str = "index.md") -> str:
        state.begin_page(page, "")
        engine = pymd.Markdown(extensions=["attr_list", "pymdownx.superfences", LdrExtension(state=state)],
                               extension_configs={"pymdownx.superfences": {"custom_fences": custom_fences(SERIES)}})
        return engine.convert(textwrap.dedent(text))

    convert.state = state
    return convert


@pytest.fixture
def fake_python(tmp_path):
    """An interpreter whose ``import torch`` yields the given version (or runs given code)."""

    def make(version: str | None = None, body: str | None = None) -> str:
        fake = tmp_path / f"fake-torch-{version or 'broken'}"
        (fake / "torch").mkdir(parents=True)
        (fake / "torch" / "__init__.py").write_text(body or f"__version__ = {version!r}\n")
        wrapper = tmp_path / f"python-{version or 'broken'}"
        wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={fake} exec {sys.executable} \"$@\"\n")
        wrapper.chmod(0o755)
        return str(wrapper)

    return make
