"""Acceptance on the real series: a copy of this repository built strict on tmp_path."""

from __future__ import annotations

import html as htmllib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from build_hooks.proofs.datalines import lookup
from build_hooks.render.values import format_value

REPO = Path(__file__).resolve().parents[1]
ATTR = re.compile(r'([a-z-]+)="([^"]*)"')


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("series")
    for name in ("docs", "proofs", "drawings", "theme", "data"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "_make"))
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(REPO / name, root / name)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    runs = []
    for _ in range(2):
        runs.append(subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"],
                                   cwd=root, capture_output=True, text=True, env=env, timeout=600))
    return root, runs


def test_strict_build_succeeds_and_the_committed_store_is_fresh(built):
    root, (first, second) = built
    assert first.returncode == 0, first.stderr[-3000:]
    assert "running" not in first.stderr, "the committed store should be fresh: run `ldr run` and commit it"
    assert second.returncode == 0 and "running" not in second.stderr
    check = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "check"], cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr


def page(root: Path, name: str) -> str:
    return (root / "site" / name / "index.html").read_text()


def test_every_page_shows_the_cards_its_markdown_asks_for_with_working_downloads(built):
    """Whatever the chapters hold: each page has one card per ``proof`` fence of its Markdown,
    anchored by the proof's name, and each card's download is the script byte for byte."""
    from build_hooks.directives.registry import registry
    from build_hooks.hosts.markdown.fences import card_names

    root, _ = built
    checked = 0
    for source in sorted((REPO / "docs").rglob("*.md")):
        wanted = set(card_names(source.read_text(encoding="utf-8"), registry(["build_hooks.series"])))
        if not wanted:
            continue
        name = source.relative_to(REPO / "docs").with_suffix("").as_posix()
        folder = name[: -len("index")].rstrip("/") if name.endswith("index") else name
        html = (root / "site" / folder / "index.html").read_text()
        cards = set(re.findall(r'<section class="ldr-proof" id="proof-([a-z0-9_]+)"', html))
        assert cards == wanted, source
        downloads = re.findall(r'<a class="ldr-proof__download" href="([^"]+)"', html)
        assert len(downloads) == len(wanted), source
        for href in downloads:
            target = (root / "site" / folder / href).resolve()
            assert target.is_file() and target.read_bytes() == (REPO / "proofs" / target.name).read_bytes()
        checked += len(wanted)
    assert checked >= 1


def test_every_card_links_its_source_page_and_no_chapter_carries_the_source(built):
    """A card's source is one click away (a plain link, with or without JavaScript) on the script's
    own page, which shows the script line for line and leads back to the card."""
    root, _ = built
    checked = 0
    for path in sorted((root / "site").rglob("index.html")):
        html = path.read_text(encoding="utf-8")
        for card in re.findall(r'<section class="ldr-proof" id="proof-[a-z0-9_]+".*?</section>', html, re.S):
            name = re.match(r'<section class="ldr-proof" id="proof-([a-z0-9_]+)"', card).group(1)
            # the only code blocks of a card are its outputs: no highlighted script, folded or not
            assert card.count("<pre") == len(re.findall(r'<pre class="ldr-proof__(?:output|traceback)"', card)), name
            [href] = re.findall(r'<p class="ldr-proof__source"><a href="([^"]+)">', card)
            target = (path.parent / href).resolve()
            assert target == root / "site" / "proofs" / f"{name}.py.html", (path, href)
            page = target.read_text(encoding="utf-8")
            code = re.search(r'<pre class="code"><code>(.*?)</code></pre>', page, re.S).group(1)
            script = (REPO / "proofs" / f"{name}.py").read_text(encoding="utf-8")
            assert htmllib.unescape(re.sub(r"<[^>]+>", "", code)) == script.rstrip("\n"), name
            back = re.search(r'<p class="back"><a href="([^"#]+)#proof-([a-z0-9_]+)">', page)
            assert back and back.group(2) == name and (target.parent / back.group(1) / "index.html").is_file()
            checked += 1
    assert checked >= 20


def test_every_inline_value_equals_its_record(built):
    root, _ = built
    checked = 0
    for path in (root / "site").rglob("index.html"):
        for attrs, text in re.findall(r'<span (class="ldr-value"[^>]*)>([^<]*)</span>', path.read_text()):
            a = {k: htmllib.unescape(v) for k, v in ATTR.findall(attrs)}
            record = json.loads((REPO / "proofs" / "_results" / f"{a['data-proof']}.cpu.json").read_text())
            expected = format_value(lookup(record["data"], a["data-key"]), a["data-format"])
            assert htmllib.unescape(text) == expected, f"{path}: {a['data-proof']}.{a['data-key']}"
            checked += 1
    assert checked >= 20, f"Part 0 should quote its numbers from proofs; found {checked} inline values"


def test_no_page_shows_value_syntax_to_readers(built):
    """A value written inside backticks is shown literally (code spans are code): on the real
    pages every value must render, so none of them shows `{{ proof.KEY }}` as text."""
    from build_hooks.pages.locate import VALUE

    root, _ = built
    literal = [f"{path.relative_to(root / 'site')}: {htmllib.unescape(m.group(0))}"
               for path in (root / "site").rglob("index.html") for m in VALUE.finditer(path.read_text())]
    assert not literal, ("values shown as text (move them out of backticks; <code>{{ x }}</code> renders):\n"
                         + "\n".join(literal))


def test_every_excerpt_and_card_output_matches_the_record(built):
    root, _ = built
    html = page(root, "part-00-the-map")
    excerpts = re.findall(r'<figure class="ldr-excerpt" data-proof="([a-z0-9_]+)"><pre><code>(.*?)</code>', html, re.S)
    for name, body in excerpts:
        stdout = json.loads((REPO / "proofs" / "_results" / f"{name}.cpu.json").read_text())["stdout"]
        for line in htmllib.unescape(body).splitlines():
            assert line in stdout, f"excerpt line of {name} not in its record: {line!r}"


def test_every_proof_has_a_valid_notebook_a_row_in_the_index_and_its_exercise(built):
    import nbformat

    root, _ = built
    names = sorted(p.stem for p in (REPO / "proofs").glob("*.py") if not p.name.startswith("_"))
    index = page(root, "proofs")
    assert re.findall(r'<tr class="ldr-index__proof" id="index-([a-z0-9_]+)"', index) == names
    for name in names:
        nb = nbformat.read(root / "site" / "proofs" / f"{name}.ipynb", as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["ldr"]["proof"] == name
        assert f'href="../proofs/{name}.ipynb"' in index
    for part, count in (("part-00-the-map", 5), ("part-01-the-tensor", 9)):
        html = page(root, part)
        exercises = re.findall(r'<li class="ldr-exercise" id="exercise-([a-z0-9_]+)"', html)
        assert len(exercises) == len(set(exercises)) >= count
        for name in exercises:
            assert f'href="../proofs/{name}.ipynb" download' in html
    part0 = page(root, "part-00-the-map")
    assert ("<p><strong>The toll.</strong> Predict how many elements an add needs before it takes twice as long as\n"
            "a one-element add on your machine.") in part0
