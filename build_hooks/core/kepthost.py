"""The runner's side of the host keeper (keeper.py): what a host is kept under, and a handle
on a host taken back that behaves like the ``subprocess.Popen`` of a host started here."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

from . import keeper
from .cache import file_stamp

HERE = Path(__file__).resolve().parent
_PARKED: list[subprocess.Popen] = []  # hosts started here and handed in: reaped when they end


# The shell's own bookkeeping, which moves with every `cd`: not part of the key; each request
# sets the caller's values instead (:func:`volatile_env`), so proofs see them as they are now.
VOLATILE = ("PWD", "OLDPWD", "_", "SHLVL")


def volatile_env() -> tuple[dict[str, str], list[str]]:
    """The caller's values of :data:`VOLATILE` (to set) and those it does not have (to unset)."""
    return ({k: os.environ[k] for k in VOLATILE if k in os.environ},
            [k for k in VOLATILE if k not in os.environ])


def host_key(python: str, mode: str, env: dict[str, str]) -> str:
    """Everything a host was started under that its proofs could see: the interpreter (path
    and file stamp), this package's host code, the mode, the whole environment (but the shell
    variables of :data:`VOLATILE`, which each request sets)."""
    exe = shutil.which(python) or python
    real = os.path.realpath(exe)
    code = hashlib.sha256()
    for name in ("zygote.py", "proofmain.py", "keeper.py", "kepthost.py"):
        code.update((HERE / name).read_bytes())
    shown = sorted((k, v) for k, v in env.items() if k not in VOLATILE)
    body = json.dumps([exe, real, file_stamp(Path(real)), mode, code.hexdigest(), shown, os.getuid()])
    return hashlib.sha256(body.encode()).hexdigest()


def torch_stamps(site: list[str]) -> list:
    """The stamps of the torch files a host imported, found under its site-packages folders."""
    out = []
    for folder in sorted(site):
        names = [os.path.join(folder, "torch", n) for n in ("__init__.py", "version.py")]
        names += sorted(glob.glob(os.path.join(folder, "torch", "_C*.so")))
        for name in names:
            stamp = file_stamp(Path(name))
            if stamp is not None:
                out.append([name, *stamp])
    return out


class TakenHost:
    """A host taken from the keeper: not this process's child, so its end is seen through a
    pidfd (or its pid) rather than waited for."""

    def __init__(self, pid: int, stdin_fd: int, stdout_fd: int):
        self.pid = pid
        self.stdin = os.fdopen(stdin_fd, "wb")
        self.stdout = os.fdopen(stdout_fd, "rb", buffering=0)
        self.returncode: int | None = None
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self._pidfd = None

    def poll(self) -> int | None:
        if self.returncode is None:
            if self._pidfd is not None:
                ended = bool(select.select([self._pidfd], [], [], 0)[0])
            else:
                try:
                    os.kill(self.pid, 0)
                    ended = _zombie(self.pid)
                except ProcessLookupError:
                    ended = True
            if ended:
                self.returncode = 0
                if self._pidfd is not None:
                    os.close(self._pidfd)
                    self._pidfd = None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"host {self.pid}", timeout)
            time.sleep(0.01)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def take(key: str):
    """``(handle, stderr file, details)`` of a kept host for ``key`` whose torch files have not
    moved since it started, or None (a host whose torch moved is closed: it ends)."""
    got = keeper.take(key)
    if got is None:
        return None
    details, (stdin_fd, stdout_fd, stderr_fd) = got
    handle = TakenHost(int(details["pid"]), stdin_fd, stdout_fd)
    errlog = os.fdopen(stderr_fd, "w+b")
    hello = details.get("hello") or {}
    if (handle.poll() is not None or torch_stamps(hello.get("site", [])) != details.get("torch")
            or not details.get("work")):
        handle.stdin.close()  # it ends, removing its folders
        handle.stdout.close()
        errlog.close()
        return None
    return handle, errlog, details


def park(key: str, proc, errlog, details: dict) -> bool:
    """Hand an idle host in; on success this process keeps no copy of its pipes."""
    fds = [proc.stdin.fileno(), proc.stdout.fileno(), errlog.fileno()]
    if not keeper.park(key, {**details, "pid": proc.pid}, fds):
        return False
    proc.stdin.close()
    proc.stdout.close()
    errlog.close()
    if isinstance(proc, subprocess.Popen):
        _PARKED.append(proc)
    reap()
    return True


def reap() -> None:
    """Collect the hosts started here that have ended since they were handed in."""
    _PARKED[:] = [proc for proc in _PARKED if proc.poll() is None]
