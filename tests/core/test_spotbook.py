"""Where the pages' directives are is kept between builds (pages/spotbook.py): a warm build
parses no unchanged page with markdown-it, an edited page is parsed again and its problems
still name their lines, and a damaged book is only a slower build. Real `mkdocs build` runs,
in a process that counts the parses."""

from __future__ import annotations

import subprocess
import textwrap

from tests.core.countkit import BUILD
from tests.core.countkit import counted_build as run_counting

COUNTING = textwrap.dedent('''\
    import json, sys
    from build_hooks.pages import locate

    parsed = []

    def counted(text, kinds, value, _inner=locate._find):
        if kinds is None:  # a page's every spot: what the book keeps
            parsed.append(text.split("\\n", 1)[0])
        return _inner(text, kinds, value)

    locate._find = counted

    def counts():
        return {"parsed": parsed, "markdown_it": "markdown_it" in sys.modules}
''') + BUILD

ONE = "# One\n\nIt costs {{ cost.DATA.us }} us.\n\n```proof\ncost\n```\n"
TWO = "# Two\n\nAgain {{ cost.DATA.us }} us.\n"


def counted_build(project, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    return run_counting(project, COUNTING, *extra)


def setup(project) -> None:
    project.proof("cost", 'import json\nprint("DATA=" + json.dumps({"us": 0.5}))\n')
    project.page("index.md", ONE)
    project.page("two.md", TWO)


def test_a_warm_build_parses_no_page_and_an_edited_one_again(project):
    setup(project)
    first, seen = counted_build(project, "--strict")
    assert first.returncode == 0, first.stderr
    assert sorted(seen["parsed"]) == ["# One", "# Two"]
    html = (project.root / "site" / "index.html").read_text()

    second, seen = counted_build(project, "--strict")
    assert second.returncode == 0, second.stderr
    assert seen["parsed"] == [] and not seen["markdown_it"]
    assert (project.root / "site" / "index.html").read_text() == html

    # An edit: that page alone is parsed again, and a bad fence on it is named at its line.
    project.page("two.md", TWO + "\nText.\n\n```proof-output\nproof: nothing_here\n```\n")
    third, seen = counted_build(project)
    assert seen["parsed"] == ["# Two"]
    assert "two.md:7" in third.stderr, third.stderr[-2000:]


def test_a_damaged_book_is_a_full_parse_not_an_error(project):
    setup(project)
    assert counted_build(project, "--strict")[0].returncode == 0
    [book] = (project.root / ".cache" / "ldr" / "spots").iterdir()
    data = book.read_bytes()
    book.write_bytes(data[: len(data) // 2])
    done, seen = counted_build(project, "--strict")
    assert done.returncode == 0, done.stderr
    assert sorted(seen["parsed"]) == ["# One", "# Two"]
    assert counted_build(project, "--strict")[1]["parsed"] == []  # written again, whole
