"""Running proofs: one process per proof, hosted by a warm interpreter (see zygote.py)."""

from __future__ import annotations

import atexit
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .errors import LdrError, PinError
from .pin import matches_pin

HERE = Path(__file__).resolve().parent
ZYGOTE = HERE / "zygote.py"
PROBE = HERE / "probe.py"
HELLO_TIMEOUT = 180.0


@dataclass
class Job:
    name: str
    script: Path
    timeout: float
    cap: int
    parallel: bool = False
    env: dict | None = None


@dataclass
class RunResult:
    name: str
    status: str  # ok | failed | timeout | killed | output-limit
    returncode: int | None
    signal: int | None
    wall_s: float
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self) -> str:
        if self.status == "timeout":
            return f"timed out after {self.wall_s:.1f} s"
        if self.status == "output-limit":
            return "printed more than its output cap and was stopped"
        if self.signal is not None:
            return f"was killed by signal {self.signal}"
        return f"exited with status {self.returncode}"


def decode(raw: bytes) -> str:
    """Proof output as text; bytes that are not UTF-8 show as ``\\xNN`` escapes."""
    return raw.decode("utf-8", errors="backslashreplace").replace("\r\n", "\n")


def default_mode() -> str:
    return "fork" if sys.platform.startswith("linux") else "spawn"


class Runner:
    """A proof host process; start it once, run many batches, close it."""

    def __init__(self, python: str | None = None, pin: str | None = None, mode: str | None = None):
        self.python = python or os.environ.get("LDR_PYTHON") or sys.executable
        self.pin = pin
        self.mode = mode or os.environ.get("LDR_MODE") or default_mode()
        self.proc: subprocess.Popen | None = None
        self.hello: dict = {}
        self._probe: dict | None = None
        self._next_id = 0
        self._errlog = None
        self._inbuf = b""
        self._starting = threading.Lock()

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> dict:
        with self._starting:  # `mkdocs serve` may warm the host from another thread
            return self._start()

    def _start(self) -> dict:
        if self.proc is not None and self.proc.poll() is None:
            return self.hello
        self._errlog = tempfile.TemporaryFile()
        self._inbuf = b""
        try:
            self.proc = subprocess.Popen(
                [self.python, str(ZYGOTE), "--mode", self.mode],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errlog,
            )
        except OSError as exc:
            raise PinError(
                f"cannot start the proof interpreter {self.python!r}: {exc}; "
                "fix: set the plugin's `python` option or LDR_PYTHON to a Python with torch"
            ) from exc
        line = self._readline(HELLO_TIMEOUT)
        if not line:
            raise LdrError(f"the proof interpreter {self.python} exited at start: {self._stderr_tail()}")
        self.hello = json.loads(line)["hello"]
        if "error" in self.hello:
            self.close()
            raise PinError(
                f"the proof interpreter {self.python} cannot import torch ({self.hello['error']}); "
                f"fix: `{self.python} -m pip install torch=={self.pin or '<pin>'}`"
            )
        if self.pin and not matches_pin(self.hello["torch"], self.pin):
            found = self.hello["torch"]
            self.close()
            raise PinError(
                f"proofs must run under torch {self.pin} (pinned in pyproject.toml) but "
                f"{self.python} has torch {found}; fix: `{self.python} -m pip install "
                f"torch=={self.pin}`, or point LDR_PYTHON (or the plugin's `python` option) at an "
                "interpreter that has it"
            )
        return self.hello

    def close(self) -> None:
        if self.proc is None:
            return
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            if self.proc.stdout:
                self.proc.stdout.close()
            self.proc = None

    def __enter__(self) -> "Runner":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- I/O -------------------------------------------------------------------
    def _stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        self._errlog.seek(0)
        return decode(self._errlog.read()[-2000:]).strip()

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
                raise LdrError(f"the proof interpreter did not answer within {timeout:.0f} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                line, self._inbuf = self._inbuf, b""
                return line
            self._inbuf += chunk
        line, self._inbuf = self._inbuf.split(b"\n", 1)
        return line + b"\n"

    def _submit(self, job: Job, cwd: str) -> int:
        assert self.proc and self.proc.stdin
        self._next_id += 1
        request = {"id": self._next_id, "script": str(Path(job.script).resolve()), "cwd": cwd,
                   "timeout": job.timeout, "cap": job.cap, "env": job.env or {}}
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        return self._next_id

    # -- running ---------------------------------------------------------------
    def run(self, jobs: Iterable[Job], slots: int | None = None,
            on_start: Callable[[Job], None] | None = None,
            on_done: Callable[[RunResult], None] | None = None) -> list[RunResult]:
        """Run jobs: parallel-safe ones side by side on ``slots`` cores, then every other
        one alone, so that no timing proof shares the machine with another proof."""
        self.start()
        jobs = list(jobs)
        slots = max(1, slots or os.cpu_count() or 1)
        waves = [([j for j in jobs if j.parallel], slots), ([j for j in jobs if not j.parallel], 1)]
        results: dict[str, RunResult] = {}
        for wave, width in waves:
            pending = list(wave)
            running: dict[int, tuple[Job, str, float]] = {}
            while pending or running:
                while pending and len(running) < width:
                    job = pending.pop(0)
                    cwd = tempfile.mkdtemp(prefix=f"ldr-{job.name}-")
                    if on_start:
                        on_start(job)
                    running[self._submit(job, cwd)] = (job, cwd, time.monotonic())
                longest = max(j.timeout for j, _, _ in running.values()) + 60
                line = self._readline(longest)
                if not line:
                    raise LdrError(
                        f"the proof interpreter died while running "
                        f"{', '.join(j.name for j, _, _ in running.values())}: {self._stderr_tail()}"
                    )
                reply = json.loads(line)
                job, cwd, _ = running.pop(reply["id"])
                shutil.rmtree(cwd, ignore_errors=True)
                result = RunResult(
                    name=job.name, status=reply["status"], returncode=reply["returncode"],
                    signal=reply["signal"], wall_s=reply["wall_s"],
                    stdout=decode(base64.b64decode(reply["stdout"])),
                    stderr=decode(base64.b64decode(reply["stderr"])),
                )
                results[job.name] = result
                if on_done:
                    on_done(result)
        return [results[j.name] for j in jobs]

    def probe(self) -> dict:
        """Machine, OS, CPU and accelerator, measured once in a child of the host."""
        if self._probe is None:
            result = self.run([Job("probe", PROBE, timeout=120, cap=1 << 16)])[0]
            for line in result.stdout.splitlines():
                if line.startswith("PROBE="):
                    self._probe = json.loads(line[len("PROBE="):])
                    break
            else:
                raise LdrError(f"the device probe failed ({result.describe()}): {result.stderr[-800:]}")
        return self._probe


_SHARED: dict[tuple, Runner] = {}


def shared_runner(python: str | None, pin: str | None, mode: str | None) -> Runner:
    """One proof host per interpreter for the life of this process, so that `mkdocs serve`
    rebuilds reuse the warm host instead of importing torch again."""
    key = (python or os.environ.get("LDR_PYTHON") or sys.executable, pin, mode)
    runner = _SHARED.get(key)
    if runner is None:
        runner = _SHARED[key] = Runner(*key)
    return runner


@atexit.register
def _close_shared() -> None:
    for runner in _SHARED.values():
        runner.close()
    _SHARED.clear()
