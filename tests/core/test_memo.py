"""Rendered directives kept across builds (core/memo.py): reused while nothing they read moved,
rendered again the moment something did, never trusted when unreadable."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from build_hooks.adapters import state as state_module
from build_hooks.core.memo import FenceMemo

PROOF = """
import json
print("the word is {word}")
print("WORD=" + json.dumps({{"text": "{word}", "n": {n}}}))
"""

PAGE = """# Words

The count is {{ words.WORD.n }}.

```proof-output
proof: words
grep: "word is"
```

```figure
src: box.excalidraw
alt: A box.
```

```proof
words
```
"""


def scene(label: str) -> str:
    elements = [
        {"id": "r", "type": "rectangle", "x": 0, "y": 0, "width": 200, "height": 80, "angle": 0,
         "strokeColor": "#1e1e1e", "backgroundColor": "transparent", "fillStyle": "solid",
         "strokeWidth": 2, "strokeStyle": "solid", "roughness": 0, "opacity": 100, "seed": 1,
         "version": 1, "isDeleted": False, "boundElements": None, "groupIds": [], "roundness": None},
        {"id": "t", "type": "text", "x": 20, "y": 25, "width": 160, "height": 25, "angle": 0,
         "strokeColor": "#1e1e1e", "backgroundColor": "transparent", "fillStyle": "solid",
         "strokeWidth": 1, "strokeStyle": "solid", "roughness": 0, "opacity": 100, "seed": 2,
         "version": 1, "isDeleted": False, "boundElements": None, "groupIds": [], "roundness": None,
         "text": label, "originalText": label, "fontSize": 20, "fontFamily": 1, "textAlign": "left",
         "verticalAlign": "top", "containerId": None, "lineHeight": 1.25},
    ]
    return json.dumps({"type": "excalidraw", "version": 2, "elements": elements, "appState": {}})


def setup(project, word="first", n=1):
    project.proof("words", PROOF.format(word=word, n=n))
    (project.root / "drawings").mkdir(exist_ok=True)
    (project.root / "drawings" / "box.excalidraw").write_text(scene("a box"))
    project.page("index.md", PAGE)


def site_files(root: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted((root / "site").rglob("*")):
        if path.is_file() and path.name != "sitemap.xml.gz":
            out[path.relative_to(root / "site").as_posix()] = path.read_bytes()
    return out


def build_here(root: Path, site: Path) -> None:
    """A build in this process, as `mkdocs serve` rebuilds (the memo lives in the process)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cwd = os.getcwd()
    os.chdir(root)
    try:
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(site))
        config.plugins.on_startup(command="build", dirty=False)
        build(config)
        config.plugins.on_shutdown()
    finally:
        os.chdir(cwd)


def test_a_warm_build_renders_no_directive_and_writes_the_same_site(project, monkeypatch):
    setup(project)
    first = project.build()
    assert first.returncode == 0, first.stderr
    before = site_files(project.root)
    assert (project.root / ".cache" / "ldr" / "fences.marshal").is_file()
    # A fresh process reads the memo from disk: no directive is rendered at all.
    state_module._VISIBLE.clear()
    monkeypatch.setattr(state_module.LdrState, "render_fence",
                        lambda *a, **k: pytest.fail("a directive was rendered again"))
    monkeypatch.setattr(state_module.LdrState, "value",
                        lambda *a, **k: pytest.fail("a value was looked up again"))
    shutil.rmtree(project.root / "site")
    build_here(project.root, project.root / "site")
    assert site_files(project.root) == before
    memo = FenceMemo.for_project(project.root)
    assert memo.hits == 4 and memo.misses == 0  # the excerpt, figure and card, and the value


@pytest.mark.parametrize("change", ["proof", "drawing", "pin"])
def test_what_a_directive_reads_moving_renders_it_again(project, change):
    setup(project)
    assert project.build().returncode == 0
    page = project.html()
    if change == "proof":
        project.proof("words", PROOF.format(word="second", n=2))
        built = project.build()
        assert built.returncode == 0, built.stderr
        assert "the word is second" in project.html() and 'WORD.n = 2 (' in project.html()
        assert "the word is first" not in project.html()
    elif change == "drawing":
        (project.root / "drawings" / "box.excalidraw").write_text(scene("a new label"))
        assert project.build().returncode == 0
        assert "a new label" in project.html() and "a box" not in project.html()
    else:  # the same records under another pin are stale: cards say so
        (project.root / "mkdocs.yml").write_text(
            (project.root / "mkdocs.yml").read_text().replace("  - ldr\n", "  - ldr:\n      run: false\n"))
        pyproject = project.root / "pyproject.toml"
        pyproject.write_text(re.sub(r'"torch==[^"]+"', '"torch==2.0.0"', pyproject.read_text()))
        built = project.build(strict=False)
        assert built.returncode == 0, built.stderr
        assert project.html() != page and "stale" in project.html()


def test_a_corrupt_or_foreign_memo_reads_as_empty(project):
    setup(project)
    assert project.build().returncode == 0
    before = site_files(project.root)
    memo_file = project.root / ".cache" / "ldr" / "fences.marshal"
    for garbage in (b"\x00\x01not marshal", b"", memo_file.read_bytes()[:100]):
        memo_file.write_bytes(garbage)
        built = project.build()
        assert built.returncode == 0, built.stderr
        assert site_files(project.root) == before
        assert len(memo_file.read_bytes()) > 1000  # written again, whole


def test_a_directive_that_reports_is_rendered_and_reported_on_every_build(project):
    project.proof("toll", """
        import json
        print("TOLL=" + json.dumps({"small_us": 4.1, "large_us": 1780.2}))
        """)
    project.page("index.md", "# T\n\nText.\n\n```claim\nproof: toll\ncheck: TOLL.large_us < 100 * TOLL.small_us\n```\n")
    for _ in range(2):
        built = project.build(strict=False)
        assert built.returncode == 0, built.stderr
        assert "docs/index.md:5: claim does not hold" in built.stderr
        assert "no longer holds" in project.html()


def test_a_second_card_is_refused_when_the_first_comes_from_the_memo(project):
    setup(project)
    assert project.build().returncode == 0
    project.page("index.md", PAGE + "\nAgain:\n\n```proof\nwords\n```\n")
    built = project.build()
    assert built.returncode != 0
    assert "docs/index.md:21: proof words already has a card on this page at line 15" in built.stderr


def test_cards_move_their_links_when_a_card_moves_to_another_page(project):
    setup(project)
    project.page("other.md", "# Other\n\nThe count is {{ words.WORD.n }}.\n")
    assert project.build().returncode == 0
    assert 'href="../#proof-words"' in project.html("other")
    project.page("index.md", PAGE.replace("```proof\nwords\n```\n", ""))
    project.page("other.md", "# Other\n\n```proof\nwords\n```\n\nThe count is {{ words.WORD.n }}.\n")
    assert project.build().returncode == 0
    assert 'href="other/#proof-words"' in project.html()
