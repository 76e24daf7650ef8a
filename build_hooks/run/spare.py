"""The spare (fork mode): a proof's process, forked from the host, that waits on a pipe for its
request and then becomes the proof (``_spare``, in the child); the host's side of it
(:class:`SpareFork`, mixed into ``hostloop.Host``: fork one, hand it a request, retire it); and
the environment a proof gets in either mode (:func:`proof_environment`).

Standalone: imports nothing from this package but its siblings (the proof host loads them by
path, see host.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import BinaryIO

from .child import finish, run_proof
from .processes import sigkill


def proof_environment(environ, request: dict):
    """``environ`` (the host's, or a copy) made the proof's: the request's ``unset`` names
    removed, its ``env`` set."""
    for name in request.get("unset") or ():
        environ.pop(name, None)
    environ.update(request.get("env") or {})
    return environ


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


class SpareFork:
    """The host's side of the spare; ``hostloop.Host`` sets these fields."""

    mode: str
    stopping: bool
    out: BinaryIO
    spare: tuple[int, int, int, int] | None  # (pid, control, out_r, err_r): _spare

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
                sigkill(pid)
