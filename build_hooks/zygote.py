"""The proof host: imports torch once, then runs each proof in a child process.

Run as a script (``python zygote.py --mode fork|spawn``) by the interpreter that proofs
must use; it imports nothing from this package. Protocol, one JSON object per line:

* host -> parent, once: ``{"hello": {"torch": "2.13.0+cpu", "python": ..., "mode": ...}}``
  (or ``{"hello": {"error": "..."}}`` when torch cannot be imported);
* parent -> host: ``{"id": 1, "script": "/abs/x.py", "cwd": "/tmp/..", "timeout": 120,
  "cap": 1048576, "env": {...}}``;
* host -> parent: ``{"id": 1, "status": "ok|failed|timeout|killed|output-limit",
  "returncode": int|null, "signal": int|null, "wall_s": float,
  "stdout": base64, "stderr": base64}``.

In fork mode each child is forked from this process, which has imported torch but never
runs a torch op: a child forked after a multithreaded op would hang. The loop is single
threaded for the same reason. Spawn mode starts ``python script`` instead (slower, for
platforms where forking a torch process is unsafe).
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import signal
import sys
import time


class Job:
    def __init__(self, request: dict, pid: int, out_fd: int, err_fd: int):
        self.id = request["id"]
        self.pid = pid
        self.cap = int(request.get("cap", 1 << 20))
        self.deadline = time.monotonic() + float(request.get("timeout", 120))
        self.started = time.perf_counter()
        self.wall = None
        self.fds = {out_fd: bytearray(), err_fd: bytearray()}
        self.out_fd, self.err_fd = out_fd, err_fd
        self.open = {out_fd, err_fd}
        self.status = None  # set early for timeout / output-limit
        self.wait_status = None

    def size(self) -> int:
        return sum(len(b) for b in self.fds.values())


def _child(request: dict, out_w: int, err_w: int) -> None:
    """In the forked child: become the proof. Never returns."""
    code = 1
    try:
        os.setpgid(0, 0)
        for sig in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.closerange(3, 1 << 16)
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace",
                          closefd=False, buffering=1)
        os.chdir(request["cwd"])
        os.environ.update(request.get("env") or {})
        import atexit

        atexit._clear()  # the host's handlers (torch registers some) are not the proof's
        script = request["script"]
        sys.argv = [script]
        sys.path[0] = os.path.dirname(script)
        import runpy

        try:
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:  # the proof's own failure: report it like python would
            import traceback

            traceback.print_exc()
            code = 1
        try:
            atexit._run_exitfuncs()
        except BaseException:
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        os._exit(code & 0xFF if isinstance(code, int) else 1)


class Host:
    def __init__(self, mode: str):
        self.mode = mode
        self.sel = selectors.DefaultSelector()
        self.jobs: dict[int, Job] = {}
        self.by_fd: dict[int, Job] = {}
        self.inbuf = b""
        self.stdin_open = True
        self.out = sys.stdout.buffer
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        os.set_blocking(wake_r, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, _terminate)
        signal.set_wakeup_fd(wake_w)
        self.wake_r = wake_r
        self.sel.register(0, selectors.EVENT_READ, "stdin")
        self.sel.register(wake_r, selectors.EVENT_READ, "wake")

    def send(self, obj: dict) -> None:
        self.out.write(json.dumps(obj).encode() + b"\n")
        self.out.flush()

    def start(self, request: dict) -> None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self.out.flush()
        sys.stderr.flush()
        if self.mode == "fork":
            pid = os.fork()
            if pid == 0:
                os.close(out_r)
                os.close(err_r)
                _child(request, out_w, err_w)
        else:
            import subprocess

            env = dict(os.environ, **(request.get("env") or {}))
            proc = subprocess.Popen(
                [sys.executable, request["script"]], cwd=request["cwd"], env=env,
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w, start_new_session=True,
            )
            pid = proc.pid
            proc.returncode = 0  # we reap it ourselves; stop Popen from trying
        os.close(out_w)
        os.close(err_w)
        job = Job(request, pid, out_r, err_r)
        self.jobs[pid] = job
        for fd in (out_r, err_r):
            self.by_fd[fd] = job
            self.sel.register(fd, selectors.EVENT_READ, "job")

    def kill(self, job: Job, status: str) -> None:
        if job.status is None:
            job.status = status
        try:
            os.killpg(job.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def read_job(self, fd: int) -> None:
        job = self.by_fd[fd]
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            self.sel.unregister(fd)
            os.close(fd)
            job.open.discard(fd)
            del self.by_fd[fd]
            return
        room = job.cap - job.size()
        job.fds[fd] += chunk[: max(room, 0)]
        if len(chunk) > room:
            self.kill(job, "output-limit")

    def reap(self) -> None:
        while True:
            try:
                pid, wait_status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs.get(pid)
            if job is None:
                continue
            job.wall = time.perf_counter() - job.started
            job.wait_status = wait_status
            try:  # leftovers of the proof (its own children) go with it
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def finish_ready(self) -> None:
        for pid, job in list(self.jobs.items()):
            if job.wait_status is None or job.open:
                continue
            del self.jobs[pid]
            returncode = sig = None
            if os.WIFSIGNALED(job.wait_status):
                sig = os.WTERMSIG(job.wait_status)
            else:
                returncode = os.WEXITSTATUS(job.wait_status)
            status = job.status or ("ok" if returncode == 0 else "failed" if sig is None else "killed")
            self.send({
                "id": job.id, "status": status, "returncode": returncode, "signal": sig,
                "wall_s": round(job.wall, 6),
                "stdout": base64.b64encode(bytes(job.fds[job.out_fd])).decode(),
                "stderr": base64.b64encode(bytes(job.fds[job.err_fd])).decode(),
            })

    def read_stdin(self) -> None:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            self.stdin_open = False
            self.sel.unregister(0)
            return
        self.inbuf += chunk
        while b"\n" in self.inbuf:
            line, self.inbuf = self.inbuf.split(b"\n", 1)
            if line.strip():
                self.start(json.loads(line))

    def loop(self) -> None:
        while self.stdin_open or self.jobs:
            now = time.monotonic()
            for job in self.jobs.values():
                if job.wait_status is None and now >= job.deadline:
                    self.kill(job, "timeout")
            deadlines = [j.deadline for j in self.jobs.values() if j.wait_status is None]
            timeout = max(0.0, min(deadlines) - now) if deadlines else None
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
        for job in self.jobs.values():
            self.kill(job, "killed")


def _terminate(*_) -> None:
    """SIGTERM: stop at once, answering nothing; ``main`` kills the running proofs."""
    raise SystemExit(128 + signal.SIGTERM)


def main() -> None:
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "fork"
    hello = {"python": sys.version.split()[0], "executable": sys.executable, "mode": mode}
    try:
        import torch  # noqa: F401  (imported once, so that forked proofs start warm)

        hello["torch"] = torch.__version__
    except BaseException as exc:  # report, do not crash: the parent names the fix
        hello["error"] = f"{type(exc).__name__}: {exc}"
    sys.stdout.buffer.write(json.dumps({"hello": hello}).encode() + b"\n")
    sys.stdout.buffer.flush()
    if "error" in hello:
        return
    host = Host(mode)
    try:
        host.loop()
    finally:  # SIGTERM, Ctrl-C or a crash: no proof outlives its host (children have own groups)
        for job in host.jobs.values():
            host.kill(job, "killed")


if __name__ == "__main__":
    main()
