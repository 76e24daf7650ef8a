"""What a build keeps for the next one besides rendered directives: the theme's compiled
templates (core/templates.py), the downloads' private copies linked into the site
(core/sitecopy.py), and what was read from proofs and records, by their files' stamps
(core/cache.py StampTable). Each is checked on real builds or real files: kept while nothing
moved, made again the moment something did, read as empty when torn."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

PROOF = 'print("the answer is 42")\n'
PAGE = "# Answer\n\n```proof\nanswer\n```\n"

# Prints how many templates jinja compiled in a real build run in this child process.
COUNT_COMPILES = """
import sys, jinja2
from mkdocs.__main__ import cli
count = [0]
original = jinja2.Environment.compile
def compile(self, *args, **kwargs):
    count[0] += 1
    return original(self, *args, **kwargs)
jinja2.Environment.compile = compile
try:
    cli(["build", "-q", "-d", "site"], standalone_mode=False)
finally:
    print("COMPILED", count[0])
"""


def compiled_in_build(root: Path) -> int:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-c", COUNT_COMPILES], cwd=root, capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split("COMPILED")[-1])


def test_a_second_build_compiles_no_theme_template_and_an_edit_compiles_again(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    first = compiled_in_build(project.root)
    assert first > 20  # mkdocs-material's main, base and partials
    # mkdocs-material's search plugin makes its own environment for the language partials.
    again = compiled_in_build(project.root)
    assert again <= 6 and again < first / 4
    (project.root / "overrides").mkdir()
    (project.root / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}\n{% block content %}<p id="edited-template">new</p>{{ super() }}{% endblock %}\n')
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("  font: false\n", "  font: false\n  custom_dir: overrides\n"))
    assert compiled_in_build(project.root) > again  # a new template compiles
    assert 'id="edited-template"' in (project.root / "site" / "index.html").read_text()
    (project.root / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}\n{% block content %}<p id="edited-twice">newer</p>{{ super() }}{% endblock %}\n')
    compiled_in_build(project.root)
    page = (project.root / "site" / "index.html").read_text()
    assert 'id="edited-twice"' in page and "edited-template" not in page


def test_torn_compiled_templates_are_compiled_again(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    compiled_in_build(project.root)
    entries = list((project.root / ".cache" / "ldr" / "templates").rglob("*.jbc"))
    assert len(entries) > 20
    for index, path in enumerate(entries):  # cut short, emptied, or someone else's bytes
        path.write_bytes(path.read_bytes()[: [10, 0, 200][index % 3]] if index % 3 != 2 else b"x" * 300)
    assert compiled_in_build(project.root) > 20
    assert "the answer is 42" in (project.root / "site" / "index.html").read_text()
    assert compiled_in_build(project.root) <= 6  # rewritten whole


def test_template_cache_can_be_turned_off(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("  - ldr\n", "  - ldr:\n      template_cache: false\n"))
    compiled_in_build(project.root)
    assert compiled_in_build(project.root) > 20
    assert not (project.root / ".cache" / "ldr" / "templates").exists()


def test_downloads_are_links_to_private_copies_and_an_edit_in_the_site_reaches_nothing(project):
    script = project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    site_copy = project.root / "site" / "proofs" / "answer.py"
    private = project.root / ".cache" / "ldr" / "site-copies" / "files" / "proofs" / "answer.py"
    assert os.path.samefile(site_copy, private) and not os.path.samefile(site_copy, script)
    notebook = project.root / "site" / "proofs" / "answer.ipynb"
    assert notebook.stat().st_nlink == 2 and '"the answer is 42' in notebook.read_text()
    assert (project.root / "site" / "assets" / "ldr" / "ldr-proofs.css").stat().st_nlink == 2
    # A post-processor edits the published script in place: the author's file is untouched,
    # and the next build publishes the author's file again, not the edit.
    with open(site_copy, "r+") as handle:
        handle.write("# minified\n")
    assert script.read_text().endswith(PROOF)
    assert project.build().returncode == 0
    assert (project.root / "site" / "proofs" / "answer.py").read_text() == script.read_text()
    # The author edits the script: the site shows the edit.
    script.write_text(script.read_text().replace("42", "43"))
    assert project.build().returncode == 0
    assert "43" in (project.root / "site" / "proofs" / "answer.py").read_text()


def test_downloads_are_copied_where_no_link_can_be_made(project, monkeypatch):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0  # records the proof

    def refuse(*args, **kwargs):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refuse)
    monkeypatch.chdir(project.root)
    config = load_config(str(project.root / "mkdocs.yml"), site_dir=str(project.root / "other-site"))
    config.plugins.on_startup(command="build", dirty=False)
    build(config)
    config.plugins.on_shutdown()
    published = project.root / "other-site" / "proofs" / "answer.py"
    assert published.stat().st_nlink == 1 and published.read_text() == (project.root / "proofs" / "answer.py").read_text()


def test_a_torn_copies_manifest_reads_as_empty(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    manifest = project.root / ".cache" / "ldr" / "site-copies" / "manifest.json"
    manifest.write_text('{"proofs/answer.py": [[1, 2')
    assert project.build().returncode == 0
    assert (project.root / "site" / "proofs" / "answer.py").read_text() == (project.root / "proofs" / "answer.py").read_text()
    assert manifest.read_text().startswith("{") and manifest.read_text().endswith("}")


def age(path: Path, seconds: float = 30) -> None:
    """Set a file's times into the past, as for any file not written just now."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_fresh_process_knows_unchanged_proofs_and_records_without_reading_them(project, monkeypatch):
    from build_hooks.core import cache, discovery, store
    from build_hooks.core.library import Library

    script = project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    record = project.record("answer")
    age(script), age(record)
    first = Library(project.root)
    before = first.store.read("answer", "cpu")
    assert first.plan() == []  # plan() keeps what it read for the next process
    # A new process: nothing in memory; neither the script nor its record is opened.
    discovery._SEEN.clear(), discovery._TABLES.clear(), store._PARSED.clear(), cache.clear_memory()
    real_read_bytes, real_read_text = Path.read_bytes, Path.read_text

    def guarded(real):
        def read(self, *args, **kwargs):
            assert self not in (script, record), f"{self} was read again"
            return real(self, *args, **kwargs)
        return read

    monkeypatch.setattr(Path, "read_bytes", guarded(real_read_bytes))
    monkeypatch.setattr(Path, "read_text", guarded(real_read_text))
    second = Library(project.root)
    assert second.proofs["answer"].sha256 == first.proofs["answer"].sha256
    assert second.store.read("answer", "cpu") == before and second.plan() == []
    monkeypatch.undo()
    # An edit moves the script's stamp: it is read and the proof is stale.
    discovery._SEEN.clear(), discovery._TABLES.clear(), store._PARSED.clear()
    script.write_text(script.read_text().replace("42", "41"))
    third = Library(project.root)
    assert third.proofs["answer"].sha256 != first.proofs["answer"].sha256
    assert [proof.name for proof in third.plan()] == ["answer"]


