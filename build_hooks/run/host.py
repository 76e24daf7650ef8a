"""The proof host: imports torch once, then runs each proof in a child process.

Run as a script (``python host.py --mode fork|spawn --work DIR [--no-torch]``) by the
interpreter that proofs must use; it imports nothing from this package. With ``--no-torch``
(proofs that never import torch) it imports no torch and its hello names none. Protocol, one
JSON object per line:

* host -> parent, once: ``{"hello": {"torch": "2.13.0+cpu", "python": ..., "mode": ...,
  "site": [site-packages folders], "home": ...}}`` (or ``{"hello": {"error": "..."}}``);
* parent -> host: ``{"id": 1, "name": "x", "script": "/abs/proofs/x.py", "display":
  "proofs/x.py", "timeout": 120, "cap": 1048576, "env": {...}, "unset": [...], "backstop":
  null|5}`` (``env`` is set and ``unset`` removed in the proof's environment, over the host's
  own; ``backstop``: the clock's limit in timeouts, default timeouts.BACKSTOP);
* host -> parent: ``{"id": 1, "status": "ok|failed|timeout|killed|output-limit",
  "returncode": int|null, "signal": int|null, "wall_s": float, "cwd": "/tmp/ldr-../x-..",
  "leftovers": int, "held": bool, "cpu_s": float|null, "hit": "cpu|wall"|null, "stdout":
  base64, "stderr": base64}``.

In fork mode each child is forked from this process, which has imported torch but never
runs a torch op: a child forked after a multithreaded op would hang. Each proof's child is
forked when its request comes and reads it from a pipe (``_spare``). (Forking the next child
ahead, while the current proof runs, cost more CPU than it saved: bench/bench_machinery.py
measured cold builds 7 to 11 % cheaper without it.) The loop is single threaded for the same
reason. Spawn mode starts ``python child.py REQUEST`` instead
(slower, for platforms where forking a torch process is unsafe); both run the proof through
``child.run_proof``, so both behave alike.

What a proof starts never outlives it. Each proof leads its own process group, which is
killed when the proof ends. For processes that left the group (``setsid``, double forks) on
Linux, the host and every proof are child subreapers (``prctl(PR_SET_CHILD_SUBREAPER)``): an
orphan is adopted by the nearest living proof, and once that proof has died, by the host. So
a child of the host that is not a running proof belongs to a proof that has ended; the host
kills those whenever no proof is running (a cheap ``waitpid`` tells whether there are any; only
then is ``/proc`` scanned for their ids), or when such a process still holds a proof's pipes
``GRACE`` seconds after the proof ended, after which the host stops waiting on the pipes. The
host ends, killing every proof and what they started, when its stdin closes (the parent
closed it, or died, even by SIGKILL) or on SIGTERM; it ignores SIGINT, which the parent
handles. (No ``PR_SET_PDEATHSIG`` for the host itself: it fires when the *thread* that
started the host exits, and `mkdocs serve` starts it from a short-lived thread.) Proofs get
``PR_SET_PDEATHSIG`` so that they die with the host even if it is killed. Off Linux only the
process group is killed.

How a proof process runs its script (faulthandler, line-buffered output, its own frames in
tracebacks, relative names): see child.py. What a timeout counts (the proof's CPU time, never
more than its clock time, with a clock backstop for a proof that waits): see timeouts.py. At a
timeout the host sends ``DUMP_SIGNAL``, which makes faulthandler print where the proof hangs,
then ``DUMP_WAIT`` s later SIGKILL; the reply says which limit it reached (``hit``: cpu or wall)
and the CPU time it used (``cpu_s``).
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

HOST_FILE = os.path.abspath(__file__)
PROOF_FILE = os.path.join(os.path.dirname(HOST_FILE), "child.py")


def _load(name: str):
    """A sibling module (child.py, timeouts.py), under a private name: never a proof's sibling
    module of the same name."""
    import importlib.util

    path = os.path.join(os.path.dirname(HOST_FILE), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_ldr_{name}", path)
    assert spec is not None and spec.loader is not None  # a .py file path always has both
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_child, _timeouts = _load("child"), _load("timeouts")
run_proof, finish, _prctl = _child.run_proof, _child.finish, _child._prctl
DUMP_SIGNAL, PR_SET_CHILD_SUBREAPER = _child.DUMP_SIGNAL, _child.PR_SET_CHILD_SUBREAPER
DUMP_WAIT = 0.5  # seconds between the stack dump and SIGKILL at a timeout
DUMP_ROOM = 1 << 16  # stderr bytes allowed past the cap for that dump
GRACE = 1.5  # seconds the host waits on a finished proof's pipes held by what it started


def proof_environment(environ, request: dict):
    """``environ`` (the host's, or a copy) made the proof's: the request's ``unset`` names
    removed, its ``env`` set."""
    for name in request.get("unset") or ():
        environ.pop(name, None)
    environ.update(request.get("env") or {})
    return environ


def _kill(pid: int, group: bool = False) -> None:
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


def _spare(control: int, out_w: int, err_w: int) -> None:
    """In a freshly forked child (fork mode): read the request on ``control``, then become the
    proof, as the parent would have. Exits quietly when ``control`` closes with no request (the
    host retired it, ended or died)."""
    code = 0
    try:
        os.setpgid(0, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        if control != 3:
            os.dup2(control, 3)
        os.closerange(4, 1 << 16)
        data = b""
        while not data.endswith(b"\n"):
            chunk = os.read(3, 1 << 16)
            if not chunk:
                os._exit(0)
            data += chunk
        os.close(3)
        request = json.loads(data)
        code = 1
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir(request["cwd"])
        proof_environment(os.environ, request)
        code = run_proof(request)
    except BaseException:
        pass
    finally:
        finish(code)


# -- the host side ----------------------------------------------------------------------
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


class Host:
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

    def make_spare(self) -> None:
        """Fork a proof's process, which waits on a pipe for its request (``hand_over``)."""
        if self.mode != "fork" or self.spare is not None or self.stopping:
            return
        control_r, control_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self.out.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _spare(control_r, out_w, err_w)
        try:  # the child does it too; whichever runs first, its group exists at once
            os.setpgid(pid, pid)
        except OSError:
            pass
        for fd in (control_r, out_w, err_w):
            os.close(fd)
        self.spare = (pid, control_w, out_r, err_r)

    def hand_over(self, request: dict) -> tuple[int, int, int]:
        """Give ``request`` to the spare (made now if there is none, or if it died waiting):
        its pid and its output pipes."""
        data = json.dumps(request).encode() + b"\n"
        for _ in range(3):
            if self.spare is not None:
                try:
                    gone = os.waitpid(self.spare[0], os.WNOHANG)[0] != 0
                except ChildProcessError:
                    gone = True
                if gone:  # reaped just now: its pid may be anyone's soon, so no kill
                    self.retire_spare(kill=False)
            self.make_spare()
            assert self.spare is not None  # the host hands over only in fork mode, before it stops
            pid, control, out_r, err_r = self.spare
            try:
                rest = data
                while rest:
                    rest = rest[os.write(control, rest):]
            except OSError:  # it died just now (not reaped yet, so the kill is safe): fork another
                self.retire_spare()
                continue
            self.spare = None
            os.close(control)
            return pid, out_r, err_r
        raise OSError("could not hand a proof to a new process three times")

    def retire_spare(self, kill: bool = True) -> None:
        if self.spare is not None:
            pid, control, out_r, err_r = self.spare
            self.spare = None
            for fd in (control, out_r, err_r):
                os.close(fd)  # the spare reads end-of-file and exits
            if kill:
                _kill(pid)

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
        _kill(job.pid, group=True)
        _kill(job.pid)

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
            _kill(pid, group=True)
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
            _kill(pid)
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
                _kill(pid)
            time.sleep(0.01)
        shutil.rmtree(self.work, ignore_errors=True)


def site_folders() -> list[str]:
    import site
    import sysconfig

    folders = {sysconfig.get_paths().get(k) for k in ("purelib", "platlib")}
    try:
        folders.update(site.getsitepackages())
    except AttributeError:  # some virtualenvs
        pass
    return sorted(f for f in folders if f)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "fork"
    work = sys.argv[sys.argv.index("--work") + 1] if "--work" in sys.argv else tempfile.mkdtemp(prefix="ldr-")
    import faulthandler

    faulthandler.enable()  # a crash of the host itself shows in the parent's error
    hello = {"python": sys.version.split()[0], "executable": sys.executable, "mode": mode,
             "site": site_folders(), "home": os.path.expanduser("~")}
    try:
        if "--no-torch" not in sys.argv:
            import torch  # noqa: F401  (imported once, so that forked proofs start warm)

            hello["torch"] = torch.__version__
    except BaseException as exc:  # report, do not crash: the parent names the fix
        hello["error"] = f"{type(exc).__name__}: {exc}"
    sys.stdout.buffer.write(json.dumps({"hello": hello}).encode() + b"\n")
    sys.stdout.buffer.flush()
    if "error" in hello:
        shutil.rmtree(work, ignore_errors=True)
        return
    Host(mode, work).loop()
    # Everything is cleaned up (loop() ends with shutdown()): skip the interpreter's own
    # teardown of torch, which takes 0.4 s here, and which every build would wait for.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
