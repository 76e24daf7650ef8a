"""Only regular files inside the project are read or published (core/safefs.py).

A symlink that leaves its folder (to /proc/self/environ, to a file elsewhere in the project as
``../.git/config`` would be, to /etc/passwd, to /dev/zero), a FIFO, in drawings/, proofs/, docs/ or
data/: a strict build fails naming it and the fix, a plain build warns and publishes nothing of
it, and no build waits on a FIFO (each build here is a real ``mkdocs build`` subprocess with a
timeout). A symlink that stays inside its folder keeps working."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from build_hooks.core.errors import LdrError
from build_hooks.site.downloads import downloads
from build_hooks.site.publish import publish

SECRET = "ldr-test-secret-5b1e9"  # in the build's environment, and in the file outside drawings/
SCENE = {"type": "excalidraw", "elements": [{"id": "r1", "type": "rectangle", "x": 0, "y": 0, "width": 80,
                                             "height": 40, "seed": 1}]}
BAD = ("environ", "outside", "passwd", "zero", "fifo")


@pytest.fixture
def site(project):
    """A project that builds with its records only (``run: !ENV [LDR_RUN, true]``, as this repo's)."""
    (project.root / "mkdocs.yml").write_text(
        "site_name: Test\ntheme:\n  name: material\n  font: false\n"
        "plugins:\n  - ldr:\n      run: !ENV [LDR_RUN, true]\n")
    (project.root / "drawings").mkdir()
    (project.root / "drawings" / "box.excalidraw").write_text(json.dumps(SCENE))
    (project.root / "config").write_text(f"[core]\n\ttoken = {SECRET}\n")  # as ../.git/config would be
    project.page("index.md", "# Home\n\nProse.\n")
    return project


def build(project, strict: bool) -> subprocess.CompletedProcess:
    """A real build as the pages workflow runs it; one that hangs fails the test at the timeout."""
    env = dict(os.environ, LDR_RUN="false", NO_MKDOCS_2_WARNING="1", LDR_TEST_TOKEN=SECRET)
    args = [sys.executable, "-m", "mkdocs", "build", "-d", "site", *(["--strict"] if strict else [])]
    return subprocess.run(args, cwd=project.root, env=env, capture_output=True, text=True, timeout=120)


def bad_file(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        target = {"environ": "/proc/self/environ", "outside": "../config", "passwd": "/etc/passwd",
                  "zero": "/dev/zero"}[kind]
        path.symlink_to(target)


def site_text(project) -> str:
    """Everything the built site holds, as text."""
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in (project.root / "site").rglob("*")
                   if p.is_file())


@pytest.mark.parametrize("kind", BAD)
def test_a_strict_build_fails_naming_a_bad_scene(site, kind):
    bad_file(site.root / "drawings" / "bad.excalidraw", kind)
    done = build(site, strict=True)
    assert done.returncode != 0
    fix = "replace it with a regular file"
    assert "drawings/bad.excalidraw is a" in done.stderr and fix in done.stderr, done.stderr
    assert not (site.root / "site" / "drawings" / "bad.excalidraw").exists()
    assert SECRET not in done.stderr and "root:x:0" not in done.stderr


def test_a_plain_build_warns_and_publishes_nothing_of_them(site):
    for kind in BAD:
        bad_file(site.root / "drawings" / f"{kind}.excalidraw", kind)
    (site.root / "drawings" / "alias.excalidraw").symlink_to("box.excalidraw")  # inside: fine
    done = build(site, strict=False)
    assert done.returncode == 0, done.stderr
    for kind in BAD:
        warning = [line for line in done.stderr.splitlines() if f"drawings/{kind}.excalidraw" in line]
        assert warning and warning[0].startswith("WARNING") and "fix: replace it with a regular file" in warning[0]
    published = sorted(p.name for p in (site.root / "site" / "drawings").iterdir())
    assert published == ["alias.excalidraw", "box.excalidraw"]
    assert (site.root / "site" / "drawings" / "alias.excalidraw").read_text() == json.dumps(SCENE)
    text = site_text(site)
    assert SECRET not in text and "root:x:0" not in text


def test_a_symlink_inside_drawings_is_published_and_drawn(site):
    (site.root / "drawings" / "alias.excalidraw").symlink_to("box.excalidraw")
    site.page("index.md", "# Home\n\n```figure\nsrc: alias.excalidraw\nalt: A box\n```\n")
    done = build(site, strict=True)
    assert done.returncode == 0, done.stderr
    assert (site.root / "site" / "drawings" / "alias.excalidraw").read_text() == json.dumps(SCENE)
    assert 'aria-label="A box"' in site.html()


@pytest.mark.parametrize("kind", ["outside", "fifo"])
def test_a_figure_of_a_bad_scene_fails_at_its_line(site, kind):
    bad_file(site.root / "drawings" / "bad.excalidraw", kind)
    site.page("index.md", "# Home\n\nProse.\n\n```figure\nsrc: bad.excalidraw\n```\n")
    for strict in (True, False):
        done = build(site, strict=strict)
        assert done.returncode != 0
        assert "docs/index.md:5: figure: drawings/bad.excalidraw is a" in done.stderr, done.stderr
        assert SECRET not in done.stderr


def test_a_fifo_helper_fails_the_build_without_waiting(site):
    site.proof("uses_helper", "import _helper\nprint(_helper.X)\n")
    os.mkfifo(site.root / "proofs" / "_helper.py")
    done = build(site, strict=False)
    assert done.returncode != 0
    assert ("proofs/uses_helper.py:4: `import _helper` imports the local helper _helper, but "
            "proofs/_helper.py is a FIFO (named pipe)") in done.stderr, done.stderr
    assert "fix: replace it with a regular file" in done.stderr


def test_a_helper_that_leaves_proofs_is_refused(site):
    site.proof("uses_helper", "import _helper\nprint(_helper.X)\n")
    (site.root / "proofs" / "_helper.py").symlink_to("../config")
    done = build(site, strict=False)
    assert done.returncode != 0
    assert "proofs/_helper.py is a symlink that leads outside" in done.stderr, done.stderr
    assert SECRET not in done.stderr


def test_bad_proof_scripts_are_neither_read_nor_published(site):
    site.proof("good", "print(1)\n")
    os.mkfifo(site.root / "proofs" / "piped.py")
    (site.root / "proofs" / "leaked.py").symlink_to("/proc/self/environ")
    (site.root / "proofs" / "alias.py").symlink_to("good.py")  # inside proofs/: a proof like any other
    done = build(site, strict=False)
    assert done.returncode == 0, done.stderr
    assert "proofs/piped.py is a FIFO (named pipe): the build neither reads nor publishes it" in done.stderr
    assert "proofs/leaked.py is a symlink that leads outside" in done.stderr
    published = sorted(p.name for p in (site.root / "site" / "proofs").iterdir())
    assert published == ["alias.ipynb", "alias.py", "alias.py.html", "good.ipynb", "good.py", "good.py.html"]
    assert SECRET not in site_text(site)
    strict = build(site, strict=True)
    assert strict.returncode != 0 and "proofs/piped.py is a FIFO" in strict.stderr
    (site.root / "proofs" / "piped.py").unlink()
    (site.root / "proofs" / "leaked.py").unlink()
    assert build(site, strict=True).returncode == 0  # what failed it was them


def test_docs_and_data_files_that_leave_their_folder_are_refused(site):
    (site.root / "docs" / "leak.txt").symlink_to("../config")
    os.mkfifo(site.root / "docs" / "pipe.md")
    (site.root / "data").mkdir()
    (site.root / "data" / "floors.yml").symlink_to("../config")
    done = build(site, strict=False)
    assert done.returncode == 0, done.stderr
    for name in ("docs/leak.txt is a symlink that leads outside", "docs/pipe.md is a FIFO (named pipe)",
                 "data/floors.yml is a symlink that leads outside"):
        assert name in done.stderr, done.stderr
    assert not (site.root / "site" / "leak.txt").exists() and not (site.root / "site" / "pipe").exists()
    assert SECRET not in site_text(site) and SECRET not in done.stderr
    strict = build(site, strict=True)
    assert strict.returncode != 0 and "data/floors.yml is a symlink" in strict.stderr


def test_downloads_lists_the_refused_files(tmp_path):
    (tmp_path / "drawings").mkdir()
    (tmp_path / "drawings" / "ok.excalidraw").write_text("{}")
    (tmp_path / "drawings" / "in.excalidraw").symlink_to("ok.excalidraw")
    (tmp_path / "drawings" / "out.excalidraw").symlink_to("/etc/passwd")
    os.mkfifo(tmp_path / "drawings" / "pipe.excalidraw")
    refused: list[str] = []
    listed = downloads(tmp_path, {}, refused=refused)
    assert [uri for uri, _ in listed] == ["drawings/in.excalidraw", "drawings/ok.excalidraw"]
    assert [message.split(" is ")[0] for message in refused] == ["drawings/out.excalidraw", "drawings/pipe.excalidraw"]


def test_publish_refuses_a_source_that_leaves_its_folder(tmp_path):
    (tmp_path / "drawings").mkdir()
    (tmp_path / "drawings" / "out.excalidraw").symlink_to("/etc/passwd")
    (tmp_path / "docs").mkdir()
    with pytest.raises(LdrError, match="symlink that leads outside"):
        publish(tmp_path, tmp_path / "docs", [("drawings/out.excalidraw", tmp_path / "drawings" / "out.excalidraw")])
    assert not (tmp_path / "docs" / "drawings").exists()


def test_page_lists_outside_the_plugin_skip_fifos_and_outside_symlinks(site):
    """``ldr diff``, the proofs index and Zensical list docs/*.md themselves: a FIFO page does not
    hang them, and a page that leads out of docs/ is not read (a subprocess, so a hang times out)."""
    os.mkfifo(site.root / "docs" / "pipe.md")
    (site.root / "docs" / "leak.md").symlink_to("../config")
    (site.root / "docs" / "alias.md").symlink_to("index.md")
    code = ("import sys; from pathlib import Path; from build_hooks.site.index import site_pages; "
            "from build_hooks.upgrade.diff import quotes; "
            "from build_hooks.hosts.zensical.pages import site_pages as zensical_pages; "
            "root = Path(sys.argv[1]); quotes(root); "
            "docs = root / 'docs'; "
            "print(sorted(p[0] for p in site_pages(docs)), sorted(p[0] for p in zensical_pages(docs)))")
    done = subprocess.run([sys.executable, "-c", code, str(site.root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['alias.md', 'index.md'] ['alias.md', 'index.md']"


def test_real_path_says_what_realpath_says(tmp_path):
    """safefs.real_path (the kernel's answer where it can give one) against os.path.realpath,
    on the paths containment checks meet: files, folders, relative paths, symlinks inside and
    outside, chains, dangling links, loops, a FIFO, '..' after a link, a missing path."""
    from build_hooks.core.safefs import check_inside, real_path

    inside, outside = tmp_path / "proofs", tmp_path / "secret"
    (inside / "sub").mkdir(parents=True)
    outside.mkdir()
    (inside / "a.py").write_text("x")
    (outside / "key").write_text("k")
    links = {"in": inside / "a.py", "out": outside / "key", "dir": outside, "chain": inside / "in",
             "dangling": tmp_path / "gone", "loop": inside / "loop", "up": inside / "sub"}
    for name, target in links.items():
        (inside / name).symlink_to(target)
    os.mkfifo(inside / "pipe")
    paths = [inside / "a.py", inside, inside / "sub", inside / "pipe", inside / "missing.py",
             inside / "up" / ".." / "a.py", inside / "dir" / "key", *(inside / name for name in links)]
    cwd = os.getcwd()
    os.chdir(inside)
    try:
        for path in [*paths, Path("a.py"), Path("sub/../in"), Path("out")]:
            assert real_path(path) == os.path.realpath(path), path
    finally:
        os.chdir(cwd)
    assert check_inside(inside / "chain", inside) == inside / "chain"
    # a sibling folder whose name starts with the folder's ("proofs-old" beside "proofs"): the
    # real paths are compared as strings, and a bare prefix test would take it for inside
    twin = tmp_path / "proofs-old"
    twin.mkdir()
    (twin / "key").write_text("k")
    (inside / "twin").symlink_to(twin / "key")
    for name in ("out", "dir", "dangling", "twin"):
        with pytest.raises(LdrError, match="leads outside"):
            check_inside(inside / name, inside)


def test_a_symlink_swapped_in_after_the_check_is_still_refused(tmp_path, monkeypatch):
    """safefs checks a plain entry of its folder with one lstat and then opens it without
    following a symlink. A symlink put in its place between the two (here: the lstat is the
    one taken before the swap) makes the kernel refuse the open, and the full check then
    refuses the link; ``../secret`` is never read."""
    from build_hooks.core import safefs

    inside, secret = tmp_path / "proofs", tmp_path / "secret"
    inside.mkdir()
    secret.write_text("key")
    entry = inside / "a.py"
    entry.write_text("x = 1\n")
    assert safefs.read_text(entry, inside=inside) == "x = 1\n"
    before = os.lstat(entry)
    entry.unlink()
    entry.symlink_to(secret)
    taken = [before]  # the first check sees the old file; the next ones look again
    real_entry_stat = safefs._entry_stat
    monkeypatch.setattr(safefs, "_entry_stat",
                        lambda path, folder: taken.pop() if taken else real_entry_stat(path, folder))
    with pytest.raises(LdrError, match="leads outside"):
        safefs.read_text(entry, inside=inside)


def test_the_one_lstat_check_agrees_with_the_full_one(tmp_path):
    """check_regular and read_bytes with the one-lstat path against the real-path comparison, on
    every kind of entry a folder can hold: each accepts and refuses the same entries."""
    from build_hooks.core import safefs

    inside, outside = tmp_path / "drawings", tmp_path / "elsewhere"
    inside.mkdir()
    outside.mkdir()
    (outside / "key").write_text("k")
    (inside / "a.excalidraw").write_text("{}")
    (inside / "sub").mkdir()
    (inside / "in").symlink_to(inside / "a.excalidraw")
    (inside / "out").symlink_to(outside / "key")
    os.mkfifo(inside / "pipe")
    names = ["a.excalidraw", "sub", "in", "out", "pipe", "missing", ".."]

    def outcome(call, path):
        try:
            call(path)
            return "ok"
        except LdrError as exc:
            return f"refused: {exc.what}"
        except OSError as exc:
            return type(exc).__name__

    fast = {name: (outcome(lambda p: safefs.check_regular(p, inside).st_mode, inside / name),
                   outcome(lambda p: safefs.read_bytes(p, inside=inside), inside / name)) for name in names}
    original = safefs._entry_stat
    try:
        safefs._entry_stat = lambda path, folder: None  # every check resolves both real paths
        full = {name: (outcome(lambda p: safefs.check_regular(p, inside).st_mode, inside / name),
                       outcome(lambda p: safefs.read_bytes(p, inside=inside), inside / name)) for name in names}
    finally:
        safefs._entry_stat = original
    assert fast == full
    assert fast["a.excalidraw"] == ("ok", "ok") and fast["in"] == ("ok", "ok")
    assert fast["out"][0].startswith("refused: a symlink that leads outside")
    assert fast["pipe"][0] == "refused: a FIFO (named pipe)"


def test_read_fd_reads_everything_or_one_byte_past_its_bound(tmp_path):
    """read_bytes, the shelf's comparison and the memo's digests read through read_fd: with a
    bound it stops one byte past it (how a file over a limit, or longer than a body, is told)."""
    from build_hooks.core.safefs import MiB, read_fd

    path = tmp_path / "f"
    path.write_bytes(b"x" * (MiB + 10))
    for most, expected in [(None, MiB + 10), (4, 5), (MiB, MiB + 1), (MiB + 10, MiB + 10), (2 * MiB, MiB + 10), (0, 1)]:
        fd = os.open(path, os.O_RDONLY)
        try:
            assert len(read_fd(fd, most)) == expected, most
        finally:
            os.close(fd)
