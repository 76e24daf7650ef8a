"""Running proofs: one process per proof, hosted by a warm interpreter (see host.py; the
parent's side of that process is hostprocess.py).

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
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.run.hostprocess import HOST, HostProcess, HostSilent
from build_hooks.run.results import Job, RunResult, decode, neutral
from build_hooks.run.timeouts import BACKSTOP

HERE = Path(__file__).resolve().parent
CHILD = HERE / "child.py"
PROBE = HERE / "probe.py"
SLACK = 20.0  # seconds past a proof's timeout (plus the host's own grace) before the host counts as stuck
DUMP_WAIT, GRACE = 0.5, 1.5  # as in hostloop.py
# the host's own files (host.py, the siblings it loads and child.py): frames left out of dumps
HOST_FILES = (HOST, *(HERE / f"{name}.py" for name in ("hostloop", "spare", "processes")), CHILD)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM turned into it) during a run; ``running`` names the proofs stopped."""

    def __init__(self, running: list[str]):
        super().__init__(f"interrupted while running {', '.join(running) or 'no proof'}")
        self.running = running


def without_host_frames(text: str) -> str:
    """Drop the host's own frames from faulthandler dumps: they show where the proof was
    forked or started, under this machine's path."""
    markers = [f'File "{path}"' for path in HOST_FILES if f'File "{path}"' in text]
    if not markers:
        return text
    return "".join(line for line in text.splitlines(True) if not any(m in line for m in markers))


class Runner(HostProcess):
    """Runs proofs on a proof host (hostprocess.py); start it once, run many batches, close
    it."""

    def __init__(self, python: str | None = None, pin: str | None = None, mode: str | None = None,
                 torch: bool = True):
        super().__init__(python, pin, mode, torch)
        self._probe: dict | None = None
        self._next_id = 0

    def __enter__(self) -> Runner:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

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
