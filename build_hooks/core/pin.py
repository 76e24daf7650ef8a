"""The pinned torch version: read once from pyproject.toml, the single source of truth."""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from .errors import PinError

_PIN = re.compile(r"^\s*torch\s*==\s*([0-9][0-9A-Za-z.+!-]*)\s*(;.*)?$")


@lru_cache(maxsize=8)
def _read(pyproject: Path, mtime_ns: int) -> str:
    try:
        doc = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PinError(f"{pyproject}: cannot read the torch pin ({exc})") from exc
    for dep in doc.get("project", {}).get("dependencies", []):
        match = _PIN.match(dep)
        if match:
            return match.group(1)
    raise PinError(
        f"{pyproject}: [project].dependencies has no exact torch pin; "
        "add a line like \"torch==2.13.0\""
    )


def pinned_torch(root: Path) -> str:
    """The torch version pinned in ``root/pyproject.toml`` (e.g. ``"2.13.0"``)."""
    pyproject = Path(root) / "pyproject.toml"
    try:
        mtime = pyproject.stat().st_mtime_ns
    except OSError as exc:
        raise PinError(f"{pyproject}: not found; the torch pin lives there") from exc
    return _read(pyproject, mtime)


def public_version(version: str) -> str:
    """``"2.13.0+cpu"`` -> ``"2.13.0"``: the local build tag does not change the release."""
    return version.split("+", 1)[0].strip()


def matches_pin(version: str, pin: str) -> bool:
    return public_version(version) == public_version(pin)
