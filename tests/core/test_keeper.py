"""The host keeper (core/keeper.py, core/kepthost.py): a warm proof host handed over between
builds, owned by whoever holds its stdin, never used under another key or another torch, and
never kept after a run that went wrong. Real hosts, a real keeper process, real signals."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from build_hooks.core import keeper, kepthost
from build_hooks.core.runner import Job, Runner

PROOF = "import torch\nprint(int(torch.ones(3).sum()))\n"


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A keeper folder of this test's own; whatever keeper it starts is stopped after it."""
    folder = tmp_path / "keeper"
    monkeypatch.setenv("LDR_KEEPER_DIR", str(folder))
    monkeypatch.setenv("LDR_KEEP_HOST", "60")
    script = tmp_path / "p.py"
    script.write_text(PROOF)
    yield script
    keeper.stop()
    assert wait_until(lambda: not keepers(folder)), "the keeper did not stop"


def wait_until(check, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def keepers(folder: Path) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(part.endswith(b"keeper.py") for part in cmdline) and str(folder).encode() in cmdline:
                if alive(int(entry)):
                    found.append(int(entry))
    return found


def run_once(script: Path) -> tuple[Runner, int]:
    runner = Runner()
    runner.start()
    result = runner.run([Job("p", script, 60, 1 << 20)])[0]
    assert result.ok and result.stdout.strip() == "3", result.stderr
    return runner, runner.proc.pid


def test_a_clean_close_hands_the_host_over_and_the_next_runner_takes_it(kept):
    first, pid = run_once(kept)
    assert not first.taken
    first.close()
    assert alive(pid) and keepers(Path(os.environ["LDR_KEEPER_DIR"]))  # kept, not stopped
    second, again = run_once(kept)
    assert second.taken and again == pid
    second.close()
    third, pid3 = run_once(kept)
    assert third.taken and pid3 == pid
    third.close(keep=False)  # stopped, not kept
    assert wait_until(lambda: not alive(pid))
    fourth, pid4 = run_once(kept)
    assert not fourth.taken and pid4 != pid
    fourth.close()


def test_a_taker_killed_with_sigkill_takes_the_host_down_with_it(kept, tmp_path):
    first, pid = run_once(kept)
    first.close()
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import os, signal, sys
        from build_hooks.core.runner import Job, Runner
        runner = Runner()
        runner.start()
        print(runner.taken, runner.proc.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    taken, taken_pid = child.stdout.readline().split()
    child.wait(timeout=60)
    assert taken == "True" and int(taken_pid) == pid
    assert wait_until(lambda: not alive(pid)), "the host outlived the build that held it"
    runner = Runner()
    runner.start()
    assert not runner.taken
    runner.close(keep=False)


def test_another_environment_does_not_take_the_host(kept, monkeypatch):
    first, pid = run_once(kept)
    first.close()
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a proof could see it: another key
    other, other_pid = run_once(kept)
    assert not other.taken and other_pid != pid
    other.close(keep=False)
    monkeypatch.delenv("OMP_NUM_THREADS")
    same, same_pid = run_once(kept)
    assert same.taken and same_pid == pid
    same.close(keep=False)


def test_a_host_whose_torch_moved_is_ended_not_taken(kept, monkeypatch):
    first, pid = run_once(kept)
    first.close()
    monkeypatch.setattr(kepthost, "torch_stamps", lambda site: [["torch/version.py", 1, 2, 3]])
    runner = Runner()
    runner.start()
    assert not runner.taken and runner.proc.pid != pid
    assert wait_until(lambda: not alive(pid))
    runner.close(keep=False)


def test_an_interrupted_run_stops_the_host_instead_of_keeping_it(kept):
    runner = Runner()
    runner.start()
    pid = runner.proc.pid

    def interrupt(job):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.run([Job("p", kept, 60, 1 << 20)], on_start=interrupt)
    assert wait_until(lambda: not alive(pid))
    assert keeper.take(kepthost.host_key(runner.python, runner.mode, dict(os.environ))) is None


def test_the_keeper_ends_a_host_after_its_time_and_then_exits(kept, monkeypatch):
    monkeypatch.setenv("LDR_KEEP_HOST", "1")
    first, pid = run_once(kept)
    first.close()
    folder = Path(os.environ["LDR_KEEPER_DIR"])
    assert alive(pid)
    assert wait_until(lambda: not alive(pid), 15), "the host was kept past its time"
    assert wait_until(lambda: not keepers(folder), 15), "the keeper stayed with nothing to keep"


def test_a_keeper_folder_others_can_enter_is_not_used(kept, tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    monkeypatch.setenv("LDR_KEEPER_DIR", str(shared))
    first, pid = run_once(kept)
    first.close()
    assert wait_until(lambda: not alive(pid)) and not keepers(shared)
    assert not (shared / "keeper.sock").exists()


def test_keeping_is_off_with_zero_and_under_ci(kept, monkeypatch):
    monkeypatch.setenv("LDR_KEEP_HOST", "0")
    assert keeper.keep_seconds() == 0
    first, pid = run_once(kept)
    first.close()
    assert wait_until(lambda: not alive(pid))
    monkeypatch.delenv("LDR_KEEP_HOST")
    monkeypatch.setenv("CI", "true")
    assert keeper.keep_seconds() == 0
    monkeypatch.delenv("CI")
    assert keeper.keep_seconds() == keeper.DEFAULT_KEEP


def test_two_cold_builds_share_one_host(project, kept):
    """`mkdocs build` hands its host over at exit; the next build that runs proofs takes it."""
    project.proof("answer", 'print("the answer is 42")\n')
    project.page("index.md", "# A\n\n```proof\nanswer\n```\n")
    assert project.build().returncode == 0
    folder = Path(os.environ["LDR_KEEPER_DIR"])
    first = hosts_of(folder)
    assert keepers(folder) and len(first) == 1
    project.record("answer").unlink()
    done = project.build()
    assert done.returncode == 0, done.stderr
    assert "the answer is 42" in (project.root / "site" / "index.html").read_text()
    assert hosts_of(folder) == first  # the same host ran the proof and is kept again


def hosts_of(folder: Path) -> list[int]:
    """Proof hosts started under this keeper folder (not their forked-ahead proof processes)."""
    def cmdline(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return b""

    found = []
    for pid in map(int, filter(str.isdigit, os.listdir("/proc"))):
        if b"zygote.py" not in cmdline(pid) or not alive(pid):
            continue
        try:
            parent = int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if b"zygote.py" not in cmdline(parent) and f"LDR_KEEPER_DIR={folder}".encode() in environ:
            found.append(pid)
    return sorted(found)


def test_ldr_host_shows_the_kept_host_and_stops_it(kept, capsys):
    from build_hooks.adapters.cli import main

    first, pid = run_once(kept)
    first.close()
    assert main(["host"]) == 0
    shown = capsys.readouterr().out
    assert f"(pid {pid})" in shown and f"torch {first.hello['torch']}" in shown
    assert re.search(r"kept (5\d|60) s more", shown), shown
    assert main(["host", "--stop"]) == 0
    assert "stopped the keeper" in capsys.readouterr().out
    assert wait_until(lambda: not alive(pid))
    assert main(["host"]) == 0
    assert "no warm proof host is kept" in capsys.readouterr().out


def test_a_host_kept_from_another_folder_is_taken_and_its_proofs_see_the_callers_shell(kept, tmp_path, monkeypatch):
    """`cd` moves PWD and OLDPWD: the host is still taken, and a proof sees the values of now."""
    script = tmp_path / "shell.py"
    script.write_text("import os\nprint(os.environ.get('PWD'), os.environ.get('OLDPWD', 'unset'))\n")
    monkeypatch.setenv("PWD", "/first/folder")
    monkeypatch.setenv("OLDPWD", "/before/it")
    first = Runner()
    first.start()
    assert first.run([Job("shell", script, 60, 1 << 20)])[0].stdout.split() == ["/first/folder", "/before/it"]
    pid = first.proc.pid
    first.close()
    monkeypatch.setenv("PWD", "/second/folder")
    monkeypatch.delenv("OLDPWD")
    second = Runner()
    second.start()
    assert second.taken and second.proc.pid == pid
    assert second.run([Job("shell", script, 60, 1 << 20)])[0].stdout.split() == ["/second/folder", "unset"]
    second.close(keep=False)


@pytest.mark.parametrize("garbage", [b"[1, 2]\n", b"not json\n", b'{"op": "park", "key": "k", "keep": "soon"}\n',
                                     b'{"op": "take", "key": ["not", "a", "key"]}\n', b"\n"])
def test_the_keeper_survives_a_broken_message_and_keeps_its_host(kept, garbage):
    import socket as sockets

    first, pid = run_once(kept)
    first.close()
    with sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM) as sock:
        sock.connect(str(Path(os.environ["LDR_KEEPER_DIR"]) / "keeper.sock"))
        sock.sendall(garbage)
        sock.settimeout(5)
        answer = sock.recv(1 << 16)
    assert answer in (b"", b'{"ok": false}\n')
    again, again_pid = run_once(kept)
    assert again.taken and again_pid == pid
    again.close(keep=False)
