"""What the hard tests share: a quick fake torch of the pinned version (so that proofs run
without importing the real one), and real ``ldr`` and ``mkdocs build`` subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from build_hooks.proofs.pin import pinned_torch

REPO = Path(__file__).resolve().parents[2]
PIN = pinned_torch(REPO)
FAKE_TORCH = (f"__version__ = {PIN!r}\n"
              "class cuda:\n    is_available = staticmethod(lambda: False)\n"
              "class backends:\n    mps = None\n")
RAW = ("\x1b", "\x07", "\x9b")  # what must never reach a terminal or a log


def fake_torch(folder: Path) -> dict:
    """The environment that makes proofs run under a fake torch of the pin in ``folder``."""
    (folder / "torch").mkdir(parents=True, exist_ok=True)
    (folder / "torch" / "__init__.py").write_text(FAKE_TORCH)
    python = folder / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={folder} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return {"LDR_PYTHON": str(python), "NO_MKDOCS_2_WARNING": "1"}


def ldr(root: Path, env: dict, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, sys.executable, "-m", "build_hooks.hosts.cli.main", *args], cwd=root,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300)


def mkdocs(root: Path, env: dict, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, sys.executable, "-m", "mkdocs", "build", "-d", "site", *args], cwd=root,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300)


def no_raw_controls(text: str) -> None:
    found = [char for char in RAW if char in text]
    assert not found, f"raw control characters {found!r} reached the output:\n{text}"
