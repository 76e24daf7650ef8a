"""The project's own folder for what builds keep: the one place that spells ``.cache/ldr``."""

from __future__ import annotations

from pathlib import Path

CACHE_DIR = (".cache", "ldr")  # under the project root: what builds keep to save work, never committed


def cache_dir(root: Path | str) -> Path:
    """The project's ``.cache/ldr``."""
    return Path(root).joinpath(*CACHE_DIR)
