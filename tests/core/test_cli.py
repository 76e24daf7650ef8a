"""The `ldr` command as people expect it, through real subprocesses (`python -m build_hooks`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from build_hooks.store.lock import store_lock

from .recordkit import SCRIPT, record

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


def ldr(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "build_hooks", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=timeout)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=root,
                   check=True, capture_output=True, timeout=60)


def test_version_and_the_root_option_before_or_after_the_command(project, tmp_path_factory):
    project.proof("a", SCRIPT)
    record(project, "a")
    elsewhere = tmp_path_factory.mktemp("elsewhere")  # outside the project
    version = ldr("--version", cwd=elsewhere)
    assert version.returncode == 0 and re.fullmatch(r"ldr \d+\.\d+\.\d+\S*\n", version.stdout), version
    assert ldr("status", "--version", cwd=elsewhere).stdout == version.stdout
    before = ldr("--root", str(project.root), "status", "--json", cwd=elsewhere)
    after = ldr("status", "--json", "--root", str(project.root), cwd=elsewhere)
    equals = ldr("check", f"--root={project.root}", cwd=elsewhere)
    assert before.returncode == after.returncode == equals.returncode == 0, (before.stderr, after.stderr,
                                                                            equals.stderr)
    assert json.loads(before.stdout)["root"] == json.loads(after.stdout)["root"] == str(project.root)
    assert [p["name"] for p in json.loads(after.stdout)["proofs"]] == ["a"]
    missing = ldr("status", cwd=elsewhere)
    assert missing.returncode == 2 and "pass --root" in missing.stderr


def test_a_failure_trace_prints_as_the_proof_wrote_it(project):
    project.proof("bad", """\
        import sys
        print("X=[1, 2")
        print("[dim]not markup[/] and [red]unclosed [bold]", file=sys.stderr)
        raise SystemExit(3)
    """)
    run = project.ldr("run")
    assert run.returncode == 1
    trace = re.compile(r"^ +\[dim\]not markup\[/\] and \[red\]unclosed \[bold\]$", re.M)  # as printed:
    assert trace.search(run.stdout), run.stdout  # no markup added around it, none taken out
    assert "\x1b[" not in run.stdout + run.stderr  # not a terminal: no colour codes either
    assert re.search(r"^\[1/1\] failed bad +\d+\.\d\d s  exited with status 3$", run.stdout, re.M), run.stdout
    status = project.ldr("status", "bad")
    assert "exited with status 3" in status.stdout and "\x1b[" not in status.stdout
    live = subprocess.run([sys.executable, "-m", "build_hooks", "run", "--force"], cwd=project.root,
                          env=dict(ENV, TTY_COMPATIBLE="1", COLUMNS="120"), capture_output=True, text=True,
                          timeout=300)  # as on a terminal: colours and a live bar
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", live.stderr).replace("\r", "\n")
    assert live.returncode == 1 and "\x1b[" in live.stderr
    assert trace.search(shown) and "failed bad" in shown, shown


def test_a_piped_status_never_cuts_or_wraps_a_name(project):
    long = "a_proof_whose_name_is_much_longer_than_any_table_cell_would_allow_it_to_be"
    project.proof(long, SCRIPT)
    record(project, long, torch="2.0.0")  # stale, with a long reason too
    out = project.ldr("status")
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if line.startswith(long))
    assert "recorded under torch 2.0.0, pin is " in row and "…" not in out.stdout
    header = out.stdout.splitlines()[1]
    assert header.split() == ["proof", "device", "state", "torch", "measured", "wall", "data", "keys", "why"]
    assert row.index("stale") == header.index("state")  # plain columns, aligned


def test_on_a_terminal_status_is_a_table_unless_too_narrow_for_whole_names(project):
    long = "a_proof_with_a_rather_long_name_for_a_table"
    project.proof(long, SCRIPT)
    record(project, long)

    def status(columns: int) -> str:
        env = dict(ENV, TTY_COMPATIBLE="1", COLUMNS=str(columns))  # rich's "this is a terminal"
        out = subprocess.run([sys.executable, "-m", "build_hooks", "status"], cwd=project.root, env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return re.sub(r"\x1b\[[0-9;]*m", "", out.stdout)

    wide = status(160)
    assert "┃ proof" in wide and f"│ {long} │ cpu" in wide and "…" not in wide
    narrow = status(60)
    assert "┃" not in narrow and any(line.startswith(f"{long}  cpu") for line in narrow.splitlines())


def test_diff_names_a_revision_that_does_not_exist(project):
    project.proof("a", SCRIPT)
    record(project, "a")
    outside = project.ldr("diff")
    assert outside.returncode == 2 and "is not in a git repository" in outside.stderr, outside.stderr
    git(project.root, "init", "-q")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "records")
    bad = project.ldr("diff", "v9.9-nowhere")
    assert bad.returncode == 2, bad.stdout
    assert "no git revision 'v9.9-nowhere'" in bad.stderr and "new record" not in bad.stdout
    same = project.ldr("diff", "HEAD")
    assert same.returncode == 0 and same.stdout.startswith("Nothing moved since HEAD"), same


def test_check_on_a_device_without_records_says_so(project):
    project.proof("a", SCRIPT)
    project.proof("g", 'PROOF = {"accelerator": "prefer"}\n' + SCRIPT)
    record(project, "a")
    record(project, "g")
    cpu = project.ldr("check", "--device", "cpu")
    assert cpu.returncode == 0 and "2 record(s) (cpu) fresh" in cpu.stdout, cpu.stderr
    cuda = project.ldr("check", "--device", "cuda")
    assert cuda.returncode == 1
    assert "no cuda record in proofs/_results/ (1 proof(s) could be measured there: g)" in cuda.stdout
    assert "fresh" not in cuda.stdout


HOLDER = """\
import sys
from pathlib import Path
from build_hooks.store.lock import store_lock

