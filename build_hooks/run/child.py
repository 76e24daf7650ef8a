"""How a proof process runs its script; used by the proof host (host.py) in both modes.

In fork mode the host's child calls :func:`run_proof` after setting up its fds; in spawn mode
the host starts ``python child.py REQUEST``. Imports nothing from this package.

* The proof ties its life to the host: ``PR_SET_PDEATHSIG`` (it dies if the host dies) and
  ``PR_SET_CHILD_SUBREAPER`` (what it starts and then orphans stays its child, so that the
  host can tell a running proof's processes from an ended one's; see host.py).
* faulthandler is on: a crash prints the Python stack of every thread on stderr, and
  ``DUMP_SIGNAL`` (sent by the host at a timeout) prints where the proof hangs.
* stdout is line buffered: what was printed before a timeout or a crash is kept.
* The script is compiled under its display name (``proofs/x.py``) and executed in a fresh
  ``__main__`` module; a traceback starts at the proof's own frames and shows no path of this
  machine. ``__file__`` and ``sys.argv[0]`` stay absolute, so that a proof finds its siblings.
"""

from __future__ import annotations

import json
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OWN_FILES = {os.path.join(HERE, "child.py"), os.path.join(HERE, "host.py")}  # frames a traceback skips
DUMP_SIGNAL = signal.SIGUSR1
LINUX = sys.platform.startswith("linux")
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
_PRCTL: list = []  # libc prctl, or None where there is none; looked up once


def _prctl(option: int, value: int) -> None:
    if not LINUX:
        return
    if not _PRCTL:
        try:
            import ctypes

            _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
        except (OSError, AttributeError):
            _PRCTL.append(None)
    if _PRCTL[0] is not None:
        _PRCTL[0](option, value, 0, 0, 0)


def run_proof(request: dict) -> int:
    """In the proof process (fds 0-2 already set): run the script as ``__main__``; return
    its exit status."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if request.get("host") and os.getppid() != request["host"]:
        return 1  # the host died before we could tie our life to it
    for sig in (signal.SIGCHLD, signal.SIGTERM, DUMP_SIGNAL):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.set_wakeup_fd(-1)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False, buffering=1)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)
    import atexit
    import builtins
    import faulthandler
    import linecache
    import types
    from importlib.machinery import SourceFileLoader

    faulthandler.enable(file=sys.stderr, all_threads=True)
    faulthandler.register(DUMP_SIGNAL, file=sys.stderr, all_threads=True)
    atexit._clear()  # the host's handlers (torch registers some) are not the proof's
    script = request["script"]
    display = request.get("display") or os.path.basename(script)
    sys.argv = [script]
    sys.path[0] = os.path.dirname(script)
    module = types.ModuleType("__main__")
    module.__file__ = script
    module.__loader__ = SourceFileLoader("__main__", script)
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    code = 0
    try:
        with open(script, "rb") as handle:
            source = handle.read()
        text = source.decode("utf-8", errors="replace")
        linecache.cache[display] = (len(text), None, text.splitlines(True), display)
        exec(compile(source, display, "exec", dont_inherit=True), module.__dict__)
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException as exc:  # the proof's own failure: report it like python would
        _excepthook(exc)
        code = 1
    try:
        import threading

        if threading.active_count() > 1:  # like python: wait for the proof's non-daemon threads
            threading._shutdown()  # type: ignore[attr-defined]  # private, not in the stubs: python calls it at exit
        atexit._run_exitfuncs()
    except BaseException:
        pass
    return code


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _excepthook(exc: BaseException) -> None:
    """Print the traceback from the proof's first frame on: none of the host's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in OWN_FILES:
        tb = tb.tb_next
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)


def finish(code) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code & 0xFF if isinstance(code, int) else 1)


if __name__ == "__main__":  # spawn mode: this process is the proof
    _code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # until run_proof sets it up
        _code = run_proof(json.loads(sys.argv[1]))
    finally:
        finish(_code)
