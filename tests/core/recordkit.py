"""Hand-made records for history, drift and merge tests ("another torch version" without one)."""

from __future__ import annotations

import json
from pathlib import Path

from build_hooks.proofs.discovery import script_hash
from build_hooks.store.record import Record

SCRIPT = """\
import json

import torch  # noqa: F401  (a proof of torch's: its records are per torch version)

print("TOLL=" + json.dumps({"small_us": 1.0}))
"""


def record(project, proof: str, device: str = "cpu", torch: str | None = None, data: dict | None = None,
           stdout: list[str] | None = None, measured_at: str = "2026-11-01T00:00:00Z",
           sha: str | None = None, folder: Path | None = None, machine_device: str | None = None) -> Path:
    """Write ``<folder>/<proof>.<device>.json`` (default: the project's store) and return its path;
    ``torch`` defaults to the project's pin."""
    if torch is None:
        from build_hooks.proofs.pin import pinned_torch

        torch = pinned_torch(project.root)
    script = project.root / "proofs" / f"{proof}.py"
    data = {"TOLL": {"small_us": 1.0}} if data is None else data
    lines = list(stdout if stdout is not None else ["a visible line"])
    lines += [f"{name}={json.dumps(value)}" for name, value in data.items()]
    body = Record(
        proof=proof, device_class=device,
        script_sha256=sha or script_hash(script.read_bytes()),
        torch=torch, torch_build=f"{torch}+{'cu128' if device == 'cuda' else 'cpu'}", python="3.11.7",
        os="Linux-test", machine="x86_64",
        device=machine_device or ("NVIDIA H200" if device == "cuda" else "Test CPU"),
        measured_at=measured_at, wall_s=0.5, status="ok", returncode=0, signal=None,
        stdout=lines, stderr=[], data=data,
    )
    folder = Path(folder) if folder is not None else project.root / "proofs" / "_results"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{proof}.{device}.json"
    path.write_text(body.to_text(), encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, byte for byte."""
    folder = Path(folder)
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
