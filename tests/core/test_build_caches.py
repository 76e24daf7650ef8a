"""What a build keeps for the next one: the theme's compiled templates (site/templates.py,
jinja's own file cache) and the shelf the package's files are linked from (site/shelf.py).
And what it no longer keeps: every fresh process reads each proof and record again (no table of what
an earlier process read by the files' stamps). Checked on real builds and real files.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

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
    entries = list((project.root / ".cache" / "ldr" / "templates").rglob("*.cache"))
    assert len(entries) > 20
    for index, path in enumerate(entries):  # cut short, emptied, flipped, or someone else's bytes
        data = path.read_bytes()
        path.write_bytes([data[:10], b"", data[:40] + bytes(b ^ 0x5A for b in data[40:200]) + data[200:],
                          b"x" * 300][index % 4])
    assert compiled_in_build(project.root) > 20
    assert "the answer is 42" in (project.root / "site" / "index.html").read_text()
    assert compiled_in_build(project.root) <= 6  # rewritten whole


def test_a_fifo_or_a_symlink_to_dev_zero_among_compiled_templates_is_a_miss(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    compiled_in_build(project.root)
    entries = sorted((project.root / ".cache" / "ldr" / "templates").rglob("*.cache"))
    for index, path in enumerate(entries):
        path.unlink()
        if index % 2:
            os.mkfifo(path)  # stock jinja opens it for reading and waits for a writer forever
        else:
            path.symlink_to("/dev/zero")
    assert compiled_in_build(project.root) > 20  # compiled, not hung (subprocess timeout 300 s)
    assert all(path.is_file() and not path.is_symlink() for path in entries)  # written over
    assert compiled_in_build(project.root) <= 6


def test_an_unwritable_template_cache_still_builds(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    folder = project.root / ".cache" / "ldr" / "templates"
    shutil.rmtree(folder)
    folder.write_text("not a folder")  # nothing can be written under it
    assert compiled_in_build(project.root) > 20
    assert "the answer is 42" in (project.root / "site" / "index.html").read_text()


def test_template_cache_can_be_turned_off(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("  - ldr\n", "  - ldr:\n      template_cache: false\n"))
    compiled_in_build(project.root)
    assert compiled_in_build(project.root) > 20
    assert not (project.root / ".cache" / "ldr" / "templates").exists()


def shelf_entries(root: Path) -> list[Path]:
    folder = root / ".cache" / "ldr" / "shelf"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_downloads_are_links_to_the_shelf_and_an_edit_in_the_site_reaches_nothing(project):
    script = project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    site_copy = project.root / "site" / "proofs" / "answer.py"
    # The site's file and the shelf's entry for its bytes are one file; the author's is another.
    assert site_copy.stat().st_nlink == 2 and not os.path.samefile(site_copy, script)
    assert script.stat().st_nlink == 1
    assert any(os.path.samefile(site_copy, entry) for entry in shelf_entries(project.root))
    notebook = project.root / "site" / "proofs" / "answer.ipynb"
    assert notebook.stat().st_nlink == 2 and '"the answer is 42' in notebook.read_text()
    assert (project.root / "site" / "assets" / "ldr" / "ldr-proofs.css").stat().st_nlink == 2
    # A post-processor edits the published script in place (the shelf's entry with it): the
    # author's file is untouched, and the next build publishes the author's bytes again.
    with open(site_copy, "r+") as handle:
        handle.write("# minified\n")
    assert script.read_text().endswith(PROOF)
    assert project.build().returncode == 0
    assert (project.root / "site" / "proofs" / "answer.py").read_text() == script.read_text()
    assert not any(b"# minified" in entry.read_bytes() for entry in shelf_entries(project.root))
    assert script.stat().st_nlink == 1


def test_the_shelf_keeps_what_the_last_build_linked_and_nothing_else(project):
    script = project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    before = {entry.name for entry in shelf_entries(project.root)}
    old = hashlib.sha256(script.read_bytes()).hexdigest()
    assert old in before
    project.proof("answer", 'print("the answer is 43")\n')
    assert project.build().returncode == 0
    after = {entry.name for entry in shelf_entries(project.root)}
    assert old not in after and hashlib.sha256(script.read_bytes()).hexdigest() in after
    published = [path for path in (project.root / "site").rglob("*") if path.is_file() and path.stat().st_nlink == 2]
    assert len(after) == len({hashlib.sha256(path.read_bytes()).hexdigest() for path in published})


def test_link_files_false_writes_each_file(project):
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("  - ldr\n", "  - ldr:\n      link_files: false\n"))
    assert project.build().returncode == 0
    site = project.root / "site"
    for uri in ("proofs/answer.py", "proofs/answer.ipynb", "proofs/answer.py.html", "assets/ldr/ldr-proofs.css"):
        assert (site / uri).stat().st_nlink == 1, uri
    assert not shelf_entries(project.root)


def age(path: Path, seconds: float = 30) -> None:
    """Set a file's times into the past, as for any file not written just now."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_record_rewritten_with_its_old_time_and_size_shows_in_the_next_build(project):
    """A fresh process reads every record: nothing it read before is trusted by the file's
    time, size and inode (an edited row of such a table once showed output no record held)."""
    project.proof("answer", PROOF)
    project.page("index.md", PAGE)
    assert project.build().returncode == 0
    record = project.record("answer")
    age(record)
    assert project.build().returncode == 0  # a warm build, as an author's next one
    before = os.stat(record)
    with open(record, "r+") as handle:  # the same size, in place (the inode stays) ...
        text = handle.read()
        handle.seek(0)
        handle.write(text.replace("the answer is 42", "the answer is 24"))
    os.utime(record, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... and the same time
    after = os.stat(record)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)
    done = project.build(strict=False)  # the record is fresh for the same script: nothing runs
    assert done.returncode == 0, done.stderr
    page = project.html()
    assert "the answer is 24" in page  # the output; the source still prints 42


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
    script.write_text(script.read_text().replace("42", "43"))
    build_without_running(project.root)
    assert "43" in (project.root / "site" / "proofs" / "answer.py").read_text()
    before = os.stat(script)
    script.write_text(script.read_text().replace("43", "44"))  # the same size ...
    os.utime(script, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... in the same tick
    after = os.stat(script)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)
    build_without_running(project.root)
    assert "44" in (project.root / "site" / "proofs" / "answer.py").read_text()
