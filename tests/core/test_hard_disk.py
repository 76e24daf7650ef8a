"""A full disk, a read-only tree, an unwritable cache: one error line naming the path and the
fix (``ldr: error:``, or an ``ERROR -`` line and exit 1 from ``mkdocs build``), no traceback,
and the record being written survives intact. And ``--strict`` holds at any verbosity.

We run as root, so file modes stop nothing: the tests mount a tiny full tmpfs or a read-only
bind mount in a private mount namespace (``unshare -m``), mark a folder immutable
(``chattr +i``), and inject the error at the lowest boundary (``os.replace``) through a
``-c`` wrapper where no mechanism can stand in for it (EACCES for root)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .hardkit import fake_torch, ldr, mkdocs

GOOD = 'print("hello")\nprint("D=" + "{\\"x\\": 1}")\n'


def _works(*command: str) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


MOUNTS = shutil.which("unshare") and _works("unshare", "-m", "sh", "-c",
                                            "mount -t tmpfs -o size=16k tmpfs /mnt && umount /mnt")
needs_mounts = pytest.mark.skipif(not MOUNTS, reason="`unshare -m` with mount is not permitted here "
                                  "(no CAP_SYS_ADMIN); the injected-error tests below cover the same code")


@pytest.fixture
def site(project, tmp_path):
    env = fake_torch(tmp_path / "fake")
    project.proof("hello", GOOD)
    project.page("index.md", "# Home\n\n```proof\nhello\n```\n")
    assert ldr(project.root, env, "run").returncode == 0
    project.proof("hello", GOOD + "# changed: the next run writes the record again\n")
    return project, env, project.record("hello").read_bytes()


def one_error(out: subprocess.CompletedProcess, says: str) -> str:
    text = out.stdout + out.stderr
    assert "Traceback" not in text, text
    errors = [line for line in text.splitlines() if line.startswith(("ldr: error:", "ERROR"))]
    assert len(errors) == 1 and says in errors[0], text
    assert "fix:" in errors[0], errors[0]
    return errors[0]


def in_namespace(script: str) -> tuple[str, ...]:
    return ("unshare", "-m", "sh", "-c", script + ' && exec "$@"', "sh")


@needs_mounts
def test_a_full_disk_is_one_error_and_the_record_survives(site):
    project, env, before = site
    results = project.record("hello").parent
    fill = "mount -t tmpfs -o size=16k tmpfs {r} && cp {s}/* {r}/ && (cat /dev/zero > {r}/fill 2>/dev/null; true)"
    saved = project.root / "saved"
    shutil.copytree(results, saved)
    prefix = in_namespace(fill.format(r=results, s=saved))
    run = ldr(project.root, env, "run", "--force", prefix=prefix)
    assert run.returncode == 2
    line = one_error(run, f"ldr: error: {project.record('hello')}: No space left on device; fix: free space")
    assert "left as it was" in line
    build = mkdocs(project.root, env, prefix=prefix)
    assert build.returncode == 1
    one_error(build, f"{project.record('hello')}: No space left on device; fix:")
    assert project.record("hello").read_bytes() == before  # outside the namespace: untouched
    assert not list(results.glob(".*.tmp"))


@needs_mounts
def test_a_read_only_tree_is_one_error(site):
    project, env, before = site
    prefix = in_namespace(f"mount --bind {project.root} {project.root} && "
                          f"mount -o remount,ro,bind {project.root}")
    run = ldr(project.root, env, "run", "--force", prefix=prefix)
    assert run.returncode == 2
    one_error(run, "Read-only file system; fix: run in a writable copy")
    build = mkdocs(project.root, env, prefix=prefix)
    assert build.returncode == 1
    one_error(build, f"ldr: cannot write the site: {project.root / 'site'}: Read-only file system")
    assert project.record("hello").read_bytes() == before
    # The fix it names works: from the records, into a writable folder.
    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - ldr\n", "  - ldr:\n      run: false\n"))
    out = project.root.parent / f"{project.root.name}-site"  # outside the read-only tree
    built = mkdocs(project.root, env, "-d", str(out), prefix=prefix)
    assert built.returncode == 0, built.stderr
    assert "hello" in (out / "index.html").read_text()


@pytest.mark.skipif(not (shutil.which("chattr") and shutil.which("lsattr")), reason="no chattr here")
def test_an_unwritable_cache_is_one_error_naming_the_fix(site):
    project, env, before = site
    cache = project.root / ".cache" / "ldr"
    cache.mkdir(parents=True, exist_ok=True)
    for stale in cache.iterdir():  # caches the first run left: this run must make new ones
        shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
    if subprocess.run(["chattr", "+i", str(cache)], capture_output=True).returncode != 0:
        pytest.skip("this file system does not take the immutable flag (chattr +i)")
    try:
        run = ldr(project.root, env, "run", "--force")
        assert run.returncode == 2
        line = one_error(run, f"ldr: error: {cache}/")
        assert "Operation not permitted" in line and "chattr -i" in line and "delete .cache/ldr" in line
        build = mkdocs(project.root, env)
        assert build.returncode == 1
        one_error(build, f"{cache}/")
    finally:
        subprocess.run(["chattr", "-i", str(cache)], check=True)
    assert project.record("hello").read_bytes() == before


REFUSE = """
import errno, os, runpy, sys
real = os.replace
def replace(source, target, *args, **kwargs):
    if str(target).endswith(".json"):
        raise PermissionError(errno.EACCES, "Permission denied", str(target))
    return real(source, target, *args, **kwargs)
