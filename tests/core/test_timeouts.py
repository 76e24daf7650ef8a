"""A proof's timeout counts its own work, not the machine's load (issue 21, item 2): its CPU time
(its threads, and the processes of its group), never more than the clock, with a clock backstop
of 5 times the timeout for a proof that waits. A failure is one line naming the proof, the limit
it reached and the fix, then the proof's own frames only; under `mkdocs serve` it is said once
while the proof and its record stay as they are, and the proof is not run again.

No test depends on the machine's speed: a busy proof spins until its *CPU time* reaches a
bound, a stopped or sleeping one uses none, so CPU against clock is told apart by what the
proof does, not by how fast this machine does it. A proof meant to time out on its CPU time
spins in eight processes of its group (the same CPU time in all, taken faster), so that even on
a loaded machine its CPU time reaches the timeout long before the clock reaches the backstop
(5 x). Proofs run under a fake torch of the pin."""

from __future__ import annotations

import json
import os
import re
import signal
import textwrap
import time
from pathlib import Path

import pytest

from build_hooks.run.results import Job, own_frames
from build_hooks.run.runner import Runner
from build_hooks.run.timeouts import BACKSTOP

from .hardkit import PIN, fake_torch, ldr, mkdocs

GUARD = 60.0  # seconds: a hang guard, never a timing assertion
FAR = 60  # a clock backstop of 60 x the timeout: only a hang guard for tests of the CPU limit
LINUX = os.path.isdir("/proc/self")


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    env = fake_torch(tmp_path_factory.mktemp("fake"))
    host = Runner(env["LDR_PYTHON"], PIN)
    yield host
    host.close()


def job(tmp_path: Path, name: str, body: str, timeout: float, backstop: float | None = None) -> Job:
    """``backstop``: the clock's limit, in timeouts; a test of the CPU limit puts it far away (a
    machine loaded enough could otherwise keep a proof's CPU time under 1 s for 5 s)."""
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(body))
    return Job(name, script, timeout, 1 << 20, display=f"proofs/{name}.py", backstop=backstop)


EIGHT = """
import os
for _ in range(7):  # eight processes of the proof's group spin: its CPU time grows fast under any load
    if os.fork() == 0:
        break
"""
SPIN = """
    import time
    def spin(seconds):
        start = time.process_time()
        while time.process_time() - start < seconds:
            pass
"""


@pytest.mark.skipif(not LINUX, reason="CPU time of a running proof is read from /proc")
def test_a_proof_starved_of_the_cpu_is_not_timed_out_by_the_clock(runner, tmp_path):
    """The load, at its worst: the proof gets no CPU at all for 4 s (stopped), past its 3 s
    timeout on the clock, and needs 0.5 s of CPU in all. A wall-clock timeout kills it."""
    started = tmp_path / "pid"
    body = SPIN + f"""
    import os
    open({str(started)!r} + ".part", "w").write(str(os.getpid()))
    os.rename({str(started)!r} + ".part", {str(started)!r})
    spin(0.5)
    print("done")
    """
    import threading

    def starve() -> None:
        give_up = time.monotonic() + GUARD
        while not started.exists() and time.monotonic() < give_up:
            time.sleep(0.01)
        pid = int(started.read_text())
        os.kill(pid, signal.SIGSTOP)
        time.sleep(4.0)  # no CPU for 4 s: the clock passes the timeout
        os.kill(pid, signal.SIGCONT)

    thread = threading.Thread(target=starve)
    thread.start()
    result = runner.run([job(tmp_path, "starved", body, timeout=3, backstop=FAR)])[0]
    thread.join(GUARD)
    assert result.status == "ok", (result.describe(), result.stderr)
    assert result.stdout == "done\n" and result.wall_s >= 4.0  # past its timeout on the clock
    assert result.cpu_s is not None and result.cpu_s < 3


