"""Trust, the process side: whatever a proof does, it ends when it should, takes everything it
started with it, leaves no folder behind, keeps what it printed, and shows where it failed
without any path of this machine."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path
from pathlib import Path as _Path

import pytest

from build_hooks.core.errors import LdrError
from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.run import runner as runner_module
from build_hooks.run.library import Library
from build_hooks.run.results import Job
from build_hooks.run.runner import Runner, shared_runner

PIN = _pinned(_Path(__file__).resolve().parents[2])


PIN = PIN
REPO = Path(__file__).resolve().parents[2]
HANG = 60  # no test here waits that long unless something hangs


def marked(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != b"Z":
            found.append(int(name))
    return found


def gone(marker: str, within: float = 60.0) -> bool:
    """Whether the marked processes are gone (the deadline is a hang guard: they are killed,
    and dying takes instants)."""
    give_up = time.monotonic() + within
    while marked(marker):
        if time.monotonic() > give_up:
            return False
        time.sleep(0.1)
    return True


def sleeper(marker: str, detach: str = "setsid") -> str:
    """Proof code that leaves a process running with our stdout, marked in its argv."""
    child = f'[sys.executable, "-c", "import time; time.sleep(300)", "{marker}"]'
    if detach == "setsid":
        return f"subprocess.Popen({child}, start_new_session=True)\n"
    # a double fork: the middle process exits at once, the grandchild is an orphan
    return (f"if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            f"        os.execv(sys.executable, {child})\n    os._exit(0)\nos.wait()\n")


@pytest.fixture(scope="module")
def runner():
    """The real proof host, shared with the Library tests in this process."""
    return shared_runner(None, PIN, None)


@pytest.fixture
def quick_python(tmp_path) -> str:
    """An interpreter whose ``import torch`` is a stub of the pinned version: a host that
    starts at once, for tests that do not need torch itself."""
    fake = tmp_path / "quick-torch" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        f"__version__ = '{PIN}+cpu'\n"
        "class cuda:\n    is_available = staticmethod(lambda: False)\n"
        "class backends:\n    mps = None\n")
    wrapper = tmp_path / "quick-python"
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={fake.parent} exec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.fixture
def quick(quick_python):
    runner = Runner(quick_python, PIN)
    yield runner
    runner.close()


def script(folder: Path, name: str, body: str) -> Path:
    (folder / "proofs").mkdir(exist_ok=True)
    path = folder / "proofs" / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return path


def job(folder: Path, name: str, body: str, timeout: float = 20.0, **extra) -> Job:
    return Job(name, script(folder, name, body), timeout, extra.pop("cap", 1 << 20), root=folder, **extra)


# -- 1. a detached child holding the proof's pipes ------------------------------------------
@pytest.mark.parametrize("detach", ["setsid", "double-fork"])
def test_a_detached_child_is_killed_when_the_proof_ends(runner, tmp_path, detach):
    marker = f"ldr-test-{uuid.uuid4().hex}"
    body = "import os, subprocess, sys\n" + sleeper(marker, detach) + "print('bye')\n"
    started = time.monotonic()
    result = runner.run([job(tmp_path, "detached", body, timeout=30)])[0]
    assert time.monotonic() - started < HANG
    assert (result.status, result.stdout, result.leftovers) == ("ok", "bye\n", 1)
    assert gone(marker), "the detached child outlived its proof"
    after = runner.run([job(tmp_path, "after", "print('next')\n")])[0]
    assert (after.status, after.stdout) == ("ok", "next\n")


def test_a_detached_child_in_a_parallel_wave_costs_at_most_the_grace(runner, tmp_path):
    """While another proof runs, the host cannot tell whose an orphan is; it waits on the held
    pipes only for the grace, then kills what ended proofs left."""
    marker = f"ldr-test-{uuid.uuid4().hex}"
    left = tmp_path / "leaver-done"
    # The slowpoke runs on after the leaver has ended (it waits for the leaver's word, a
    # deadline guarding only against a hang), so the orphan is met while a proof still runs.
    slowpoke = (f"import pathlib, time\ndeadline = time.monotonic() + 60\n"
                f"while not pathlib.Path({str(left)!r}).exists() and time.monotonic() < deadline:\n"
                f"    time.sleep(0.01)\ntime.sleep(2)\nprint('done')\n")
    jobs = [job(tmp_path, "leaver", "import os, subprocess, sys\n" + sleeper(marker) + "print('bye')\n"
                + f"open({str(left)!r}, 'w').close()\n", timeout=60, parallel=True),
            job(tmp_path, "slowpoke", slowpoke, timeout=120, parallel=True)]
    started = time.monotonic()
    results = runner.run(jobs, slots=2)
    assert time.monotonic() - started < HANG
    assert [(r.status, r.stdout) for r in results] == [("ok", "bye\n"), ("ok", "done\n")]
    assert gone(marker)


def test_the_library_names_a_proof_that_leaves_processes_behind(project):
    marker = f"ldr-test-{uuid.uuid4().hex}"
    project.proof("leaver", "import os, subprocess, sys\n" + sleeper(marker) + "print('bye')\n")
    library = Library(project.root)  # shares the host with `runner`; not closed here
    library.run()
    assert gone(marker)
    assert any(d.proof == "leaver" and "left 1 process(es) running" in d.message for d in library.diagnostics)


# -- 1b. the runner is never poisoned ------------------------------------------------------
def test_a_host_that_dies_is_reported_with_the_proof_and_replaced(quick, tmp_path):
    with pytest.raises(LdrError, match="died while running killer"):
        quick.run([job(tmp_path, "killer", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")])
    assert quick.proc is None
    assert quick.run([job(tmp_path, "fine", "print('ok')\n")])[0].stdout == "ok\n"


def test_a_stray_reply_resets_the_host(quick, tmp_path, monkeypatch):
    submit = Runner._submit
    monkeypatch.setattr(quick, "_submit", lambda job: submit(quick, job) + (1000 if job.name == "confused" else 0))
    with pytest.raises(LdrError, match=r"answered for no running proof \(id 1\) while running confused"):
        quick.run([job(tmp_path, "confused", "print('hi')\n")])
    assert quick.proc is None
    assert quick.run([job(tmp_path, "fine", "print('ok')\n")])[0].stdout == "ok\n"


def test_a_silent_host_is_stopped_and_the_proof_named(quick, tmp_path, monkeypatch):
    monkeypatch.setattr(runner_module, "SLACK", 0.5)
    marker = f"ldr-test-{uuid.uuid4().hex}"
    # The host is stopped first thing, so that it never gets to time the proof out itself.
    body = ("import os, signal, subprocess, sys\nos.kill(os.getppid(), signal.SIGSTOP)\n" + sleeper(marker)
            + "import time\ntime.sleep(300)\n")
    with pytest.raises(LdrError, match="stopped answering while running frozen"):
        quick.run([job(tmp_path, "frozen", body, timeout=1)])  # silent past 5 x 1 s, its clock backstop
    assert gone(marker)
    assert quick.run([job(tmp_path, "fine", "print('ok')\n")])[0].stdout == "ok\n"


# -- 2. Ctrl-C, SIGTERM and SIGKILL of `ldr run` -------------------------------------------
def start_ldr_run(project, tmp_path, python: str, marker: str,
                  command: tuple[str, ...] = ("build_hooks.hosts.cli.main", "run"),
                  ) -> tuple[subprocess.Popen, Path, dict]:
    ready = tmp_path / "ready.json"
    project.proof("sleepy", f"""
        import json, os, subprocess, sys, time
        {sleeper(marker).strip()}
        kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "{marker}"])
        with open({str(ready)!r} + ".part", "w") as handle:
            json.dump({{"proof": os.getpid(), "host": os.getppid(), "cwd": os.getcwd()}}, handle)
        os.rename({str(ready)!r} + ".part", {str(ready)!r})
        print("sleeping", flush=True)
        time.sleep(300)
    """)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=str(REPO), LDR_PYTHON=python, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.Popen([sys.executable, "-m", *command], cwd=project.root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    give_up = time.monotonic() + 120
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > give_up:
            proc.kill()
            pytest.fail(f"the proof never started: {proc.communicate()}")
        time.sleep(0.1)
    return proc, tmp, json.loads(ready.read_text())


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_ldr_run_stops_every_proof_process(project, tmp_path, quick_python, how):
    marker = f"ldr-test-{uuid.uuid4().hex}"
    proc, tmp, ids = start_ldr_run(project, tmp_path, quick_python, marker)
    assert len(marked(marker)) == 2 and any(tmp.glob("ldr-*"))
    proc.send_signal(how)
    out, err = proc.communicate(timeout=HANG)
    word = "interrupted" if how == signal.SIGINT else "terminated"
    assert [line for line in err.splitlines() if line.strip()] == [  # after the plan, one line
        "running 1 proof(s) (never recorded: no estimate)",
        f"ldr: {word}; stopped 1 running proof(s), nothing recorded for them"]
    assert proc.returncode == 128 + how
    assert gone(marker)
    assert not Path(f"/proc/{ids['proof']}").exists() and not Path(f"/proc/{ids['host']}").exists()
    assert list(tmp.iterdir()) == [], "a temporary folder outlived the run"
    assert not project.record("sleepy").exists()


def test_interrupting_mkdocs_build_stops_every_proof_process(project, tmp_path, quick_python):
    marker = f"ldr-test-{uuid.uuid4().hex}"
    project.page("index.md", "# Home\n\n```proof\nsleepy\n```\n")
    proc, tmp, ids = start_ldr_run(project, tmp_path, quick_python, marker,
                                   ("mkdocs", "build", "--strict", "-d", str(tmp_path / "site")))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=HANG)
    assert proc.returncode != 0 and "Traceback" not in err
    assert gone(marker) and not Path(f"/proc/{ids['host']}").exists()
    assert list(tmp.iterdir()) == []
    assert not project.record("sleepy").exists()


def test_killing_ldr_run_outright_still_ends_its_proofs(project, tmp_path, quick_python):
    marker = f"ldr-test-{uuid.uuid4().hex}"
    proc, tmp, ids = start_ldr_run(project, tmp_path, quick_python, marker)
    proc.kill()
    proc.communicate(timeout=HANG)
    assert gone(marker), "a proof's child outlived a killed `ldr run`"
    give_up = time.monotonic() + 60  # a hang guard: the host ends at once when its stdin closes
    while Path(f"/proc/{ids['host']}").exists() and time.monotonic() < give_up:
        time.sleep(0.1)
    assert not Path(f"/proc/{ids['proof']}").exists() and not Path(f"/proc/{ids['host']}").exists()
    assert list(tmp.iterdir()) == []


# -- 3. temporary folders ------------------------------------------------------------------
def test_no_work_folder_outlives_a_run_whatever_the_proof_did(tmp_path, quick_python, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    marker = f"ldr-test-{uuid.uuid4().hex}"
    runner = Runner(quick_python, PIN)
    try:
        runner.run([
            job(tmp_path, "ok", "open('scratch', 'w').write('x')\n"),
            job(tmp_path, "crash", "open('scratch', 'w')\nraise SystemExit(3)\n"),
            job(tmp_path, "hang", "while True:\n    pass\n", timeout=1),
            job(tmp_path, "leaver", "import os, subprocess, sys\n" + sleeper(marker)),
        ])
        (work,) = tmp.glob("ldr-*")
        assert list(work.iterdir()) == [], "a proof's folder outlived it"
        with pytest.raises(LdrError, match="died while running killer"):
            runner.run([job(tmp_path, "killer", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")])
        assert list(tmp.iterdir()) == [], "a dead host's folder outlived it"
        runner.run([job(tmp_path, "ok", "print('again')\n")])
    finally:
        runner.close()
    assert list(tmp.iterdir()) == []


# -- 4, 5, 6. what a timeout, a cap or a crash leaves to read --------------------------------
HANGER = """
    import sys, time
    print("step 1")
    print("step 2")
    print("to stderr", file=sys.stderr)
    def wait_forever():
        while True: pass  # a busy hang: its CPU time reaches the timeout
    wait_forever()
