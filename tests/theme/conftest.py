"""Unit tests for the theme's renderers (helpers in theme_support.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from theme_support import make_ctx  # noqa: E402


@pytest.fixture
def ctx():
    return make_ctx()
