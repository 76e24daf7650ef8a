"""The proof host: imports torch once, then runs each proof in a child process.

Run as a script (``python host.py --mode fork|spawn --work DIR [--no-torch]``) by the
interpreter that proofs must use; it imports nothing from this package (``_load`` loads its
siblings by path: the event loop, hostloop.py, and what that uses). With ``--no-torch``
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
forked when its request comes and reads it from a pipe (spare.py). (Forking the next child
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

import json
import os
import shutil
import signal
import sys
import tempfile

HOST_FILE = os.path.abspath(__file__)


def _load(name: str):
    """A sibling module (hostloop.py, and what it imports: spare.py, processes.py, child.py,
    timeouts.py), in a private package: never a proof's sibling module of the same name."""
    import importlib
    import types

    if "_ldr" not in sys.modules:
        package = types.ModuleType("_ldr")
        package.__path__ = [os.path.dirname(HOST_FILE)]
        sys.modules["_ldr"] = package
    return importlib.import_module(f"_ldr.{name}")


Host = _load("hostloop").Host


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
