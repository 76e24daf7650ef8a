"""What a proof's timeout counts: the proof's own work, not the machine's load.

A proof's time is its **CPU time** (every thread of its process, the processes it started and
waited for, and those still running in its process group), **but never more than its time on
the clock**. So:

* a loaded machine slows the clock, not the work: a proof that needs 63 s alone and gets half a
  core under load still uses about 63 s of CPU, and does not time out at 120;
* a proof that keeps 8 cores busy is not charged 8 s a second: its clock time counts;
* a proof that waits (``sleep``, a lock, a pipe) uses almost no CPU: a clock backstop,
  ``BACKSTOP`` times its timeout, ends it.

Off Linux (no ``/proc`` to read a running process's CPU time from) the clock alone counts, at
the timeout itself, as a plain wall-clock timeout would.

The proof host checks nothing before the clock reaches the timeout (a proof's time is never
more than its clock time); from then on it reads the CPU time when it could first have reached
the timeout (``next_check``), so a proof that finishes in time costs no reading at all.

Standalone: imports nothing from this package (the proof host, host.py, loads it by path).
"""

from __future__ import annotations

import os

BACKSTOP = 5  # a proof that waits is stopped after this many times its timeout on the clock
MIN_CHECK = 0.05  # seconds: the least wait between two readings of a proof's CPU time
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pids: list[int]) -> float | None:
    """The CPU time of these processes (user and system, their threads and the children they
    waited for), from /proc; None where the first of them cannot be read (not Linux, or gone)."""
    total = 0.0
    for index, pid in enumerate(pids):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            total += sum(int(value) for value in fields[11:15]) / _TICK  # utime stime cutime cstime
        except (OSError, IndexError, ValueError):
            if index == 0:
                return None
    return total


def verdict(wall: float, cpu: float | None, timeout: float, backstop: float = BACKSTOP) -> str | None:
    """Which limit a proof has reached: ``"cpu"`` (its CPU time reached its timeout, and so did
    its clock), ``"wall"`` (the clock reached the backstop, or the timeout where the CPU time
    cannot be read), or None (it may go on)."""
    if wall >= backstop * timeout:
        return "wall"
    if wall < timeout:
        return None
    if cpu is None:
        return "wall"
    return "cpu" if cpu >= timeout else None


def next_check(wall: float, cpu: float, timeout: float, cores: int | None = None,
               backstop: float = BACKSTOP) -> float:
    """Seconds until a proof that has not reached its limit could: its CPU time grows at most
    one second per core per second, and the backstop comes when it comes."""
    cores = max(1, cores or os.cpu_count() or 1)
    by_cpu = (timeout - cpu) / cores
    return max(MIN_CHECK, min(by_cpu, backstop * timeout - wall))