with store_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


def test_waiting_for_the_store_lock_names_its_holder(tmp_path):
    lock = tmp_path / ".cache" / "ldr" / "store.lock"
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    holder = subprocess.Popen([sys.executable, str(script), str(lock)], env=ENV, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        said: list[str] = []
        got = threading.Event()

        def take():
            with store_lock(lock, on_wait=said.append):
                got.set()

        taker = threading.Thread(target=take)
        taker.start()
        deadline = time.monotonic() + 60  # a hang guard: the wait is said once the patience is over
        while not said and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not got.is_set() and len(said) == 1
        assert said[0].startswith(f"waiting for the store lock held by pid {holder.pid} (python holder.py")
        holder.stdin.close()
        taker.join(timeout=60)
        assert got.is_set()
    finally:
        holder.kill()
        holder.wait(30)
    assert lock.read_text().startswith(f"pid {os.getpid()} (")  # the last taker wrote itself in


def test_a_run_waits_for_the_lock_aloud_then_shows_progress_with_an_estimate(project):
    project.proof("known", SCRIPT)
    record(project, "known", sha="0" * 64)  # stale: its script changed; it took 0.5 s last time
    project.proof("fresh_one", SCRIPT.replace("1.0", "2.0"))
    lock = project.root / ".cache" / "ldr" / "store.lock"
    with store_lock(lock):
        run = subprocess.Popen([sys.executable, "-m", "build_hooks", "run"], cwd=project.root, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = [run.stderr.readline() for _ in range(2)]  # the plan, then the wait
        assert f"waiting for the store lock held by pid {os.getpid()} (" in seen[1], seen
    out, err = run.communicate(timeout=300)
    err = "".join(seen) + err
    assert run.returncode == 0, err
    assert ("running 2 proof(s) (about 0.5 s by their recorded wall times, plus the proof host's "
            "start; 1 never recorded)") in err
    assert re.search(r"^\[1/2\] ok +\w+ .*; about \d+\.\d s left$", out, re.M), out  # results: stdout
    assert re.search(r"^\[2/2\] ok +\w+ +\d+\.\d\d s  cpu: .*\S$", out, re.M), out


def test_a_cold_build_logs_the_estimate_and_each_proof(project):
    project.proof("a", SCRIPT)
    record(project, "a", sha="1" * 64)
    project.page("index.md", """\
        ```proof
        a
        ```
    """)
    build = project.build()
    assert build.returncode == 0, build.stderr
    assert "running 1 proof(s): a (about 0.5 s by their recorded wall times" in build.stderr
    assert re.search(r"\[1/1\] a on cpu: ok \(\d+\.\d\d s\)", build.stderr), build.stderr


def test_draw_takes_the_root_option_too(project, tmp_path):
    scene = {"type": "excalidraw", "version": 2, "elements": [], "appState": {}}
    (tmp_path / "s.excalidraw").write_text(json.dumps(scene))
    out = ldr("--root", str(project.root), "draw", str(tmp_path / "s.excalidraw"), "-", "--fonts", "none",
              cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.lstrip().startswith("<svg")


def test_help_lists_every_command_with_the_global_options():
    out = subprocess.run([sys.executable, "-m", "build_hooks", "status", "--help"], env=ENV,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "--root" in out.stdout and "--version" in out.stdout


def test_check_counts_each_record_once(project):
    """Three records of two proofs are three: the count once summed each proof's records once per
    record (2 x 2 + 1 = "5 record(s) fresh")."""
    project.proof("a", 'PROOF = {"accelerator": "prefer"}\n' + SCRIPT)
    project.proof("b", SCRIPT)
    record(project, "a")
    record(project, "a", "cuda")
    record(project, "b")
    result = project.ldr("check")
    assert result.returncode == 0, result.stderr
    assert "ldr check: 3 record(s) fresh" in result.stdout
