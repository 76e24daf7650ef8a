"""The whole suite: how `pytest -n 2` (pytest-xdist, as .ci/run runs it) shares the tests out.

Each test file goes to one worker as a unit, so a module's fixture (a built site, a runner) is
made once; the browser tests all go to the same worker, since they share the two sites that
tests/browser/conftest.py builds once per session. Without xdist the marks do nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

BROWSER = Path(__file__).resolve().parent / "browser"


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.fspath))
        group = "browser" if path.is_relative_to(BROWSER) else item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))