@pytest.mark.skipif(not LINUX, reason="CPU time of a running proof is read from /proc")
def test_a_busy_proof_times_out_on_its_cpu_time_and_says_so(runner, tmp_path):
    result = runner.run([job(tmp_path, "busy", EIGHT + "while True:\n    pass\n", timeout=1, backstop=FAR)])[0]
    assert (result.status, result.hit, result.signal) == ("timeout", "cpu", 9)
    assert result.cpu_s is not None and result.cpu_s >= 1
    assert result.describe().startswith("timed out after 1 s of CPU time (")
    assert result.describe().endswith(" s on the clock)")


@pytest.mark.skipif(not LINUX, reason="CPU time of a running proof is read from /proc")
def test_what_the_proof_started_counts_as_its_work(runner, tmp_path):
    """A proof that hands its work to a child process and waits is timed out on the child's CPU
    time (its process group), not left to the clock's backstop."""
    body = """
    import subprocess, sys, time
    for _ in range(8):
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(300)
    """
    result = runner.run([job(tmp_path, "delegates", body, timeout=1, backstop=FAR)])[0]
    assert (result.status, result.hit) == ("timeout", "cpu") and result.cpu_s is not None and result.cpu_s >= 1


def test_a_proof_that_waits_meets_the_clock_backstop(runner, tmp_path):
    result = runner.run([job(tmp_path, "waits", "import time\ntime.sleep(300)\n", timeout=1)])[0]
    assert (result.status, result.hit) == ("timeout", "wall")
    assert result.wall_s >= BACKSTOP * 1 and result.cpu_s is not None and result.cpu_s < 1
    assert result.describe().startswith(f"timed out after {BACKSTOP} s on the clock ({BACKSTOP} x its 1 s timeout) "
                                        "with ")
    assert result.describe().endswith("s of CPU time: it was waiting, not working")


def test_a_traceback_keeps_the_proofs_frames_only():
    stderr = textwrap.dedent("""\
        warming up
        Thread 0x00007f1111111111 (most recent call first):
          <no Python frame>
        Current thread 0x00007f6189206b80 (most recent call first):
          File "site-packages/torch/nn/functional.py", line 5 in relu
          File "build_hooks/run/child.py", line 87 in run_proof
          File "proofs/hang.py", line 6 in f
          File "proofs/hang.py", line 7 in <module>
        Traceback (most recent call last):
          File "proofs/x.py", line 3, in <module>
            f()
          File "proofs/_common.py", line 2, in f
            torch.relu(1)
            ~~~~~~~~~~^^^
          File "site-packages/torch/_ops.py", line 9, in relu
            return self._op(*args)
                   ^^^^^^^
          File "/usr/lib/python3.11/abc.py", line 9, in x
            y
        RuntimeError: boom""").splitlines()
    assert own_frames(stderr) == [
        "warming up",
        "Current thread (most recent call first):",
        '  File "proofs/hang.py", line 6 in f',
        '  File "proofs/hang.py", line 7 in <module>',
        "Traceback (most recent call last):",
        '  File "proofs/x.py", line 3, in <module>',
        "    f()",
        '  File "proofs/_common.py", line 2, in f',
        "    torch.relu(1)",
        "    ~~~~~~~~~~^^^",
        "RuntimeError: boom",
    ]


HANG = """\
import json
print("step one", flush=True)
""" + EIGHT.lstrip() + """\
def forever():
    while True:
        json.loads("[1]")
forever()
"""