"""


def test_a_timeout_keeps_the_output_and_shows_where_it_hung(runner, tmp_path):
    result = runner.run([job(tmp_path, "hanger", HANGER, timeout=3)])[0]
    assert result.status == "timeout" and result.describe().startswith("timed out after ")
    assert result.stdout == "step 1\nstep 2\n"
    assert result.stderr.startswith("to stderr\n")
    assert 'File "proofs/hanger.py", line 7 in wait_forever' in result.stderr
    assert 'File "proofs/hanger.py", line 8 in <module>' in result.stderr
    assert "host.py" not in result.stderr and "child.py" not in result.stderr


def test_the_output_cap_keeps_what_came_first(runner, tmp_path):
    body = "import sys\nprint('first line')\nwhile True:\n    sys.stdout.write('y' * 4096 + '\\n')\n"
    result = runner.run([job(tmp_path, "flood", body, cap=50_000)])[0]
    assert result.status == "output-limit" and result.stdout.startswith("first line\nyyy")


def test_a_segfault_is_named_and_shows_the_python_stack(runner, tmp_path):
    body = "import ctypes\nprint('before the crash')\ndef crash():\n    ctypes.string_at(0)\ncrash()\n"
    result = runner.run([job(tmp_path, "segv", body)])[0]
    assert (result.status, result.signal, result.stdout) == ("killed", 11, "before the crash\n")
    assert result.describe() == "was killed by signal 11 (SIGSEGV)"
    assert "Segmentation fault" in result.stderr
    assert 'File "proofs/segv.py", line 4 in crash' in result.stderr


def test_a_failure_record_shows_the_stack_and_what_was_printed(project, md):
    project.proof("hanger", 'PROOF = {"timeout": 3}\n' + textwrap.dedent(HANGER))
    md("```proof\nhanger\n```\n", page="chapter.md")
    record = json.loads(project.record("hanger").read_text())
    assert record["status"] == "timeout" and record["stdout"] == ["step 1", "step 2"]
    assert any("in wait_forever" in line for line in record["stderr"])
    warning = next(d for d in md.state.diagnostics if d.proof == "hanger")
    assert "it timed out" in warning.message and "in wait_forever" in warning.message


def test_a_failure_tail_falls_back_to_stdout(project):
    project.proof("quiet", 'print("good")\n')
    library = Library(project.root)
    library.run()
    project.proof("quiet", 'print("all I said")\nimport os\nos._exit(5)\n')
    library.run()
    failure = json.loads(project.record("quiet").read_text())["failure"]
    assert failure["message"] == "exited with status 5" and failure["stderr_tail"] == ["all I said"]


# -- 7, 8, 9. the proof's own frames, no machine paths, and __file__ still works --------------
def test_a_traceback_starts_at_the_proofs_own_frame(runner, tmp_path):
    body = """
        def inner():
            raise KeyError("missing")
        def outer():
            try:
                inner()
            except KeyError as exc:
                raise RuntimeError("wrapped") from exc
        outer()
    """
    result = runner.run([job(tmp_path, "chained", body)])[0]
    blocks = [b for b in result.stderr.split("\n\n") if b.startswith("Traceback")]
    assert len(blocks) == 2
    for block in blocks:
        assert block.splitlines()[1].startswith('  File "proofs/chained.py", line ')
    assert "host.py" not in result.stderr and "child.py" not in result.stderr and "runpy" not in result.stderr
    assert result.stderr.rstrip().endswith("RuntimeError: wrapped")
    assert "    raise KeyError(\"missing\")" in result.stderr  # source lines are shown


def test_no_path_of_this_machine_reaches_the_record(project):
    (project.root / "proofs" / "table.txt").write_text("sibling data\n")
    path = project.proof("paths", """
        import os, sys, warnings
        from pathlib import Path
        import torch
        print("cwd=" + os.getcwd())
        print("file=" + __file__)
        print("argv=" + sys.argv[0])
        print("sibling=" + (Path(__file__).parent / "table.txt").read_text().strip())
        print("via_argv=" + open(os.path.join(os.path.dirname(sys.argv[0]), "table.txt")).read().strip())
        print("torch=" + os.path.dirname(torch.__file__))
        print("home=" + os.path.expanduser("~"))
        open("scratch.txt", "w").write("x")
        print("scratch=" + os.path.abspath("scratch.txt"))
        warnings.warn("careful")
        raise ValueError(f"failed in {os.getcwd()}")
    """)
    Library(project.root).run()
    text = project.record("paths").read_text()
    record = json.loads(text)
    out = dict(line.split("=", 1) for line in record["stdout"])
    assert (out["cwd"], out["scratch"]) == (".", "./scratch.txt")
    assert out["file"] == out["argv"] == "proofs/paths.py"
    assert out["sibling"] == out["via_argv"] == "sibling data"
    assert out["torch"].endswith("site-packages/torch") and not out["torch"].startswith("/")
    assert out["home"] == "~"
    line = path.read_text().splitlines().index('warnings.warn("careful")') + 1
    assert f"proofs/paths.py:{line}: UserWarning: careful" in record["stderr"]
    assert record["stderr"][-1] == "ValueError: failed in ."
    for path in {str(project.root), os.path.realpath(project.root), tempfile.gettempdir(),
                 os.path.expanduser("~"), sys.prefix}:
        assert path not in text, f"{path} is in the record"
    assert "ldr-" not in text and "host.py" not in text and "child.py" not in text


def test_spawn_mode_shows_the_same_frames_and_paths(tmp_path, quick_python):
    runner = Runner(quick_python, PIN, "spawn")
    marker = f"ldr-test-{uuid.uuid4().hex}"
    try:
        crash, leaver = runner.run([
            job(tmp_path, "crash", "import os\nprint(os.getcwd())\ndef f():\n    raise ValueError('x')\nf()\n"),
            job(tmp_path, "leaver", "import os, subprocess, sys\n" + sleeper(marker) + "print('bye')\n"),
        ])
    finally:
        runner.close()
    assert crash.stdout == ".\n" and crash.stderr.splitlines()[1] == '  File "proofs/crash.py", line 5, in <module>'
    assert (leaver.status, leaver.leftovers) == ("ok", 1) and gone(marker)


def test_the_proof_ends_like_python_waiting_for_its_threads(runner, tmp_path):
    body = """
        import threading, time
        def late():
            time.sleep(0.3)
            print("thread done")
        threading.Thread(target=late).start()
        print("main done")
    """
    result = runner.run([job(tmp_path, "threads", body)])[0]
    assert (result.status, result.stdout) == ("ok", "main done\nthread done\n")
