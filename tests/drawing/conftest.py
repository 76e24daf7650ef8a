"""Drawing renderer tests: small hand-made scenes, the shared real scenes, the browser checks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    from build_hooks.drawing import cache

    cache.clear_memory()
    d = tmp_path / "cache"
    monkeypatch.setenv("LDR_CACHE_DIR", str(tmp_path / "ldr"))
    yield d
    cache.clear_memory()
