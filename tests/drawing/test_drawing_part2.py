"""Part 2's committed drawings: real scenes, the series' palette, legible on a phone, every one
shown by the chapter, and what they state agrees with the proof records they were drawn from."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from build_hooks.drawing import render_svg

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "docs" / "part-02-autograd.md"
PART2 = sorted(p.stem for p in (ROOT / "drawings").glob("part2-*.excalidraw"))
PHONE_WIDTH = 560  # scene units, as for Part 1
SMALLEST_FONT = 16


def _scene(name: str) -> dict:
    return json.loads((ROOT / "drawings" / f"{name}.excalidraw").read_text())


def _texts(name: str) -> list[str]:
    return [e["text"] for e in _scene(name)["elements"] if e["type"] == "text"]


def _record(name: str) -> dict:
    return json.loads((ROOT / "proofs" / "_results" / f"{name}.cpu.json").read_text())["data"]


def test_the_chapter_shows_every_part2_drawing_and_nothing_missing():
    used = set(re.findall(r"^src: (part2-[\w-]+)\.excalidraw$", CHAPTER.read_text(), re.M))
    assert len(PART2) >= 6
    assert used == set(PART2)


@pytest.mark.parametrize("name", PART2)
def test_part2_drawing_is_a_real_scene(name):
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


@pytest.mark.parametrize("name", PART2)
def test_part2_drawing_is_narrow_and_its_text_large_enough_for_a_phone(name):
    elements = _scene(name)["elements"]
    spans = [(e["x"] + min(p[0] for p in e["points"]), e["x"] + max(p[0] for p in e["points"]))
             if e.get("points") else (e["x"], e["x"] + e["width"]) for e in elements]
    left, right = min(a for a, _ in spans), max(b for _, b in spans)
    assert right - left <= PHONE_WIDTH, f"{name} is {right - left:.0f} units wide"
    small = [e["text"] for e in elements if e["type"] == "text" and e["fontSize"] < SMALLEST_FONT]
    assert not small, small
    for e in elements:
        if e["type"] == "text" and e.get("containerId"):
            assert e["text"] == e["originalText"], (name, e["originalText"], e["text"])


@pytest.mark.parametrize("name", PART2)
def test_part2_drawing_uses_only_the_series_palette(name):
    svg = render_svg(ROOT / "drawings" / f"{name}.excalidraw")
    assert "--ldr-c-" not in svg
    assert "var(--ldr-subject" in svg and "var(--ldr-ink" in svg


def test_the_graph_drawing_matches_graph_anatomy():
    nodes = _record("graph_anatomy")["GRAPH"]["nodes"]
    texts = _texts("part2-graph")
    for n in nodes:
        if n["name"] != "AccumulateGrad":
            assert f"{n['name']}  {n['seq']}" in texts, n["name"]
    assert texts.count("AccumulateGrad") == sum(n["name"] == "AccumulateGrad" for n in nodes)
    mm = next(n for n in nodes if n["name"] == "MmBackward0")
    assert any(s["slot"] == "mat2" and s["empty"] for s in mm["saved"]) and "mat2 slot: empty" in texts


def test_the_checkpoint_drawing_states_the_measured_counts():
    ckpt = _record("checkpoint_cost")["CKPT"]
    plain = ckpt["rows"]["plain"]["activation_bytes"] // ckpt["block_output_bytes"]
    kept = ckpt["rows"]["checkpointed"]["activation_bytes"] // ckpt["block_output_bytes"]
    assert f"kept: {plain} block outputs plain, {kept} checkpointed" in _texts("part2-checkpoint")


def test_the_copy_slices_drawing_states_the_measured_nodes_and_gradient():
    copy = _record("copy_slices")["COPY"]
    texts = _texts("part2-copy-slices")
    assert f"y: {copy['before']['y']}" in texts and f"v: {copy['before']['v']}" in texts
    assert f"y: {copy['after']['y']}" in texts and f"v: {copy['after']['v']}" in texts
    assert "[" + ", ".join(f"{g:g}" for g in copy["grad"]) + "]" in texts