def test_a_file_written_just_now_is_not_trusted_by_its_stamp(tmp_path):
    from build_hooks.core.cache import StampTable

    table = StampTable(tmp_path / "t.marshal")
    fresh, old = tmp_path / "fresh.txt", tmp_path / "old.txt"
    fresh.write_text("a"), old.write_text("b")
    age(old)
    table.put(fresh, "kept?"), table.put(old, "kept")
    table.save()
    again = StampTable(tmp_path / "t.marshal")
    assert again.get(fresh) is None and again.get(old) == "kept"
    with open(old, "w") as handle:  # the same size, in place: the time moves
        handle.write("c")
    assert again.get(old) is None


@pytest.mark.parametrize("content", [b"", b"\x00\x01garbage", b"\xe3" * 40])
def test_a_torn_stamp_table_reads_as_empty(tmp_path, content):
    from build_hooks.core.cache import StampTable

    path = tmp_path / "t.marshal"
    old = tmp_path / "old.txt"
    old.write_text("b")
    age(old)
    table = StampTable(path)
    table.put(old, ("value", 1))
    table.save()
    assert StampTable(path).get(old) == ("value", 1)
    path.write_bytes(content)
    torn = StampTable(path)
    assert torn.get(old) is None
    torn.put(old, ("value", 2))
    torn.save()
    assert StampTable(path).get(old) == ("value", 2)


def test_rendered_directives_are_not_reused_while_a_scene_was_saved_just_now(project):
    """A scene saved twice within one tick of its file time, at the same size, keeps its stamp:
    the memo's world is not trusted while one is that fresh, and is again once it has aged."""
    from build_hooks.core.layout import Layout
    from build_hooks.core.memo import world_digest

    (project.root / "drawings").mkdir()
    scene = project.root / "drawings" / "box.excalidraw"
    scene.write_text('{"type": "excalidraw", "elements": []}')
    layout = Layout.at(project.root)
    assert world_digest(layout, {}, "2.14.1") != world_digest(layout, {}, "2.14.1")
    age(scene)
    assert world_digest(layout, {}, "2.14.1") == world_digest(layout, {}, "2.14.1")
    with open(scene, "r+") as handle:  # the same size, in place
        handle.write('{"type": "excalidraw", "elements": []}'.replace("[]", "{}"))
    assert world_digest(layout, {}, "2.14.1") != world_digest(layout, {}, "2.14.1")


def build_without_running(root: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cwd = os.getcwd()
    os.chdir(root)
    try:
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
        config.plugins["ldr"].config.run = False  # only the published copy is under test
        config.plugins.on_startup(command="build", dirty=False)
        build(config)
        config.plugins.on_shutdown()
    finally:
        os.chdir(cwd)


def test_a_script_saved_again_within_its_time_tick_is_published_again(project):
    script = project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build(strict=False).returncode == 0
    build_without_running(project.root)  # imports warm: the next builds take a fraction of a second
    script.write_text(script.read_text().replace("42", "43"))  # saved just now
    build_without_running(project.root)
    assert "43" in (project.root / "site" / "proofs" / "answer.py").read_text()
    before = os.stat(script)
    script.write_text(script.read_text().replace("43", "44"))  # the same size ...
    os.utime(script, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... in the same tick
    after = os.stat(script)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)
    if time.time_ns() - before.st_mtime_ns >= 2_000_000_000:
        pytest.skip("the build took longer than the racy window")
    build_without_running(project.root)
    assert "44" in (project.root / "site" / "proofs" / "answer.py").read_text()
