"""Part 2's committed drawings state what the proof records they were drawn from say (the checks
every chapter's drawings share are in test_drawing_chapters.py)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _scene(name: str) -> dict:
    return json.loads((ROOT / "drawings" / f"{name}.excalidraw").read_text())


def _texts(name: str) -> list[str]:
    return [e["text"] for e in _scene(name)["elements"] if e["type"] == "text"]


def _record(name: str) -> dict:
    return json.loads((ROOT / "proofs" / "_results" / f"{name}.cpu.json").read_text())["data"]


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
