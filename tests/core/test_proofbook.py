"""What discovery read from each proof is kept between builds (proofs/book.py): a warm build
parses no unchanged proof with ``ast``, an edited proof is parsed again, a proof with a syntax
error or a bad ``PROOF`` is reported on every build, and a damaged book is only a slower build.
Real `mkdocs build` runs, in a process that counts the parses."""

from __future__ import annotations

import subprocess
import textwrap

from tests.core.countkit import BUILD
from tests.core.countkit import counted_build as run_counting

COUNTING = textwrap.dedent('''\
    import ast, json, sys

    parsed = []
    _inner = ast.parse

    def counted(source, filename="<unknown>", *args, **kwargs):
        if str(filename).endswith(".py") and "/proofs/" in str(filename).replace("\\\\", "/"):
            parsed.append(str(filename).replace("\\\\", "/").rsplit("/", 1)[1])
        return _inner(source, filename, *args, **kwargs)

    ast.parse = counted

    def counts():
        return {"parsed": sorted(parsed)}
''') + BUILD

PAGE = ("# One\n\nIt costs {{ cost.DATA.us }} us, and {{ other.DATA.n }}.\n\n"
        "```proof\ncost\n```\n\n```proof\nother\n```\n")
COST = 'import json\nPROOF = {"timeout": 30, "tolerance": {"DATA.us": 0.2}}\nprint("DATA=" + json.dumps({"us": 0.5}))\n'
OTHER = 'import json\nprint("DATA=" + json.dumps({"n": 3}))\n'


def counted_build(project, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    return run_counting(project, COUNTING, *extra)


def card_title(project, name: str) -> str:
    html = (project.root / "site" / "index.html").read_text()
    start = html.index(f'id="proof-{name}"')
    return html[html.index('class="ldr-proof__title"', start):][:200]


def test_a_warm_build_parses_no_proof_and_an_edited_one_again(project):
    project.proof("cost", COST, doc="What a call costs.\n\nTimes one call.")
    project.proof("other", OTHER)
    project.page("index.md", PAGE)
    first, seen = counted_build(project, "--strict")
    assert first.returncode == 0, first.stderr
    assert seen["parsed"] == ["cost.py", "other.py"]
    page = (project.root / "site" / "index.html").read_text()

    second, seen = counted_build(project, "--strict")
    assert second.returncode == 0, second.stderr
    assert seen["parsed"] == []  # both came from the book
    assert (project.root / "site" / "index.html").read_text() == page
    assert "What a call costs" in card_title(project, "cost")

    # an edited proof is parsed again (and only it); its new title shows
    project.proof("cost", COST, doc="What one call costs.\n\nTimes one call.")
    third, seen = counted_build(project, "--strict")
    assert third.returncode == 0, third.stderr
    assert seen["parsed"] == ["cost.py"]
    assert "What one call costs" in card_title(project, "cost")


def test_a_bad_proof_is_reported_on_every_build(project):
    project.proof("cost", COST)
    project.proof("other", OTHER)
    project.page("index.md", PAGE)
    assert counted_build(project)[0].returncode == 0
    (project.root / "proofs" / "other.py").write_text('"""Broken."""\nprint("DATA=" +\n')
    for _ in range(2):
        done, seen = counted_build(project, "--strict")
        assert done.returncode == 1
        assert "other.py:2: syntax error" in done.stderr, done.stderr[-2000:]
        assert seen["parsed"] == ["other.py"]  # never kept: parsed, and reported, each time
    (project.root / "proofs" / "other.py").write_text('"""Odd."""\nPROOF = {"speed": 3}\nprint("DATA={}")\n')
    for _ in range(2):
        done, _ = counted_build(project, "--strict")
        assert done.returncode == 1
        assert "unknown PROOF option 'speed'" in done.stderr, done.stderr[-2000:]


def test_a_damaged_book_is_parsed_again(project):
    project.proof("cost", COST)
    project.proof("other", OTHER)
    project.page("index.md", PAGE)
    assert counted_build(project, "--strict")[0].returncode == 0
    page = (project.root / "site" / "index.html").read_text()
    books = list((project.root / ".cache" / "ldr" / "discovery").glob("*.json"))
    assert len(books) == 1
    good = books[0].read_bytes()
    for damaged in (good[:-7], good.replace(b'"timeout": 30', b'"timeout": 99'), b"", b"\xff" * 40):
        books[0].write_bytes(damaged)
        done, seen = counted_build(project, "--strict")
        assert done.returncode == 0, done.stderr
        assert seen["parsed"] == ["cost.py", "other.py"], damaged[:40]
        assert (project.root / "site" / "index.html").read_text() == page
        assert books[0].read_bytes() == good  # written again, whole
