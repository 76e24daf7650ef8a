"""A proof's state on one device class, as the library decides it (run/library.py): fresh,
stale, missing, corrupt, failed, problem, foreign or unneeded; and where a proof can be
measured: the accelerators, and this machine's, guessed without importing torch."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from build_hooks.proofs.discovery import Proof
from build_hooks.store.record import Record
from build_hooks.store.store import Corrupt

ACCELERATORS = ("cuda", "mps")


@dataclass
class ProofState:
    proof: Proof
    device_class: str
    record: Record | None
    corrupt: Corrupt | None = None
    reasons: list[str] = field(default_factory=list)
    foreign: bool = False  # an accelerator record under another torch, kept by `ldr merge`
    unneeded: bool = False  # a CPU record of a proof that now requires an accelerator

    @property
    def state(self) -> str:
        if self.corrupt is not None:
            return "corrupt"
        if self.record is None:
            return "missing"
        if self.unneeded:
            return "unneeded"
        if self.foreign:
            return "foreign"
        if self.reasons:
            return "stale"
        if not self.record.ok or self.record.failure is not None:
            return "failed"
        if self.record.problems:
            return "problem"  # it ran, but printed data lines that are wrong
        return "fresh"

    @property
    def needs_run(self) -> bool:
        return self.state in ("missing", "corrupt", "stale", "foreign")


def unneeded(proof: Proof, device_class: str) -> bool:
    """A CPU record of a proof that requires an accelerator: made before it said so; never shown."""
    return proof.accelerator == "require" and device_class == "cpu"


def host_accelerator() -> str | None:
    """A cheap guess (no torch import) at this machine's accelerator, for planning only;
    the probe decides for real. ``LDR_ACCELERATOR=none|cuda|mps`` overrides it."""
    forced = os.environ.get("LDR_ACCELERATOR")
    if forced:
        return None if forced == "none" else forced
    if os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidia0"):
        return "cuda"
    if sys.platform == "darwin" and os.uname().machine == "arm64":
        return "mps"
    return None
