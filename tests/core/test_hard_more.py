"""Hard edges, an attacker's second pass (issue 16): fault kinds the first pass did not try.

Each test makes the fault with real files and real `ldr` / `mkdocs build` subprocesses (proofs
run under a fake torch of the pin, see hardkit.py) and checks for one clear error or a quiet
miss: no traceback, no hang, nothing written outside the project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .hardkit import fake_torch, ldr, mkdocs
from .recordkit import SCRIPT, record

NO_RUN = "site_name: Test\ntheme:\n  name: material\n  font: false\nplugins:\n  - ldr:\n      run: false\n"


def no_traceback(*outs) -> None:
    for out in outs:
        assert "Traceback" not in out.stdout + out.stderr, out.stdout + out.stderr


@pytest.fixture
def env(tmp_path_factory) -> dict:
    return fake_torch(tmp_path_factory.mktemp("faketorch"))


# -- bytes that are no text ------------------------------------------------------------------------

def test_a_record_that_is_not_utf8_is_corrupt_and_run_force_repairs_it(project, env):
    project.proof("a", SCRIPT)
    project.record("a").parent.mkdir(parents=True)
    project.record("a").write_bytes(b'\xff\xfe{"proof": "a"}')
    status = ldr(project.root, env, "status", "--json")
    no_traceback(status)
    entry = json.loads(status.stdout)["proofs"][0]["records"][0]
    assert entry["state"] == "corrupt" and "not UTF-8 text (byte 0xff at offset 0)" in entry["reasons"][0]
    run = ldr(project.root, env, "run", "a", "--force")
    no_traceback(run)
    assert run.returncode == 0 and "had a corrupt record" in run.stderr
    assert json.loads(project.record("a").read_text())["proof"] == "a"


def test_diff_against_a_commit_whose_record_is_not_utf8(project, env):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=project.root,
                       check=True, capture_output=True)

    project.proof("a", SCRIPT)
    record(project, "a")
    git("init", "-q")
    project.record("a").write_bytes(b"\xff garbage, committed")
    git("add", "-A")
    git("commit", "-qm", "a torn record")
    record(project, "a")
    out = ldr(project.root, env, "diff", "HEAD")
    no_traceback(out)
    assert out.returncode == 0 and "a (cpu, torch" in out.stdout and "new record" in out.stdout


# -- options with absurd values --------------------------------------------------------------------

@pytest.mark.parametrize("timeout, shown", [("1e999", "inf"), ("1e300", "1e+300"), ("86401", "86401")])
def test_a_timeout_no_clock_can_hold_is_refused(project, env, timeout, shown):
    project.proof("a", f'PROOF = {{"timeout": {timeout}}}\n' + SCRIPT)
    out = ldr(project.root, env, "run", "a")
    no_traceback(out)
    assert out.returncode == 2
    assert (f"proofs/a.py:4: PROOF timeout must be a positive number of seconds, at most 86,400 (a day), "
            f"not {shown}") in out.stderr


# -- YAML an author types: no aliases, bounded nesting ---------------------------------------------

def _laughs(levels: int) -> str:
    """A flow list whose anchors expand to 10**levels items (levels=9: a billion)."""
    parts = ["&a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(levels - 1):
        parts.append(f"&{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]")
    return "[" + ", ".join(parts) + "]"


@pytest.mark.parametrize("fence, body", [
    ("claim", "proof: a\ncheck: TOLL.small_us > 0\nsay: {v}\n"),
    ("claim", "proof: a\ncheck: {v}\n"),
    ("proof-output", "proof: a\ngrep: {v}\n"),
    ("drift-report", "from: {v}\nto: 2.14.1\n"),
    ("exercises", "a: {v}\n"),
])
def test_a_yaml_alias_in_a_fence_body_is_refused_at_its_line(project, env, fence, body):
    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    project.page("index.md", f"# P\n\n```{fence}\n" + body.format(v=_laughs(4)) + "```\n\n```proof\na\n```\n")
    out = mkdocs(project.root, env, "--strict")
    no_traceback(out)
    assert out.returncode == 1
    assert f"docs/index.md:3: the {fence} fence body is not valid YAML: line " in out.stderr
    assert "an alias (*a) repeats a value marked &a; write the value out" in out.stderr


def test_yaml_nested_past_the_bound_is_refused_and_a_data_file_alias_too(project, env):
    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    deep = "[" * 65 + "]" * 65
    project.page("index.md", f"# P\n\n```claim\nproof: a\ncheck: TOLL.small_us > 0\nsay: {deep}\n```\n")
    out = mkdocs(project.root, env, "--strict")
    no_traceback(out)
    assert out.returncode == 1
    assert "the claim fence body is not valid YAML: line 3: nested more than 64 deep" in out.stderr

    project.page("index.md", "# P\n\n{{ a.TOLL.small_us }}\n")
    (project.root / "data").mkdir()
    (project.root / "data" / "floors.yml").write_text(f"floors: {_laughs(3)}\n")
    out = mkdocs(project.root, env, "--strict")
    no_traceback(out)
    assert out.returncode == 1
    assert "data/floors.yml: not valid YAML (line 1: an alias (*a) repeats a value marked &a" in out.stderr


# -- the store's lock file -------------------------------------------------------------------------

def test_the_lock_file_is_never_written_through_a_symlink_or_a_fifo(project, env, tmp_path_factory):
    project.proof("a", SCRIPT)
    lock = project.root / ".cache" / "ldr" / "store.lock"
    lock.parent.mkdir(parents=True)
    victim = tmp_path_factory.mktemp("home") / ".bashrc"
    victim.write_text("precious\n")
    lock.symlink_to(victim)
    run = ldr(project.root, env, "run", "a")
    no_traceback(run)
    assert run.returncode == 0, run.stderr
    assert victim.read_text() == "precious\n"
    assert not lock.is_symlink() and "run a" in lock.read_text()

    lock.unlink()
    os.mkfifo(lock)
    run = ldr(project.root, env, "run", "a", "--force")
    assert run.returncode == 0, run.stderr  # was: "File or stream is not seekable."
    assert lock.is_file() and "run a --force" in lock.read_text()

    lock.unlink()
    lock.mkdir()
    run = ldr(project.root, env, "run", "a", "--force")
    no_traceback(run)
    assert run.returncode == 2
    assert f"ldr: error: {lock} is a folder, where the store's lock file belongs; fix: remove it" in run.stderr


# -- what Zensical's preparation writes and removes in docs/ ---------------------------------------

ZENSICAL_YML = ("site_name: Test\nwatch: !!python/object/apply:build_hooks.hosts.zensical.site.prepare []\n"
                "theme:\n  name: material\n  font: false\n"
                "markdown_extensions:\n  - attr_list\n  - pymdownx.superfences\n"
                "  - build_hooks.hosts.markdown.extension\n")


def zensical(root, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zensical", "build"], cwd=root, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=300)


def test_zensical_bookkeeping_in_docs_never_removes_or_writes_outside(project, env, tmp_path_factory):
    project.proof("a", SCRIPT)
    record(project, "a")
    project.page("index.md", "# P\n\nhello\n")
    (project.root / "mkdocs.yml").write_text(ZENSICAL_YML)
    home = tmp_path_factory.mktemp("home")
    for name in ("victim", "listed", "abs"):
        (home / name).write_text("precious\n")
    docs = project.root / "docs"
    # the manifest of what an earlier build published is data: these are no files it wrote
    (docs / ".ldr-published.json").write_text(json.dumps(
        [f"../../{home.name}/listed", str(home / "abs"), "../mkdocs.yml", "./../pyproject.toml"]))
    (docs / ".ldr-inputs").symlink_to(home, target_is_directory=True)  # its files were all removed
    env = {**env, "LDR_RUN": "false"}
    out = zensical(project.root, env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert sorted(p.name for p in home.iterdir()) == ["abs", "listed", "victim"]
    assert all((home / name).read_text() == "precious\n" for name in ("victim", "listed", "abs"))
    assert (project.root / "mkdocs.yml").exists() and (project.root / "pyproject.toml").exists()
    assert (docs / ".ldr-inputs").is_dir() and not (docs / ".ldr-inputs").is_symlink()
    assert (docs / "proofs" / "a.py").read_bytes() == (project.root / "proofs" / "a.py").read_bytes()

    # a published folder that leads out of docs/ is an error naming it, and nothing is written there
    for item in (docs / "proofs").iterdir():
        item.unlink()
    (docs / "proofs").rmdir()
    (docs / "proofs").symlink_to(home, target_is_directory=True)
    out = zensical(project.root, env)
    assert out.returncode != 0
    assert f"{docs / 'proofs'}: a symlink that leads outside {docs}" in out.stdout + out.stderr
    assert sorted(p.name for p in home.iterdir()) == ["abs", "listed", "victim"]


# -- a proof in another encoding than UTF-8 --------------------------------------------------------

@pytest.mark.parametrize("raw, where", [
    (b'# -*- coding: latin-1 -*-\n"""Caf\xe9.\n\nIt prints.\n"""\nprint("caf\xe9")\n',
     "proofs/b.py:2: not UTF-8 text (byte 0xe9)"),
    (b'# coding: latin-1\n"""Plain.\n\nIt prints.\n"""\nprint("x")\n', "proofs/b.py: its coding line names iso-8859-1"),
])
def test_a_proof_that_is_not_utf8_is_one_error_naming_it(project, env, raw, where):
    project.proof("a", SCRIPT)
    (project.root / "proofs" / "b.py").write_bytes(raw)  # Python runs it; pages and notebooks cannot show it
    project.page("index.md", "# P\n\n```proof\nb\n```\n")
    fix = "a proof is shown and published as UTF-8 text; fix: save it as UTF-8"
    build, status = mkdocs(project.root, env, "--strict"), ldr(project.root, env, "status")
    no_traceback(build, status)
    assert build.returncode == 1 and where in build.stderr and fix in build.stderr
    assert status.returncode == 2 and where in status.stderr


def test_a_utf8_proof_with_a_bom_and_a_utf8_coding_line_builds(project, env):
    (project.root / "proofs" / "b.py").write_bytes(
        b'\xef\xbb\xbf# -*- coding: utf-8 -*-\n"""Caf\xc3\xa9.\n\nIt prints.\n"""\n' + SCRIPT.encode())
    project.page("index.md", "# P\n\n{{ b.TOLL.small_us }}\n\n```proof\nb\n```\n")
    build = mkdocs(project.root, env, "--strict")
    assert build.returncode == 0, build.stderr
    assert "Café" in (project.root / "site" / "index.html").read_text(encoding="utf-8")
    assert json.loads((project.root / "site" / "proofs" / "b.ipynb").read_text(encoding="utf-8"))["cells"]


def test_a_page_that_is_not_utf8_is_one_error_naming_it(project, env):
    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "docs" / "index.md").write_bytes(b"# P\n\n\xff\xfe {{ a.TOLL.small_us }}\n")
    for verbosity in ((), ("-q",)):
        build = mkdocs(project.root, env, "--strict", *verbosity)
        no_traceback(build)
        assert build.returncode == 1
        assert "docs/index.md: not UTF-8 text (byte 0xff at offset 5); fix: save the page as UTF-8" in build.stderr


# -- a lone surrogate: valid JSON, no text ---------------------------------------------------------

def test_a_lone_surrogate_is_a_data_line_problem_and_a_corrupt_record(project, env):
    project.proof("a", 'import json\nprint("S=" + json.dumps("x\\ud800"))\n'
                       'print("TOLL=" + json.dumps({"small_us": 1.0}))\n')
    project.page("index.md", "# P\n\n{{ a.TOLL.small_us }}\n\n```proof\na\n```\n")
    run = ldr(project.root, env, "run", "a")
    no_traceback(run)
    problem = "output line 1: S= holds \\ud800, a lone surrogate escape that is no character"
    assert problem in run.stdout + run.stderr
    build = mkdocs(project.root, env, "--strict")
    no_traceback(build)
    assert build.returncode == 1 and problem in build.stderr

    body = json.loads(project.record("a").read_text())
    body["stdout"] = ["a line \ud800"]  # as a hand-edited or foreign record might hold it
    project.record("a").write_text(json.dumps(body))
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    status, build = ldr(project.root, env, "status", "--json"), mkdocs(project.root, env, "--strict")
    no_traceback(status, build)
    corrupt = "field stdout holds \\ud800, a lone surrogate escape that is no character"
    assert corrupt in json.loads(status.stdout)["proofs"][0]["records"][0]["reasons"][0]
    assert build.returncode == 1 and corrupt in build.stderr


def test_a_scene_holding_a_lone_surrogate_is_a_drawing_error(project, env, tmp_path):
    (project.root / "drawings").mkdir()
    scene = project.root / "drawings" / "s.excalidraw"
    scene.write_text('{"type": "excalidraw", "elements": [{"id": "t1", "type": "text", "x": 0, "y": 0, '
                     '"width": 50, "height": 20, "text": "x\\ud800y", "fontSize": 20, "fontFamily": 1}]}')
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    project.page("index.md", "# P\n\n```figure\nsrc: s.excalidraw\nalt: x\n```\n")
    build = mkdocs(project.root, env, "--strict")
    draw = ldr(project.root, env, "draw", str(scene), str(tmp_path / "s.svg"))
    no_traceback(build, draw)
    message = "drawings/s.excalidraw: holds \\ud800, a lone surrogate escape that is no character"
    assert build.returncode == 1 and f"docs/index.md:3: figure: {message}" in build.stderr
    assert draw.returncode != 0 and "holds \\ud800, a lone surrogate" in draw.stdout + draw.stderr
    assert not (tmp_path / "s.svg").exists()


# -- Ctrl-C in a merge -----------------------------------------------------------------------------

def test_ctrl_c_in_a_merge_says_what_stays_and_loses_nothing(project, env, tmp_path):
    import fcntl
    import signal

    project.proof("a", SCRIPT)
    old = record(project, "a", measured_at="2026-11-01T00:00:00Z").read_bytes()
    record(project, "a", measured_at="2026-11-09T00:00:00Z", folder=tmp_path / "shard")
    lock = project.root / ".cache" / "ldr" / "store.lock"
    lock.parent.mkdir(parents=True)
    with open(lock, "a+") as held:  # a build holds the store: the merge waits, then is interrupted
        fcntl.flock(held, fcntl.LOCK_EX)
        merge = subprocess.Popen([sys.executable, "-m", "build_hooks.hosts.cli.main", "merge", str(tmp_path / "shard")],
                                 cwd=project.root, env={**os.environ, **env}, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        assert "waiting for the store lock" in merge.stderr.readline()
        merge.send_signal(signal.SIGINT)
        out, err = merge.communicate(timeout=60)
    assert merge.returncode == 130 and "Traceback" not in err
    assert ("ldr: interrupted; the merge stopped part-way: each record is the store's or the shard's whole, "
            "and any it replaced is kept in history; run the same `ldr merge` again") in err
    assert project.record("a").read_bytes() == old
    again = ldr(project.root, env, "merge", str(tmp_path / "shard"))
    assert again.returncode == 0 and "merged: a.cpu" in again.stdout


# -- a cache entry made by someone else ------------------------------------------------------------

def test_an_entry_sealed_by_whoever_can_write_the_cache_changes_no_page(project, env, tmp_path):
    import hashlib

    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    project.page("index.md", "# P\n\n```proof\na\n```\n")
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "home-cache")}  # the user's own: the key lives there
    assert mkdocs(project.root, env, "--strict").returncode == 0
    clean = (project.root / "site" / "index.html").read_text()
    entries = sorted((project.root / ".cache" / "ldr").rglob("*.*"))
    assert entries and (tmp_path / "home-cache" / "ldr-seal.key").stat().st_mode & 0o077 == 0
    for entry in entries:  # sealed as anyone can: the SHA-256 of the name and the forged body
        head, _, body = entry.read_bytes().partition(b"\n")
        forged = b"<script>alert('forged')</script>" + body
        name = entry.name[: -len(entry.suffix)]
        entry.write_bytes(head.split(b" ")[0] + b" " + hashlib.sha256(name.encode() + b"\0" + forged)
                          .hexdigest().encode() + b"\n" + forged)
    build = mkdocs(project.root, env, "--strict")
    assert build.returncode == 0, build.stderr
    assert (project.root / "site" / "index.html").read_text() == clean


# -- bidirectional controls: shown, never obeyed ---------------------------------------------------

def test_bidi_controls_in_output_and_values_are_shown_as_escapes_on_pages(project, env):
    project.proof("a", 'import json\nprint("took \\u202e1.5 us\\u202c, then \\u2067x\\u2069 \\u061c")\n'
                       'print("S=" + json.dumps({"label": "fast \\u202eslow"}))\n')
    project.page("index.md", "# P\n\nIt is {{ a.S.label }}.\n\n```proof\na\n```\n")
    build, status = mkdocs(project.root, env, "--strict"), ldr(project.root, env, "status", "a")
    assert build.returncode == 0, build.stderr
    page = (project.root / "site" / "index.html").read_text(encoding="utf-8")
    bidi = ["\u202e", "\u202c", "\u2067", "\u2069", "\u061c"]
    assert not [c for c in bidi if c in page], "a bidirectional control reached the page"
    assert "took \\u202e1.5 us\\u202c, then \\u2067x\\u2069 \\u061c" in page and "fast \\u202eslow" in page
    assert not [c for c in bidi if c in status.stdout + status.stderr]


# -- symlink loops ---------------------------------------------------------------------------------

def test_symlink_loops_are_named_as_loops_not_as_unwritable_folders(project, env):
    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    project.page("index.md", "# P\n\n{{ a.TOLL.small_us }}\n")
    for folder, one, two in (("docs", "m1.md", "m2.md"), ("drawings", "l1.excalidraw", "l2.excalidraw"),
                             ("data", "floors.yml", "f2.yml"), ("proofs", "b.py", "c.py")):
        (project.root / folder).mkdir(exist_ok=True)
        (project.root / folder / one).symlink_to(two)
        (project.root / folder / two).symlink_to(one)
    build, status = mkdocs(project.root, env, "--strict"), ldr(project.root, env, "status")
    no_traceback(build, status)
    assert status.returncode == 0 and "Too many levels" not in status.stdout + status.stderr
    assert build.returncode == 1 and "Too many levels" not in build.stderr
    loop = "is a symlink loop (it leads, through links, back to itself)"
    for shown in ("docs/m1.md", "drawings/l1.excalidraw", "data/floors.yml", "proofs/b.py"):
        assert f"{shown} {loop}" in build.stderr


# -- a shard record from the future ----------------------------------------------------------------

def test_a_shard_record_measured_in_the_future_is_refused(project, env, tmp_path):
    import datetime as dt

    from build_hooks.run.library import Library
    from build_hooks.store.merge import merge

    project.proof("a", SCRIPT)
    kept = record(project, "a").read_bytes()
    record(project, "a", measured_at="9999-12-31T23:59:59Z", folder=tmp_path / "shard")
    out = ldr(project.root, env, "merge", str(tmp_path / "shard"))
    no_traceback(out)
    assert out.returncode == 1
    assert ("proof a was measured at 9999-12-31T23:59:59Z, after this machine's clock (") in out.stdout
    assert "fix: set the clock of the machine that ran it and rerun it there" in out.stdout
    assert project.record("a").read_bytes() == kept  # it would have won every later merge

    # a day of skew is allowed, a day and a second is not (the clock is given, not read)
    record(project, "a", measured_at="2026-11-02T00:00:00Z", folder=tmp_path / "near")
    now = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    record(project, "a", measured_at="2026-11-02T00:00:01Z", folder=tmp_path / "far")
    library = Library(project.root)
    try:
        assert merge(library, [tmp_path / "far"], now=now).refused
        assert merge(library, [tmp_path / "near"], now=now).merged
    finally:
        library.close()


def test_a_page_that_is_not_utf8_is_named_under_zensical_too(project, env):
    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "mkdocs.yml").write_text(ZENSICAL_YML)
    (project.root / "docs" / "index.md").write_bytes(b"# P\n\n\xff\xfe bad\n")
    out = zensical(project.root, {**env, "LDR_RUN": "false"})
    assert out.returncode != 0
    assert "docs/index.md: not UTF-8 text (byte 0xff at offset 5); fix: save the page as UTF-8" in out.stderr
    assert "UnicodeDecodeError" not in out.stderr  # (Zensical prints its own traceback for any error)


def test_a_kept_quotes_file_nested_deep_or_holding_a_surrogate_is_named(project, env):
    project.proof("a", SCRIPT)
    record(project, "a")
    record(project, "a", torch="2.13.0", folder=project.root / "proofs" / "_results" / "_history" / "2.13.0")
    kept = project.root / "proofs" / "_results" / "_quotes" / "2.14.1.json"
    kept.parent.mkdir(parents=True)
    item = {"file": "x\ud800", "repo": None, "first": 1, "last": 1, "lines": ["a"], "at": []}
    for body, said in (("[" * 100_000 + "]" * 100_000, "not JSON a build writes (maximum recursion depth"),
                       (json.dumps({"format": 1, "torch": "2.14.1", "quotes": {"k": item}}),
                        "holds \\ud800, a lone surrogate escape that is no character")):
        kept.write_text(body)
        out = ldr(project.root, env, "drift")
        no_traceback(out)
        assert f"{kept}: {said}" in out.stdout + out.stderr


# -- a card's download is the proof's own file -----------------------------------------------------

def test_a_docs_file_at_a_proofs_download_path_never_replaces_the_proof(project, env):
    project.proof("a", SCRIPT)
    record(project, "a")
    (project.root / "mkdocs.yml").write_text(NO_RUN)
    project.page("index.md", "# P\n\n```proof\na\n```\n")
    (project.root / "docs" / "proofs").mkdir()
    (project.root / "docs" / "proofs" / "a.py").write_text('print("not the proof")\n')
    said = ("docs/proofs/a.py: the site publishes proofs/a.py for a proof's card to link, and docs/ has its "
            "own file there; the proof's is published; fix: remove or rename the file")
    strict, loose = mkdocs(project.root, env, "--strict"), mkdocs(project.root, env)
    assert strict.returncode == 1 and said in strict.stderr
    assert loose.returncode == 0 and said in loose.stderr
    assert (project.root / "site" / "proofs" / "a.py").read_bytes() == (project.root / "proofs" / "a.py").read_bytes()


# -- a shard that is the store ---------------------------------------------------------------------

def test_a_shard_folder_that_is_the_store_or_inside_it_is_refused(project, env, fake_python):
    project.proof("a", SCRIPT)
    kept = record(project, "a").read_bytes()
    older = fake_python(body='__version__ = "2.13.0"\nclass cuda:\n    is_available = staticmethod(lambda: False)\n'
                             "class backends:\n    mps = None\n")
    results = project.root / "proofs" / "_results"
    (project.root / "store-link").symlink_to(results, target_is_directory=True)
    for shard, what in (("proofs/_results", "the store"), ("store-link", "the store"),
                        ("proofs/_results/_history/2.14.1", "inside the store")):
        out = ldr(project.root, env, "run", "a", "--force", "--shard", shard, "--any-torch", "--python", older)
        no_traceback(out)
        assert out.returncode == 2, out.stdout + out.stderr
        assert f"is {what} ({results}): a shard is a folder of its own" in out.stderr
        assert project.record("a").read_bytes() == kept  # a 2.13.0 run replaced it, with no history
    assert not (results / "_history").exists()


@pytest.mark.parametrize("option, value", [("--repeat", "0"), ("--repeat", "-1"), ("--jobs", "0")])
def test_a_count_below_one_is_refused_not_read_as_one(project, env, option, value):
    project.proof("a", SCRIPT)
    out = ldr(project.root, env, "run", option, value)
    assert out.returncode == 2 and f"argument {option}: must be 1 or more, not {value}" in out.stderr
    assert not project.record("a").exists()
