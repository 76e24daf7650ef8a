"""The proof host: each failure kind, scheduling, and the torch pin check."""

import json
import os
import sys
import textwrap
import time
from pathlib import Path as _Path

import pytest

from build_hooks.core.errors import PinError
from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.run.results import Job
from build_hooks.run.runner import Runner, shared_runner

PIN = _pinned(_Path(__file__).resolve().parents[2])


PIN = PIN


@pytest.fixture(scope="module")
def runner():
    return shared_runner(None, PIN, None)


def script(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return path


def run_one(runner, path, timeout=20.0, cap=1 << 20):
    return runner.run([Job(path.stem, path, timeout, cap)])[0]


def test_ok_runs_in_a_fresh_temporary_folder(runner, tmp_path):
    where = tmp_path / "cwd.txt"
    path = script(tmp_path, "where", f"""
        import os, sys, torch
        print(os.listdir("."))
        open("scratch.txt", "w").write("x")
        open({str(where)!r}, "w").write(os.getcwd())
        print(os.getcwd())
        print(sys.argv[0])
        print(__name__)
        print(torch.ones(2).sum().item())
    """)
    result = run_one(runner, path)
    empty, cwd, argv0, name, total = result.stdout.splitlines()
    assert result.status == "ok" and result.returncode == 0
    assert (empty, cwd) == ("[]", "."), "the temporary folder shows as `.`"
    real = where.read_text()
    assert real != str(tmp_path) and "where-" in real and not os.path.exists(real)
    assert (argv0, name, total) == (str(path), "__main__", "2.0")


def test_crash_keeps_the_traceback(runner, tmp_path):
    result = run_one(runner, script(tmp_path, "crash", "print('before')\nraise ValueError('boom')\n"))
    assert (result.status, result.returncode, result.signal) == ("failed", 1, None)
    assert result.stdout == "before\n"
    assert "Traceback" in result.stderr and result.stderr.rstrip().endswith("ValueError: boom")
    assert result.describe() == "exited with status 1"


def test_exit_code_is_kept(runner, tmp_path):
    result = run_one(runner, script(tmp_path, "exit3", "import sys\nsys.exit(3)\n"))
    assert (result.status, result.returncode) == ("failed", 3)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def test_timeout_kills_the_proof_and_its_children(runner, tmp_path):
    child = tmp_path / "child.pid"
    path = script(tmp_path, "slow", f"""
        import subprocess, sys, time
        kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        open({str(child)!r}, "w").write(str(kid.pid))
        print("started", flush=True)
        while True:  # busy: its CPU time reaches the timeout (a sleeper would meet the clock's 5 x)
            pass
    """)
    result = run_one(runner, path, timeout=3.0)
    assert result.status == "timeout" and result.signal == 9
    assert 3.0 <= result.wall_s < 300 and result.stdout == "started\n"  # stopped, not left to sleep
    assert result.describe().startswith("timed out after")
    # Killed with the proof's group (it held the proof's pipes, so it had exited by the reply;
    # the deadline only covers the last instants of its exit, against its 300 s of sleep).
    pid, deadline = int(child.read_text()), time.monotonic() + 30
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(pid), "a grandchild of a timed-out proof survived"


def test_huge_output_is_capped(runner, tmp_path):
    result = run_one(runner, script(tmp_path, "huge", "import sys\nwhile True: sys.stdout.write('y' * 65536)\n"),
                     cap=100_000)
    assert result.status == "output-limit"
    assert len(result.stdout) + len(result.stderr) <= 100_000


def test_non_utf8_bytes_become_visible_escapes(runner, tmp_path):
    path = script(tmp_path, "bytes", "import sys\nsys.stdout.buffer.write(b'caf\\xe9 \\xff ok\\n')\n")
    result = run_one(runner, path)
    assert result.status == "ok" and result.stdout == "caf\\xe9 \\xff ok\n"


def test_killed_process(runner, tmp_path):
    result = run_one(runner, script(tmp_path, "killed", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"))
    assert (result.status, result.signal, result.returncode) == ("killed", 9, None)
    assert result.describe() == "was killed by signal 9 (SIGKILL)"


def test_stderr_is_captured_separately(runner, tmp_path):
    result = run_one(runner, script(tmp_path, "err", "import sys\nprint('out')\nprint('warn', file=sys.stderr)\n"))
    assert (result.stdout, result.stderr) == ("out\n", "warn\n")


def test_timing_proofs_never_overlap_and_parallel_ones_may(runner, tmp_path):
    log = tmp_path / "log"
    # Parallel proofs meet: each leaves a file and waits for the other's (a deadline only in
    # case the runner wrongly runs them one after the other); serial ones must never overlap.
    body = f"""
        import os, pathlib, time
        name = os.path.basename(__file__)[:-3]
        start = time.monotonic()
        met = "alone"
        if name.startswith("p"):
            pathlib.Path({str(tmp_path)!r}, name + ".here").touch()
            other = pathlib.Path({str(tmp_path)!r}, ("p1" if name == "p0" else "p0") + ".here")
            deadline = time.monotonic() + 60
            while not other.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            met = "met" if other.exists() else "alone"
        else:
            time.sleep(0.5)  # long enough that a wrongly parallel serial proof would overlap
        with open({str(log)!r}, "a") as f:
            f.write(f"{{name}}.py {{start}} {{time.monotonic()}} {{met}}\\n")
    """
    jobs = [Job(f"s{i}", script(tmp_path, f"s{i}", body), 120, 1 << 16, parallel=False) for i in range(3)]
    jobs += [Job(f"p{i}", script(tmp_path, f"p{i}", body), 120, 1 << 16, parallel=True) for i in range(2)]
    results = runner.run(jobs, slots=2)
    assert [r.name for r in results] == ["s0", "s1", "s2", "p0", "p1"]
    spans, met = {}, {}
    for line in log.read_text().splitlines():
        name, start, end, meeting = line.split()
        spans[name[:-3]] = (float(start), float(end))
        met[name[:-3]] = meeting

    def overlap(a, b):
        return spans[a][0] < spans[b][1] and spans[b][0] < spans[a][1]

    for serial in ("s0", "s1", "s2"):
        assert not any(overlap(serial, other) for other in spans if other != serial)
    assert met["p0"] == met["p1"] == "met", "the parallel proofs did not run side by side"


def test_torch_mismatch_names_both_versions_and_the_fix(fake_python):
    python = fake_python("2.12.0+cpu")
    with pytest.raises(PinError) as info:
        Runner(python, PIN).start()
    message = str(info.value)
    assert PIN in message and "2.12.0+cpu" in message and f"pip install torch=={PIN}" in message


def test_local_build_tag_matches_the_pin(fake_python):
    runner = Runner(fake_python(f"{PIN}+cu130"), PIN)
    try:
        assert runner.start()["torch"] == f"{PIN}+cu130"
    finally:
        runner.close()


def test_missing_torch_is_a_clear_error(fake_python):
    python = fake_python(body="raise ImportError('no torch here')\n")
    with pytest.raises(PinError, match="cannot import torch.*no torch here"):
        Runner(python, PIN).start()


def test_spawn_mode_gives_the_same_results(tmp_path):
    runner = Runner(None, PIN, "spawn")
    try:
        ok = run_one(runner, script(tmp_path, "ok", "print('hi')\nprint('D=' + '[1]')\n"))
        bad = run_one(runner, script(tmp_path, "bad", "raise SystemExit(4)\n"))
    finally:
        runner.close()
    assert (ok.status, ok.stdout) == ("ok", "hi\nD=[1]\n")
    assert (bad.status, bad.returncode) == ("failed", 4)


def test_probe_reports_this_machine(runner):
    probe = runner.probe()
    assert probe["torch"].startswith(PIN) and probe["python"] == sys.version.split()[0]
    assert probe["cpu"] and json.dumps(probe)


def test_results_that_arrive_together_are_all_read(runner, tmp_path):
    """Several parallel proofs finishing while the parent is busy (as when it writes a record):
    their result lines reach it in one read. Each must be taken from what was read, not waited
    for on a pipe that has gone quiet."""
    import threading
    import time

    jobs = [Job(f"q{i}", script(tmp_path, f"q{i}", "print('done')\n"), 120, 1 << 16, parallel=True)
            for i in range(8)]
    out = []
    slow = lambda result: time.sleep(0.3)  # noqa: E731 - a parent busy with each result
    worker = threading.Thread(target=lambda: out.append(runner.run(jobs, slots=8, on_done=slow)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert out, "results that arrived together were not read (the runner waited on an idle pipe)"
    assert [r.status for r in out[0]] == ["ok"] * 8


def test_each_proof_is_forked_on_demand_and_nothing_outlives_the_host(tmp_path):
    """No process waits forked ahead between proofs (it cost more than it saved:
    bench_machinery); each proof runs in a process of its own, and a host whose proofs have
    ended has no child left."""
    import time

    from build_hooks.run.processes import children_of

    host = Runner(None, PIN, None)
    try:
        first = run_one(host, script(tmp_path, "one", "import os\nprint(os.getpid())\n"))
        assert first.status == "ok"
        pid = host.proc.pid
        deadline = time.monotonic() + 60  # a hang guard
        while children_of(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert children_of(pid) == [], "no process waits between two proofs"
        second = run_one(host, script(tmp_path, "two", "import os\nprint(os.getpid())\n"))
        assert second.status == "ok" and second.leftovers == 0
        assert int(second.stdout.split()[0]) != int(first.stdout.split()[0])
        third = run_one(host, script(tmp_path, "three", "print('still here')\n"))
        assert third.status == "ok" and third.stdout == "still here\n" and third.leftovers == 0
    finally:
        host.close()
    deadline = time.monotonic() + 60  # a hang guard
    while children_of(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert children_of(pid) == [] and host.proc is None
