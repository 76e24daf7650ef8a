"""The store's lock: one process at a time runs proofs and writes records, and a waiting one
says who holds it."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from pathlib import Path
from stat import S_ISREG

from build_hooks.core.errors import StoreError

LOCK_PATIENCE = 1.0  # seconds of waiting on the store lock before saying who holds it


def _holder_note() -> str:
    """Who takes the lock: written into the lock file, read by whoever waits for it."""
    words = [os.path.basename(w) if os.sep in w and os.path.isfile(w) else w for w in sys.orig_argv]
    command = " ".join(words)
    return f"pid {os.getpid()} ({command[:117] + '...' if len(command) > 120 else command}), " \
           f"since {time.strftime('%H:%M:%S')}"


def _say_waiting(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def store_lock(lock_path: Path, wait: bool = True, on_wait=_say_waiting):
    """An exclusive lock held while proofs run and records are written, so that a build and
    a running `mkdocs serve` never run the same proof at once (POSIX; elsewhere a no-op).

    Yields True when held; with ``wait=False`` it yields False at once if another holds it.
    A wait longer than LOCK_PATIENCE calls ``on_wait`` once with "waiting for the store lock
    held by pid N (command)" (the holder writes that into the lock file)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield True
        return
    with _open_lock(lock_path) as handle:
        if not _try_lock(fcntl, handle):
            if not wait:
                yield False
                return
            deadline = time.monotonic() + LOCK_PATIENCE
            while not _try_lock(fcntl, handle):
                if time.monotonic() >= deadline:
                    holder = ""
                    with contextlib.suppress(OSError):
                        holder = lock_path.read_text(encoding="utf-8", errors="replace").strip()
                    on_wait(f"waiting for the store lock held by {holder or 'another process'} "
                            f"({lock_path}): it is released when that run has recorded its proofs")
                    fcntl.flock(handle, fcntl.LOCK_EX)
                    break
                time.sleep(0.05)
        try:
            with contextlib.suppress(OSError):
                handle.seek(0)
                handle.truncate()
                handle.write(_holder_note() + "\n")
                handle.flush()
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _open_lock(lock_path: Path):
    """The lock file, opened for its note without following a symlink: a symlink, FIFO or socket
    at its path (``store.lock -> ~/.bashrc``) is replaced by a new file, never written through.
    A folder there is a StoreError naming it."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    for _ in range(3):
        try:
            fd = os.open(lock_path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
        except IsADirectoryError:
            raise StoreError(f"{lock_path} is a folder, where the store's lock file belongs; fix: "
                             "remove it (it only ever holds a note of who runs proofs)") from None
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENXIO):  # a symlink, a socket
                raise
            os.unlink(lock_path)
            continue
        if S_ISREG(os.fstat(fd).st_mode):
            return os.fdopen(fd, "r+", encoding="utf-8")
        os.close(fd)  # a FIFO
        os.unlink(lock_path)
    raise StoreError(f"{lock_path}: something keeps replacing the store's lock file; fix: remove it")


def _try_lock(fcntl, handle) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
