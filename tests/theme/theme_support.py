"""Helpers for the theme's unit tests: fixture records and a Context that serves them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from build_hooks.core.errors import DirectiveError  # noqa: E402
from build_hooks.directives.context import Context  # noqa: E402
from build_hooks.proofs.records import ProofData  # noqa: E402

FIXTURES = ROOT / "tests" / "browser" / "fixtures"


def load(name: str, device_class: str = "cpu") -> ProofData:
    rec = json.loads((FIXTURES / f"{name}.{device_class}.json").read_text(encoding="utf-8"))
    return ProofData(name, rec["data"], rec["provenance"])


def make_ctx(records: dict[str, dict[str, ProofData]] | None = None, base_url: str = "") -> Context:
    """A Context whose lookup serves ``records`` (default: every fixture record)."""
    if records is None:
        records = {}
        for path in sorted(FIXTURES.glob("*.json")):
            name, device_class = path.name.split(".")[:2]
            records.setdefault(name, {})[device_class] = load(name, device_class)

    def lookup(name):
        if name not in records:
            raise DirectiveError(f"unknown proof {name!r}")
        return records[name]

    return Context(root=ROOT, page="part-00-the-map.md", base_url=base_url, lookup=lookup)

