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
