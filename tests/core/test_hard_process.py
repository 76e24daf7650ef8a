"""A timed-out proof keeps what it printed; what a proof leaves running is counted, each one.
Real ``ldr`` and ``mkdocs build`` processes, proofs under a fake torch of the pin."""

from __future__ import annotations

import json
import os
import textwrap

from .hardkit import fake_torch, ldr, mkdocs

HANG = textwrap.dedent("""
    import sys, time
    print("step one", flush=True)
    print("step two: 42 ms", flush=True)
    print("warming up", file=sys.stderr, flush=True)
    while True:  # a hang that works: its CPU time reaches the timeout (a sleeper meets the clock's 5x)
        pass
""")


def test_a_timeout_keeps_the_lines_printed_before_it(project, tmp_path):
    env = fake_torch(tmp_path / "fake")
    project.proof("hangs", 'print("step one")\nprint("step two: 42 ms")\n')  # a good run first
    project.proof("hangs_new", 'PROOF = {"timeout": 2}\n' + HANG)  # never succeeded
    assert ldr(project.root, env, "run", "hangs").returncode == 0
    project.proof("hangs", 'PROOF = {"timeout": 2}\n' + HANG)
    run = ldr(project.root, env, "run")
    assert run.returncode == 1
    for name in ("hangs", "hangs_new"):
        record = json.loads(project.record(name).read_text())
        assert (record["failure"] or record)["status"] == "timeout"
        printed = "\n".join(record["failure"]["stderr_tail"] if record["failure"] else
                            record["stdout"] + record["stderr"])
        assert "step two: 42 ms" in printed and "warming up" in printed, name
    tail = json.loads(project.record("hangs").read_text())["failure"]["stderr_tail"]
    assert tail[:3] == ["step one", "step two: 42 ms", "warming up"]
    assert any("proofs/hangs.py" in line for line in tail[3:]), "faulthandler's stack follows them"
    assert run.stdout.count("step two: 42 ms") == 2  # ldr run quotes both (its results: stdout)

    status = ldr(project.root, env, "status")
    assert status.stdout.count("step two: 42 ms") == 2, status.stdout
    report = json.loads(ldr(project.root, env, "status", "--json").stdout)
    for proof in report["proofs"]:
        assert "step two: 42 ms" in proof["records"][0]["last_lines"], proof["name"]

    project.page("index.md", "# Home\n\n```proof\nhangs\n```\n\n```proof\nhangs_new\n```\n")
    (project.root / "mkdocs.yml").write_text((project.root / "mkdocs.yml").read_text().replace(
        "  - ldr\n", "  - ldr:\n      run: false\n"))
    build = mkdocs(project.root, env)
    assert build.returncode == 0, build.stderr
    warnings = [part for part in build.stderr.split("WARNING") if "timed out" in part]
    assert len(warnings) == 2 and all("step two: 42 ms" in part for part in warnings), build.stderr


def test_every_process_a_proof_leaves_is_counted(project, tmp_path):
    env = fake_torch(tmp_path / "fake")
    marker = f"{os.getpid()}.4242"  # names this test's sleepers in the process table
    project.proof("forks", """
        import os, time
        for _ in range(200):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        print("forked 200")
    """)
    project.proof("spawns", f"""
        import subprocess
        for _ in range(40):
            subprocess.Popen(["sleep", "{marker}"])
        print("spawned 40")
    """)
    run = ldr(project.root, env, "run")
    assert run.returncode == 0, run.stderr
    assert "proof forks left 200 process(es) running" in run.stderr, run.stderr
    assert "proof spawns left 40 process(es) running" in run.stderr, run.stderr
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    alive.append(pid)
        except OSError:
            continue
    assert not alive, f"sleepers outlived ldr: {alive}"