@pytest.mark.skipif(not LINUX, reason="CPU time of a running proof is read from /proc")
def test_a_timeout_is_one_line_with_the_limit_and_the_fix_then_the_proofs_frames(project, tmp_path):
    env = fake_torch(tmp_path / "fake")
    project.proof("hangs", 'PROOF = {"timeout": 1}\n' + HANG)
    project.proof("breaks", 'import json\nprint("before")\njson.loads("{")\n')
    run = ldr(project.root, env, "run")
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    [failed] = [line for line in lines if "failed hangs" in line]
    # which limit it meets first depends on this machine's load (test_a_busy_proof... pins it)
    assert re.search(r"timed out after (1 s of CPU time \(|5 s on the clock \(5 x its 1 s timeout\))", failed)
    tail = lines[lines.index(failed) + 1:]
    fix = next(line.strip() for line in tail if line.strip().startswith("fix:"))
    assert fix == ('fix: make it finish sooner, or raise its limit in proofs/hangs.py: PROOF = {"timeout": 2} '
                   "(now 1 s of CPU time; README: Proofs)")
    assert json.loads(project.record("hangs").read_text())["status"] == "timeout"
    # What reports quote (the record's own lines): the proof's frames, not json's, nor a thread address.
    broke = [line.strip() for line in lines[lines.index(next(x for x in lines if "failed breaks" in x)) + 1:]]
    assert broke[:4] == ["before", "Traceback (most recent call last):",
                         'File "proofs/breaks.py", line 6, in <module>', 'json.loads("{")']
    assert broke[4].startswith("json.decoder.JSONDecodeError")
    assert broke[5].startswith("fix: run `python proofs/breaks.py` to see it fail")
    hung = [line.strip() for line in tail if line.strip()]
    hung = hung[:hung.index(fix) + 1]
    assert hung[:2] == ["step one", "Current thread (most recent call first):"]
    assert all(line.startswith(('File "proofs/hangs.py"', "fix:")) for line in hung[2:]), hung

    # The build says it in one line first, with the limit and the fix, then the proof's frames.
    project.page("index.md", "# Home\n\n```proof\nhangs\n```\n")
    (project.root / "mkdocs.yml").write_text((project.root / "mkdocs.yml").read_text().replace(
        "  - ldr\n", "  - ldr:\n      run: false\n"))
    build = mkdocs(project.root, env)
    assert build.returncode == 0, build.stderr
    [warning] = [part for part in build.stderr.split("WARNING") if "proof hangs" in part]
    first, *rest = warning.strip().splitlines()
    assert first.startswith("-  ldr: docs/index.md: proof hangs (cpu) failed")
    assert re.search(r": it timed out after (1 s of CPU time|5 s on the clock) \(", first)
    assert '; fix: make it finish sooner, or raise its limit in proofs/hangs.py: PROOF = {"timeout": 2}' in first
    assert [line.strip() for line in rest][:2] == ["step one", "Current thread (most recent call first):"]
    assert all(line.strip().startswith(('File "proofs/hangs.py"', "step one", "Current thread")) for line in rest)


def test_under_serve_a_failure_is_said_once_while_the_proof_and_its_record_stay(tmp_path, monkeypatch):
    from serve_support import Server, make_project, write_page, write_proof

    monkeypatch.setenv("LDR_PYTHON", fake_torch(tmp_path / "fake")["LDR_PYTHON"])
    root = make_project(tmp_path / "site")
    write_proof(root, "boom", 'print("before")\nraise RuntimeError("the kernel moved")\n')
    page = "# Home\n\nVersion {}.\n\n```proof\nboom\n```\n"
    write_page(root, "index.md", page.format(0))
    record = root / "proofs" / "_results" / "boom.cpu.json"
    server = Server(root)
    try:
        server.wait_for("", lambda body: "This proof failed" in body, GUARD)  # its record landed
        first = record.read_bytes()
        for version in (1, 2):  # rebuilds with the proof and its record as they are
            write_page(root, "index.md", page.format(version))
            server.wait_for("", lambda body, v=version: f"Version {v}." in body, GUARD)
        log = server.output()
        assert log.count("proof boom (cpu) failed") == 1, log
        assert record.read_bytes() == first, "a failed proof whose script did not change ran again"
        assert log.count("running 1 proof(s) in the background") == 1, log
        # Saving the proof is the author asking: it runs again, and its new failure is said once.
        write_proof(root, "boom", 'raise RuntimeError("still broken")\n')
        server.wait_for("", lambda body: "still broken" in body, GUARD)
        write_page(root, "index.md", page.format(3))
        server.wait_for("", lambda body: "Version 3." in body, GUARD)
        log = server.output()
        assert log.count("proof boom (cpu) failed") == 2, log
        assert "RuntimeError: still broken" in log
    finally:
        server.cleanup()
