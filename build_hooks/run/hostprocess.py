"""The proof host as the parent sees it (host.py is the host itself): a process started with
the proofs' interpreter, whose hello says its torch (checked against the pin), read one line
at a time, and closed. :class:`build_hooks.run.runner.Runner` runs proofs on it.

A host that does not answer its hello within ``HELLO_TIMEOUT`` s, exits at start or cannot
import torch is an error naming the interpreter and the fix; one that no longer answers a
read within its time raises :class:`HostSilent`.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

from build_hooks.core.errors import LdrError, PinError
from build_hooks.core.textsafe import printable
from build_hooks.proofs.pin import matches_pin
from build_hooks.run.results import decode

HERE = Path(__file__).resolve().parent
HOST = HERE / "host.py"
HELLO_TIMEOUT = 180.0


def default_mode() -> str:
    return "fork" if sys.platform.startswith("linux") else "spawn"


class HostSilent(Exception):
    """The host sent nothing within the time it had."""


class HostProcess:
    """A proof host process: start it once, read its replies, close it. ``torch``: the host
    imports torch (and must have it, at ``pin`` when one is given); False for proofs that
    never import torch, whose interpreter may have none."""

    def __init__(self, python: str | None = None, pin: str | None = None, mode: str | None = None,
                 torch: bool = True):
        self.python = python or os.environ.get("LDR_PYTHON") or sys.executable
        self.pin = pin
        self.torch = torch
        self.mode = mode or os.environ.get("LDR_MODE") or default_mode()
        self.proc: subprocess.Popen | None = None
        self.hello: dict = {}
        self._errlog: IO[bytes] | None = None
        self._work: str | None = None
        self._inbuf = b""
        self._starting = threading.Lock()

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> dict:
        with self._starting:  # `mkdocs serve` may warm the host from another thread
            if self.proc is not None and self.proc.poll() is None:
                return self.hello
            self.close()  # a host that died: clear what it left
            try:
                return self._start()
            except BaseException:
                self.close(wait=0)
                raise

    def _start(self) -> dict:
        self._inbuf = b""
        env = dict(os.environ)
        self._errlog = tempfile.TemporaryFile()
        self._work = tempfile.mkdtemp(prefix="ldr-")  # the proofs' folders; the host removes it too
        try:
            self.proc = subprocess.Popen(
                [self.python, str(HOST), "--mode", self.mode, "--work", self._work,
                 *(() if self.torch else ("--no-torch",))],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errlog, env=env,
            )
        except OSError as exc:
            raise PinError(
                f"cannot start the proof interpreter {self.python!r}: {exc}; "
                "fix: set the plugin's `python` option or LDR_PYTHON to a Python with torch"
            ) from exc
        try:
            line = self._readline(HELLO_TIMEOUT)
        except HostSilent:
            raise LdrError(f"the proof interpreter {self.python} did not start within "
                           f"{HELLO_TIMEOUT:.0f} s: {self._stderr_tail()}") from None
        if not line:
            raise LdrError(f"the proof interpreter {self.python} exited at start: {self._stderr_tail()}")
        self.hello = json.loads(line)["hello"]
        if "error" in self.hello:
            raise PinError(
                f"the proof interpreter {self.python} cannot import torch ({self.hello['error']}); "
                f"fix: `{self.python} -m pip install torch=={self.pin or '<pin>'}`"
            )
        if self.torch and self.pin and not matches_pin(self.hello["torch"], self.pin):
            raise PinError(
                f"proofs must run under torch {self.pin} (the project's pin) but "
                f"{self.python} has torch {self.hello['torch']}; fix: `{self.python} -m pip install "
                f"torch=={self.pin}`, or point LDR_PYTHON (or the plugin's `python` option) at an "
                "interpreter that has it"
            )
        return self.hello

    def close(self, wait: float = 10.0) -> None:
        """Stop the host: closing its stdin makes it kill every proof it runs (and what they
        started) and remove their folders; one that does not exit in ``wait`` s is killed."""
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                if proc.stdin:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=max(wait, 3.0))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGCONT)  # a stopped host could not clean up
                proc.terminate()  # the host handles SIGTERM like a closed stdin
                try:
                    proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc.stdout:
                proc.stdout.close()
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None

    # -- I/O -------------------------------------------------------------------
    def _stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        self._errlog.seek(0)
        # Quoted in error messages, which any host prints as they are (a traceback under Zensical).
        return printable(decode(self._errlog.read()[-2000:]).strip())

    def _readline(self, timeout: float) -> bytes:
        """One line from the host, or b"" at its exit. Reads the raw pipe into our own buffer:
        a buffered readline could swallow a second line that select() would then wait for."""
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._inbuf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                raise HostSilent()
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                line, self._inbuf = self._inbuf, b""
                return line
            self._inbuf += chunk
        line, self._inbuf = self._inbuf.split(b"\n", 1)
        return line + b"\n"
