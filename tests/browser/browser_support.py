"""Helpers for the browser tests: where records and screenshots live."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCREENSHOTS = HERE / "screenshots"


def record(name: str, device_class: str = "cpu") -> dict:
    """A committed proof record's data, as the project stores it."""
    return json.loads((ROOT / "proofs" / "_results" / f"{name}.{device_class}.json").read_text())["data"]


def fixture_record(name: str, device_class: str = "cpu") -> dict:
    return json.loads((HERE / "fixtures" / f"{name}.{device_class}.json").read_text())["data"]


def click_nav(page, path: str):
    """Click the navigation link to ``path`` (the project's own parts may have the same names)."""
    page.evaluate("p => { const a = Array.from(document.querySelectorAll('a.md-nav__link'))"
                  ".find(a => a.href.endsWith('/' + p)); a.setAttribute('data-test-target', p); }", path)
    page.click(f"a[data-test-target='{path}']")