os.replace = replace
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_module(sys.argv[0], run_name="__main__")
"""


def test_a_refused_write_at_the_lowest_boundary_is_one_error(site):
    """EACCES, which root never meets, injected at os.replace in the real processes."""
    project, env, before = site
    wrapper = (sys.executable, "-c", REFUSE)
    run = subprocess.run([*wrapper, "build_hooks.hosts.cli.main", "run", "--force"], cwd=project.root,
                         env={**__import__("os").environ, **env}, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2
    line = one_error(run, f"ldr: error: {project.record('hello')}: Permission denied; fix: make it writable")
    assert "chown" in line
    build = subprocess.run([*wrapper, "mkdocs", "build", "-d", "site"], cwd=project.root,
                           env={**__import__("os").environ, **env}, capture_output=True, text=True, timeout=300)
    assert build.returncode == 1
    one_error(build, f"{project.record('hello')}: Permission denied")
    assert project.record("hello").read_bytes() == before
    assert not list(project.record("hello").parent.glob(".*.tmp"))


@pytest.mark.parametrize("verbosity", ["-q", "-v", None])
def test_strict_fails_a_false_claim_at_any_verbosity(project, tmp_path, verbosity):
    env = fake_torch(tmp_path / "fake")
    project.proof("toll", 'print("TOLL={\\"small_us\\": 4.1, \\"large_us\\": 1780.2}")\n')
    project.page("index.md", "# Home\n\n```claim\nproof: toll\ncheck: TOLL.large_us > 1000 * TOLL.small_us\n"
                             "```\n\n```proof\ntoll\n```\n")
    flags = ["--strict"] + ([verbosity] if verbosity else [])
    build = mkdocs(project.root, env, *flags)
    assert build.returncode == 1, build.stderr
    assert "ldr: 1 problem(s) in strict mode" in build.stderr
    assert ("docs/index.md:3: claim does not hold: TOLL.large_us > 1000 * TOLL.small_us with "
            "TOLL.large_us = 1,780, TOLL.small_us = 4.1") in build.stderr
    assert mkdocs(project.root, env, *([verbosity] if verbosity else [])).returncode == 0  # not strict


def test_a_write_error_without_a_file_name_names_the_file_being_written():
    """A full disk is often seen by a flush or a close, whose OSError names no file: the
    message takes the path from the writer's own frame."""
    import errno

    from build_hooks.core.writeerrors import explain

    def write_atomic(path):
        raise OSError(errno.ENOSPC, "No space left on device")  # as handle.close() raises it

    try:
        write_atomic(Path("/srv/site/proofs/_results/x.cpu.json"))
    except OSError as exc:
        said = explain(exc)
    assert said.startswith("/srv/site/proofs/_results/x.cpu.json: No space left on device; fix: free space")


def test_the_background_scheduler_reports_a_write_error_with_the_fix(project, tmp_path):
    """Under `mkdocs serve` proofs run on a thread: a folder it cannot write is one error
    naming the path and the fix, and the worker lives on."""
    import threading

    from build_hooks.run.library import Library
    from build_hooks.run.scheduler import Scheduler

    env = fake_torch(tmp_path / "fake")
    project.proof("hello", GOOD)
    (project.root / ".cache").write_text("a file where the cache folder belongs\n")
    library = Library(project.root, python=env["LDR_PYTHON"])
    changed, messages = threading.Event(), []
    scheduler = Scheduler(library, on_change=changed.set, report=lambda level, text: messages.append((level, text)))
    try:
        scheduler.submit(library.plan())
        assert changed.wait(120), messages
        errors = [text for level, text in messages if level == "error"]
        assert len(errors) == 1, messages
        assert errors[0].startswith(f"{project.root / '.cache'}") and "; fix: " in errors[0], errors[0]
        assert "Traceback" not in errors[0] and "saving a proof again retries it" in errors[0]
        assert not project.record("hello").exists()
    finally:
        scheduler.stop()
