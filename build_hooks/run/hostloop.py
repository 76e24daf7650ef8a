"""Inside the proof host: its event loop (:class:`Host`), one :class:`Job` per running proof.

The loop is single threaded: it reads requests on stdin and each proof's output, reaps what
ends, enforces the timeouts (timeouts.py), counts and kills what a proof left running
(processes.py), and replies one JSON object per proof; the protocol and why it is built so are
in host.py. In fork mode each proof's process comes from a spare (spare.py); spawn mode starts
``python child.py REQUEST``.

Standalone: imports nothing from this package but its siblings (the proof host loads them by
path, see host.py).
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import shutil
import signal
import sys
import tempfile
import time

from . import timeouts as _timeouts
from .child import DUMP_SIGNAL, PR_SET_CHILD_SUBREAPER, _prctl
from .processes import children_of, group_of, sigkill
from .spare import SpareFork, proof_environment

PROOF_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
DUMP_WAIT = 0.5  # seconds between the stack dump and SIGKILL at a timeout
DUMP_ROOM = 1 << 16  # stderr bytes allowed past the cap for that dump
GRACE = 1.5  # seconds the host waits on a finished proof's pipes held by what it started


class Job:
    def __init__(self, request: dict, pid: int, cwd: str, out_fd: int, err_fd: int):
        self.id = request["id"]
        self.pid, self.cwd = pid, cwd
        self.cap = int(request.get("cap", 1 << 20))
        self.timeout = float(request.get("timeout", 120))
        self.backstop = float(request.get("backstop") or _timeouts.BACKSTOP)  # times the timeout, on the clock
        self.begun = time.monotonic()
        self.deadline = self.begun + self.timeout  # the next look at its time (timeouts.py)
        self.hit: str | None = None  # the limit a timeout reached: cpu or wall
        self.cpu: float | None = None  # CPU seconds, read at a check or at its end
        self.kill_at: float | None = None  # set when the stack dump has been asked for
        self.grace_until: float | None = None  # set when the proof's process has ended
        self.started = time.perf_counter()
        self.wall = 0.0
        self.out_fd, self.err_fd = out_fd, err_fd
        self.fds = {out_fd: bytearray(), err_fd: bytearray()}
        self.status: str | None = None  # set early for timeout / output-limit
        self.wait_status: int | None = None
        self.leftovers = 0
        self.held = False


class Host(SpareFork):
    def __init__(self, mode: str, work: str):
        self.mode = mode
        self.work = work
        self.sel = selectors.DefaultSelector()
        self.jobs: list[Job] = []
        self.live: dict[int, Job] = {}  # pid -> job, for proofs whose process still runs
        self.by_fd: dict[int, Job] = {}
        self.suspects: list[Job] = []  # ended proofs that may have left processes behind
        self.killed: set[int] = set()  # what they left, already sent SIGKILL
        self.inbuf = b""
        self.stopping = False
        self.spare: tuple[int, int, int, int] | None = None  # (pid, control, out_r, err_r): _spare
        self.out = sys.stdout.buffer
        wake_r, wake_w = os.pipe()
        for fd in (wake_r, wake_w):
            os.set_blocking(fd, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        signal.set_wakeup_fd(wake_w)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        self.wake_r = wake_r
        self.sel.register(0, selectors.EVENT_READ, "stdin")
        self.sel.register(wake_r, selectors.EVENT_READ, "wake")

    def send(self, obj: dict) -> None:
        self.out.write(json.dumps(obj).encode() + b"\n")
        self.out.flush()

    def start(self, request: dict) -> None:
        cwd = os.path.realpath(tempfile.mkdtemp(prefix=f"{request.get('name', 'proof')}-", dir=self.work))
        request = dict(request, cwd=cwd, host=os.getpid())
        if self.mode == "fork":
            pid, out_r, err_r = self.hand_over(request)
            job = Job(request, pid, cwd, out_r, err_r)
            self.register(job)
            return
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        import subprocess  # spawn mode

        env = proof_environment(dict(os.environ), request)
        proc = subprocess.Popen(
            [sys.executable, PROOF_FILE, json.dumps(request)], cwd=cwd, env=env,
            stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w, start_new_session=True,
        )
        pid = proc.pid
        proc.returncode = 0  # we reap it ourselves; stop Popen from trying
        os.close(out_w)
        os.close(err_w)
        self.register(Job(request, pid, cwd, out_r, err_r))

    def register(self, job: Job) -> None:
        self.jobs.append(job)
        self.live[job.pid] = job
        for fd in (job.out_fd, job.err_fd):
            self.by_fd[fd] = job
            self.sel.register(fd, selectors.EVENT_READ, "job")

    def kill(self, job: Job, status: str) -> None:
        if job.status is None:
            job.status = status
        job.kill_at = float("inf")
        sigkill(job.pid, group=True)
        sigkill(job.pid)

    def close_fd(self, fd: int) -> None:
        self.sel.unregister(fd)
        os.close(fd)
        del self.by_fd[fd]

    def read_job(self, fd: int) -> None:
        job = self.by_fd[fd]
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            self.close_fd(fd)
            return
        room = job.cap - sum(len(b) for b in job.fds.values())
        if fd == job.err_fd and job.status == "timeout":
            room += DUMP_ROOM
        job.fds[fd] += chunk[: max(room, 0)]
        if len(chunk) > room and job.status is None:
            self.kill(job, "output-limit")

    def reap(self) -> None:
        reaped = False
        while True:
            try:
                pid, wait_status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                self.suspects.clear()  # no child at all: nothing was left behind
                self.killed.clear()
                return
            if pid == 0:
                break
            reaped = True
            job = self.live.pop(pid, None)
            if job is None:
                if self.spare is not None and pid == self.spare[0]:  # it died waiting
                    self.retire_spare(kill=False)  # reaped: its pid may be anyone's now
                continue  # something a proof left behind, now gone
            job.wall = time.perf_counter() - job.started
            job.wait_status = wait_status
            # its threads and the children it waited for, or its group's at the last check if more
            job.cpu = max(usage.ru_utime + usage.ru_stime, job.cpu or 0.0)
            job.grace_until = time.monotonic() + GRACE
            # The rest of its process group goes with it: counted first, each one, since the
            # sweep below only sees those not dead yet (of 200 sleepers, a handful).
            group = [member for member in group_of(pid) if member not in self.killed]
            sigkill(pid, group=True)
            self.killed.update(group)
            if job.status is None:  # it ended by itself: what remains of its group, it left
                job.leftovers += len(group)
            self.suspects.append(job)
        if reaped and self.suspects and not self.live:
            self.sweep()  # children remain and no proof runs: all of them were left behind

    def sweep(self) -> None:
        """Kill the host's children that are not running proofs: what ended proofs left."""
        spare = self.spare[0] if self.spare is not None else None
        left = [pid for pid in children_of(os.getpid())
                if pid not in self.live and pid not in self.killed and pid != spare]
        for pid in left:
            sigkill(pid)
        self.killed.update(left)
        for job in self.suspects:
            if job in self.jobs:  # not reported yet (in a parallel wave, maybe not its own)
                job.leftovers += len(left)

    def tick(self, now: float) -> float | None:
        """Act on due deadlines; return the seconds until the next one (None: no deadline)."""
        due = []
        for job in self.jobs:
            if job.wait_status is None:
                if job.kill_at is None and now >= job.deadline and self.over_time(job, now):
                    job.status = job.status or "timeout"
                    job.kill_at = now + DUMP_WAIT
                    try:
                        os.kill(job.pid, DUMP_SIGNAL)
                    except (ProcessLookupError, PermissionError):
                        pass
                elif job.kill_at is not None and now >= job.kill_at:
                    self.kill(job, "timeout")
                due.append(job.deadline if job.kill_at is None else job.kill_at)
            elif self.open_fds(job):
                grace_until = job.grace_until
                assert grace_until is not None  # set with wait_status, when the process ended
                if now >= grace_until:
                    self.sweep()
                    for fd in self.open_fds(job):
                        self.close_fd(fd)
                    job.held = True
                else:
                    due.append(grace_until)
        soonest = min((t for t in due if t != float("inf")), default=None)
        return None if soonest is None else max(0.0, soonest - now)

    def over_time(self, job: Job, now: float) -> bool:
        """Whether ``job`` has reached its limit (timeouts.py); if not, when to look again."""
        wall = now - job.begun
        job.cpu = _timeouts.cpu_seconds([job.pid, *(p for p in group_of(job.pid) if p != job.pid)])
        job.hit = _timeouts.verdict(wall, job.cpu, job.timeout, job.backstop)
        if job.hit is None:
            job.deadline = now + _timeouts.next_check(wall, job.cpu or 0.0, job.timeout, backstop=job.backstop)
        return job.hit is not None

    def open_fds(self, job: Job) -> list[int]:
        return [fd for fd in (job.out_fd, job.err_fd) if fd in self.by_fd]

    def finish_ready(self) -> None:
        for job in list(self.jobs):
            if job.wait_status is None or self.open_fds(job):
                continue
            self.jobs.remove(job)
            returncode = sig = None
            if os.WIFSIGNALED(job.wait_status):
                sig = os.WTERMSIG(job.wait_status)
            else:
                returncode = os.WEXITSTATUS(job.wait_status)
            status = job.status or ("ok" if returncode == 0 else "failed" if sig is None else "killed")
            shutil.rmtree(job.cwd, ignore_errors=True)  # gone before the parent hears of the end
            self.send({
                "id": job.id, "status": status, "returncode": returncode, "signal": sig,
                "wall_s": round(job.wall, 6), "cwd": job.cwd, "leftovers": job.leftovers,
                "held": job.held, "cpu_s": None if job.cpu is None else round(job.cpu, 3),
                "hit": job.hit if status == "timeout" else None,
                "stdout": base64.b64encode(bytes(job.fds[job.out_fd])).decode(),
                "stderr": base64.b64encode(bytes(job.fds[job.err_fd])).decode(),
            })

    def read_stdin(self) -> None:
        chunk = os.read(0, 1 << 16)
        if not chunk:  # the parent closed us, or died: stop everything
            self.stopping = True
            return
        self.inbuf += chunk
        while b"\n" in self.inbuf:
            line, self.inbuf = self.inbuf.split(b"\n", 1)
            if line.strip():
                self.start(json.loads(line))

    def loop(self) -> None:
        try:
            while not self.stopping:
                timeout = self.tick(time.monotonic())
                for key, _ in self.sel.select(timeout):
                    if key.data == "stdin":
                        self.read_stdin()
                    elif key.data == "wake":
                        try:
                            while os.read(self.wake_r, 512):
                                pass
                        except BlockingIOError:
                            pass
                    else:
                        self.read_job(key.fd)
                self.reap()
                self.finish_ready()
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        """Kill every proof and everything they started; remove their folders."""
        self.retire_spare()
        for job in self.live.values():
            self.kill(job, "killed")
        give_up = time.monotonic() + 5
        while time.monotonic() < give_up:
            try:
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            except ChildProcessError:
                break
            for pid in children_of(os.getpid()):
                sigkill(pid)
            time.sleep(0.01)
        shutil.rmtree(self.work, ignore_errors=True)
