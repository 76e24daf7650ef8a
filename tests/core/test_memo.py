"""The directive memo (directives/memo.py): a warm build renders no fence again, and a fence
renders again as soon as anything it reads changes. Real `mkdocs build` runs, in a process that
counts how often each directive's handler runs."""

from __future__ import annotations

import json
import subprocess
import textwrap

from tests.core.countkit import counted_build as run_counting

COUNTING = textwrap.dedent('''\
    import collections, dataclasses, json, sys
    from build_hooks.directives import registry
    from build_hooks.hosts.markdown import state

    seen = collections.Counter()

    def counted(directive):
        if directive.handler is None:
            return directive
        def handler(options, ctx, _inner=directive.handler, _name=directive.name):
            seen[_name] += 1
            return _inner(options, ctx)
        return dataclasses.replace(directive, handler=handler)

    registry.CORE = tuple(counted(d) for d in registry.CORE)
    registry._BUILT.clear()
    for name in ("render_card", "pick"):  # the host's own two: cards and excerpts
        def wrap(self, *args, _inner=getattr(state.LdrState, name), _name=name, **kwargs):
            seen[_name] += 1
            return _inner(self, *args, **kwargs)
        setattr(state.LdrState, name, wrap)
    from mkdocs.__main__ import cli
    counts, sys.argv = sys.argv[1], ["mkdocs", "build", "-d", "site", *sys.argv[2:]]
    try:
        cli()
    finally:
        with open(counts, "w") as handle:
            json.dump(seen, handle)
''')

PAGE = """\
# Costs

The fixed cost is {{ cost.DATA.us | .1f }} us.

```proof-output
proof: cost
grep: "per op"
```

```claim
proof: cost
check: DATA.us < 1
say: It is under a microsecond.
```

```source
file: torch/_tensor.py
from: "class Tensor("
to: "def __deepcopy__"
```

```proof
cost
```
"""

INDEX = """\
# All proofs

```proofs-index
```
"""


def setup(project, us: float = 0.512, page_cache: bool = False) -> None:
    """The memo's site; without the page cache (hosts/mkdocs/pagecache.py) unless asked, since
    a page kept whole renders none of its fences and these tests count the memo's own hits."""
    yml = project.root / "mkdocs.yml"
    if not page_cache and "  - ldr\n" in yml.read_text():
        yml.write_text(yml.read_text().replace("  - ldr\n", "  - ldr:\n      page_cache: false\n"))
    project.proof("cost", f'import json\nprint("{us} us per op")\nprint("DATA=" + json.dumps({{"us": {us}}}))\n')
    project.page("index.md", PAGE)
    project.page("proofs.md", INDEX)


def counted_build(project, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    return run_counting(project, COUNTING, "--strict", *extra)


def test_a_warm_build_renders_no_fence_again_and_writes_the_same_pages(project):
    setup(project)
    first, counts = counted_build(project)
    assert first.returncode == 0, first.stderr
    assert counts["claim"] == 1 and counts["source"] == 1 and counts["proofs-index"] == 1
    assert counts["render_card"] == 1
    pages = {name: (project.root / "site" / name).read_text() for name in ("index.html", "proofs/index.html")}
    assert 'data-holds="true"' in pages["index.html"] and "torch/_tensor.py" in pages["index.html"]
    kept = list((project.root / ".cache" / "ldr" / "directives").iterdir())
    assert len(kept) == 2  # one entry per page

    second, counts = counted_build(project)
    assert second.returncode == 0, second.stderr
    for fence in ("claim", "source", "proofs-index", "render_card"):
        assert counts.get(fence, 0) == 0, (fence, counts)
    for name, html in pages.items():
        assert (project.root / "site" / name).read_text() == html


def test_a_fence_renders_again_when_what_it_reads_changes(project):
    setup(project)
    assert counted_build(project)[0].returncode == 0
    # Another page (the proofs index reads every page): the index and the claim render again,
    # the card (which reads records only) does not.
    project.page("more.md", "# More\n\nAgain: {{ cost.DATA.us }} us.\n")
    done, counts = counted_build(project)
    assert done.returncode == 0, done.stderr
    assert counts["proofs-index"] == 1 and counts["claim"] == 1
    assert counts.get("render_card", 0) == 0 and counts.get("source", 0) == 0
    assert "more/" in (project.root / "site" / "proofs" / "index.html").read_text()
    # A proof's script changes: it runs again, and its card, claim and excerpt show the new run.
    setup(project, us=0.75)
    done, counts = counted_build(project)
    assert done.returncode == 0, done.stderr
    assert counts["render_card"] == 1 and counts["claim"] == 1
    html = (project.root / "site" / "index.html").read_text()
    assert "0.75 us per op" in html and "0.512" not in html


def test_a_claim_that_fails_warns_on_every_build(project):
    setup(project, us=2.5)  # DATA.us < 1 does not hold
    for _ in range(2):
        done, counts = counted_build(project)
        assert done.returncode == 1
        assert "docs/index.md:" in done.stderr and "does not hold" in done.stderr
        assert counts["claim"] == 1


def test_the_quotes_file_is_whole_after_a_warm_build(project):
    setup(project)
    assert project.build().returncode == 0
    quotes = project.root / "proofs" / "_results" / "_quotes"
    [kept] = quotes.iterdir()
    before = kept.read_text()
    assert "class Tensor(" in before
    kept.unlink()
    done, counts = counted_build(project)
    assert done.returncode == 0, done.stderr
    assert counts.get("source", 0) == 0  # from the memo, and still told to the quotes file
    assert kept.read_text() == before


def test_a_second_card_of_a_proof_is_refused_on_a_warm_build(project):
    setup(project)
    assert project.build().returncode == 0
    project.page("index.md", PAGE + "\n```proof\ncost\n```\n")
    done = project.build()
    assert done.returncode == 1
    assert "proof cost already has a card on this page at line" in done.stderr


def test_a_forged_or_damaged_entry_is_a_miss(project):
    setup(project)
    assert project.build().returncode == 0
    html = (project.root / "site" / "index.html").read_text()
    for entry in (project.root / ".cache" / "ldr" / "directives").iterdir():
        # the same keys and seal line, other HTML: the seal no longer matches the body
        seal, _, body = entry.read_text().partition("\n")
        entries = json.loads(body)["entries"]
        forged = {key: {"parts": ["<script>alert(1)</script>"], "quotes": []} for key in entries}
        entry.write_text(seal + "\n" + json.dumps({"entries": forged}))
    done, counts = counted_build(project)
    assert done.returncode == 0, done.stderr
    assert counts["claim"] == 1 and counts["render_card"] == 1
    assert (project.root / "site" / "index.html").read_text() == html
    # damaged: cut short
    for entry in (project.root / ".cache" / "ldr" / "directives").iterdir():
        entry.write_bytes(entry.read_bytes()[:100])
    done, counts = counted_build(project)
    assert done.returncode == 0, done.stderr
    assert counts["claim"] == 1 and (project.root / "site" / "index.html").read_text() == html
