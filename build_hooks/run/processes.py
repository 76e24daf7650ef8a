"""The proof host's view of the process tree: kill a process (or its group), and list a
process's children or a group's members, from /proc (Linux only).

Standalone: imports nothing from this package (the proof host loads it by path, see host.py).
"""

from __future__ import annotations

import os
import signal


def sigkill(pid: int, group: bool = False) -> None:
    try:
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def children_of(parent: int) -> list[int]:
    """Ids of the live processes whose parent is ``parent`` (a scan of /proc; Linux only)."""
    return _scan(1, parent)


def group_of(pgid: int) -> list[int]:
    """Ids of the live processes in the process group ``pgid`` (none when the group is gone,
    which costs one ``killpg``; else a scan of /proc, Linux only)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return []
    return _scan(2, pgid)


def _scan(field: int, value: int) -> list[int]:
    """Live (not zombie) processes whose /proc stat field ``field`` after the name (1: parent,
    2: process group) is ``value``."""
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[field]) == value and fields[0] not in (b"Z", b"X"):
                found.append(int(name))
    return found
