"""How long a run of proofs should take, from the wall times their previous records hold.

Pure bookkeeping for progress displays (``ldr run``, a cold ``mkdocs build``): the caller
reports each proof's start and end; :meth:`Estimate.left` answers "about how long still".
Proofs marked ``parallel`` share the cores, so their part of the estimate is divided by the
number of slots; every other proof runs alone and counts in full. A proof with no previous
record adds nothing and is counted in :attr:`Estimate.unknown`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field


@dataclass
class Estimate:
    expected: dict[str, float | None]  # proof name -> recorded wall time of one run
    parallel: set[str] = field(default_factory=set)
    slots: int = 1
    runs: int = 1  # each proof runs this many times (`ldr run --repeat N`)
    done: int = 0
    _left: dict[str, int] = field(default_factory=dict)  # runs still to finish, per proof
    _running: dict[str, float] = field(default_factory=dict)  # name -> monotonic start

    def __post_init__(self) -> None:
        self._left = {name: self.runs for name in self.expected}
        self.slots = max(1, self.slots)

    @classmethod
    def for_run(cls, library, todo, runs: int = 1) -> Estimate:
        """The estimate for running ``todo`` (proofs) on this host with ``library``."""
        from build_hooks.run.states import host_accelerator
        from build_hooks.store.record import Record

        accelerator = host_accelerator()
        expected: dict[str, float | None] = {}
        for proof in todo:
            device_class = library.target_device(proof, accelerator) or "cpu"
            record = library.store.read(proof.name, device_class)
            if isinstance(record, Record):
                expected[proof.name] = record.failure.wall_s if record.failure else record.wall_s
            else:
                expected[proof.name] = None
        return cls(expected, {p.name for p in todo if p.parallel},
                   library.slots or os.cpu_count() or 1, max(1, runs))

    @property
    def count(self) -> int:
        """How many proof runs in all."""
        return len(self.expected) * self.runs

    @property
    def unknown(self) -> list[str]:
        return [name for name, wall in self.expected.items() if wall is None]

    def started(self, name: str, now: float | None = None) -> None:
        self._running[name] = time.monotonic() if now is None else now

    def finished(self, name: str) -> None:
        self._running.pop(name, None)
        if self._left.get(name, 0) > 0:
            self._left[name] -= 1
        self.done += 1

    def left(self, now: float | None = None) -> float | None:
        """Seconds still to go (None when no proof of the run was ever recorded)."""
        if all(self.expected[name] is None for name in self.expected):
            return None
        now = time.monotonic() if now is None else now
        alone = shared = 0.0
        for name, runs in self._left.items():
            wall = self.expected[name]
            if wall is None or runs <= 0:
                continue
            remaining = wall * runs
            if name in self._running:  # the current run is partly done
                remaining -= min(wall, max(0.0, now - self._running[name]))
            if name in self.parallel:
                shared += remaining
            else:
                alone += remaining
        return alone + shared / self.slots

    def plan_note(self) -> str:
        """" (about 12 s by their recorded wall times, plus the proof host's start; 1 never
        recorded)", or " (never recorded: no estimate)"."""
        total = self.left()
        unknown = self.unknown
        if total is None:
            return " (never recorded: no estimate)" if unknown else ""
        extra = f"; {len(unknown)} never recorded" if unknown else ""
        return f" (about {seconds(total)} by their recorded wall times, plus the proof host's start{extra})"

    def left_note(self) -> str:
        """"; about 8 s left" (nothing once the run is over or when nothing is known)."""
        left = self.left()
        if left is None or self.done >= self.count:
            return ""
        return f"; about {seconds(left)} left"


def seconds(value: float) -> str:
    """12.3 -> "12 s"; 0.4 -> "0.4 s"; 125 -> "2 min 5 s"."""
    if value < 10:
        value = max(value, 0.1)
        return f"{value:.1f} s"
    if value < 120:
        return f"{value:.0f} s"
    minutes, rest = divmod(int(round(value)), 60)
    return f"{minutes} min {rest} s"
