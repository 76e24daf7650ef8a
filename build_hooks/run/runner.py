"""Running proofs: one process per proof, hosted by a warm interpreter (see host.py).

The runner is never left in a broken state: when the host dies, stays silent past a running
proof's clock backstop (timeouts.py; plus the host's grace and ``SLACK``), answers for an unknown proof, or the
run is interrupted (Ctrl-C),
the host is stopped (which kills every proof and what it started) and the error names the
proofs that were running; the next run starts a fresh host. Output comes back with this
machine's paths made neutral: the proof's temporary folder reads ``.``, the project root is
dropped (``proofs/x.py``), site-packages folders read ``site-packages``, home reads ``~``.
"""

from __future__ import annotations

import atexit
import base64
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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from build_hooks.core.errors import LdrError, PinError
from build_hooks.core.textsafe import printable
from build_hooks.proofs.pin import matches_pin
from build_hooks.run.results import Job, RunResult, decode, neutral
from build_hooks.run.timeouts import BACKSTOP

HERE = Path(__file__).resolve().parent
HOST = HERE / "host.py"
CHILD = HERE / "child.py"
PROBE = HERE / "probe.py"
HELLO_TIMEOUT = 180.0
SLACK = 20.0  # seconds past a proof's timeout (plus the host's own grace) before the host counts as stuck
DUMP_WAIT, GRACE = 0.5, 1.5  # as in host.py


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM turned into it) during a run; ``running`` names the proofs stopped."""

    def __init__(self, running: list[str]):
        super().__init__(f"interrupted while running {', '.join(running) or 'no proof'}")
        self.running = running


def without_host_frames(text: str) -> str:
    """Drop the host's own frames from faulthandler dumps: they show where the proof was
    forked or started, under this machine's path."""
    markers = [f'File "{path}"' for path in (HOST, CHILD) if f'File "{path}"' in text]
    if not markers:
        return text
    return "".join(line for line in text.splitlines(True) if not any(m in line for m in markers))


def default_mode() -> str:
    return "fork" if sys.platform.startswith("linux") else "spawn"


class HostSilent(Exception):
    """The host sent nothing within the time it had."""


class Runner:
    """A proof host process; start it once, run many batches, close it. ``torch``: the host
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
        self._probe: dict | None = None
        self._next_id = 0
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

    def __enter__(self) -> Runner:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

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

    def _submit(self, job: Job) -> int:
        assert self.proc and self.proc.stdin
        self._next_id += 1
        # Absolute but not resolved, as the folder options are: a proofs/ reached through a
        # symlink still reads `proofs/x.py` in tracebacks.
        script = Path(os.path.abspath(job.script))
        root = Path(os.path.abspath(job.root)) if job.root else None
        display = job.display
        if display is None:
            display = script.relative_to(root).as_posix() if root and script.is_relative_to(root) else script.name
        request = {"id": self._next_id, "name": job.name, "script": str(script), "display": display,
                   "timeout": job.timeout, "cap": job.cap, "env": job.env or {}, "backstop": job.backstop}
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        return self._next_id

    def _result(self, job: Job, reply: dict) -> RunResult:
        folders = [(reply.get("cwd") or "", "."), (str(job.root or ""), "")]
        folders += [(folder, "site-packages") for folder in self.hello.get("site", [])]
        folders.append((self.hello.get("home") or "", "~"))
        text = lambda key: neutral(decode(base64.b64decode(reply[key])), folders)  # noqa: E731
        return RunResult(
            name=job.name, status=reply["status"], returncode=reply["returncode"],
            signal=reply["signal"], wall_s=reply["wall_s"], stdout=text("stdout"),
            stderr=without_host_frames(text("stderr")), limit=job.timeout,
            leftovers=reply.get("leftovers", 0), cpu_s=reply.get("cpu_s"), hit=reply.get("hit"),
        )

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
        running: dict[int, tuple[Job, float]] = {}  # id -> job, the latest moment its reply is due
        try:
            for wave, width in waves:
                pending = list(wave)
                while pending or running:
                    self._fill(pending, width, running, on_start)
                    job, reply = self._answered(running)
                    result = results[job.name] = self._result(job, reply)
                    # the next proof starts while this one's record is written
                    self._fill(pending, width, running, on_start)
                    if on_done:
                        on_done(result)
        except HostSilent:
            names = self._names(running)
            self.close(wait=0)
            raise LdrError(f"the proof interpreter stopped answering while running {names} (past "
                           "its timeout and grace); it was stopped, and the next run starts a fresh "
                           "one") from None
        except KeyboardInterrupt as exc:
            stopped = [job.name for job, _ in running.values() if job.script != PROBE]
            self.close(wait=0)
            raise Interrupted(stopped) from exc
        except BaseException:
            self.close(wait=0)
            raise
        return [results[j.name] for j in jobs]

    def _fill(self, pending: list[Job], width: int, running: dict[int, tuple[Job, float]],
              on_start: Callable[[Job], None] | None) -> None:
        """Start pending jobs, in order, until ``width`` of them run at once."""
        while pending and len(running) < width:
            job = pending.pop(0)
            if on_start:
                on_start(job)
            due = time.monotonic() + (job.backstop or BACKSTOP) * job.timeout + DUMP_WAIT + GRACE + SLACK
            running[self._submit(job)] = (job, due)

    def _answered(self, running: dict[int, tuple[Job, float]]) -> tuple[Job, dict]:
        """The host's next reply and the running job it is for, taken out of ``running``."""
        soonest = min(due for _, due in running.values())
        line = self._readline(max(0.0, soonest - time.monotonic()))
        if not line:
            raise LdrError(f"the proof interpreter died while running {self._names(running)}: "
                           f"{self._stderr_tail() or 'it printed nothing'}")
        reply = json.loads(line)
        if reply.get("id") not in running:
            raise LdrError(f"the proof interpreter answered for no running proof (id "
                           f"{reply.get('id')!r}) while running {self._names(running)}")
        job, _ = running.pop(reply["id"])
        return job, reply

    @staticmethod
    def _names(running: dict) -> str:
        return ", ".join(job.name for job, _ in running.values()) or "no proof"

    def probe(self) -> dict:
        """Machine, OS, CPU and accelerator, measured once in a child of the host."""
        if self._probe is None:
            env = {"LDR_PROBE_TORCH": "1" if self.torch else "0"}  # a host without torch: no torch here either
            result = self.run([Job("probe", PROBE, timeout=120, cap=1 << 16, env=env)])[0]
            for line in result.stdout.splitlines():
                if line.startswith("PROBE="):
                    self._probe = json.loads(line[len("PROBE="):])
                    break
            else:
                raise LdrError(f"the device probe failed ({result.describe()}): {result.stderr[-800:]}")
        return self._probe


_SHARED: dict[tuple, Runner] = {}
_SHARED_LOCK = threading.Lock()  # the plugin may start the host early, from another thread


def shared_runner(python: str | None, pin: str | None, mode: str | None, torch: bool = True) -> Runner:
    """One proof host per interpreter (and per need of torch) for the life of this process, so
    that `mkdocs serve` rebuilds reuse the warm host instead of importing torch again."""
    key = (python or os.environ.get("LDR_PYTHON") or sys.executable, pin, mode, torch)
    with _SHARED_LOCK:
        runner = _SHARED.get(key)
        if runner is None:
            runner = _SHARED[key] = Runner(*key)
    return runner


@atexit.register
def _close_shared() -> None:
    for runner in _SHARED.values():
        runner.close()
    _SHARED.clear()
