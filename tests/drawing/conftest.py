"""Drawing renderer tests: small hand-made scenes, the shared real scenes, the browser checks."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

SHARED_SCENES = ROOT.parent / "shared" / "excalidraw" / "scenes"
SHARED_COMPARE = ROOT.parent / "shared" / "tools" / "excalidraw-ref" / "compare.py"
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    from build_hooks.drawing import cache

    cache.clear_memory()
    d = tmp_path / "cache"
    monkeypatch.setenv("LDR_CACHE_DIR", str(tmp_path / "ldr"))
    yield d
    cache.clear_memory()


def need_chromium():
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium (apt-get install chromium); never `playwright install`")
    try:
        import playwright  # noqa: F401
    except ImportError:
        pytest.skip("needs Playwright for Python (pip install playwright)")


def need_shared():
    if not SHARED_SCENES.is_dir() or not any(SHARED_SCENES.glob("*.excalidraw")):
        pytest.skip(f"the shared reference scenes are absent ({SHARED_SCENES}); they live beside the repo")
    return sorted(SHARED_SCENES.glob("*.excalidraw"))


def which(cmd: str) -> bool:
    return shutil.which(cmd) is not None
