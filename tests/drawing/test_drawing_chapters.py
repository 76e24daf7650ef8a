"""The chapters' committed drawings (``part1-*``, ``part2-*``...): real scenes, in the series'
palette, legible on a phone, and each one shown by its chapter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from build_hooks.drawing import render_svg

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = {"part1": "part-01-the-tensor.md", "part2": "part-02-autograd.md"}
DRAWINGS = sorted(p.stem for prefix in CHAPTERS for p in (ROOT / "drawings").glob(f"{prefix}-*.excalidraw"))
PHONE_WIDTH = 560  # scene units: on a ~360 px column the scene shrinks by about a third at most
SMALLEST_FONT = 16


def _scene(name: str) -> dict:
    return json.loads((ROOT / "drawings" / f"{name}.excalidraw").read_text())


@pytest.mark.parametrize("prefix", sorted(CHAPTERS))
def test_the_chapter_shows_every_one_of_its_drawings_and_nothing_missing(prefix):
    chapter = (ROOT / "docs" / CHAPTERS[prefix]).read_text()
    used = set(re.findall(rf"^src: ({prefix}-[\w-]+)\.excalidraw$", chapter, re.M))
    drawn = {name for name in DRAWINGS if name.startswith(prefix + "-")}
    assert len(drawn) >= 6
    assert used == drawn


def test_every_committed_drawing_is_shown_by_a_page():
    """A scene no page shows is dead weight: the author edits it, the reader never sees it."""
    shown = set()
    for page in (ROOT / "docs").rglob("*.md"):
        shown |= set(re.findall(r"^src: ([\w./-]+\.excalidraw)$", page.read_text(), re.M))
    committed = {p.name for p in (ROOT / "drawings").glob("*.excalidraw")}
    assert committed - shown == set(), "drawings no page shows: delete them or show them"


@pytest.mark.parametrize("name", DRAWINGS)
def test_the_drawing_is_a_real_scene(name):
    data = _scene(name)
    assert data["type"] == "excalidraw" and data["version"] == 2
    ids = [e["id"] for e in data["elements"]]
    assert len(ids) == len(set(ids))
    for e in data["elements"]:
        for b in e.get("boundElements") or []:
            assert b["id"] in ids
        if e["type"] == "text":
            assert e["fontFamily"] == 5  # Excalifont
            if e.get("containerId"):
                assert e["containerId"] in ids


@pytest.mark.parametrize("name", DRAWINGS)
def test_the_drawing_is_narrow_and_its_text_large_enough_for_a_phone(name):
    elements = _scene(name)["elements"]
    spans = [(e["x"] + min(p[0] for p in e["points"]), e["x"] + max(p[0] for p in e["points"]))
             if e.get("points") else (e["x"], e["x"] + e["width"]) for e in elements]
    left, right = min(a for a, _ in spans), max(b for _, b in spans)
    assert right - left <= PHONE_WIDTH, f"{name} is {right - left:.0f} units wide"
    small = [e["text"] for e in elements if e["type"] == "text" and e["fontSize"] < SMALLEST_FONT]
    assert not small, small
    # a label bound in a box must fit on the lines it was written with (no wrapped numbers)
    for e in elements:
        if e["type"] == "text" and e.get("containerId"):
            assert e["text"] == e["originalText"], (name, e["originalText"], e["text"])


@pytest.mark.parametrize("name", DRAWINGS)
def test_the_drawing_uses_only_the_series_palette(name):
    svg = render_svg(ROOT / "drawings" / f"{name}.excalidraw")
    assert "--ldr-c-" not in svg  # every colour maps to a role
    assert "var(--ldr-subject" in svg and "var(--ldr-ink" in svg
