"""The page cache (hosts/mkdocs/pagecache.py): a warm build converts no page whose inputs are
unchanged and writes the same site; a page converts again as soon as anything it reads changes;
what a conversion told the build (log lines, quotes) comes again on a hit. Real `mkdocs build`
runs, in a process that counts each page's conversions."""

from __future__ import annotations

import json
import textwrap

from tests.core.countkit import BUILD, counted_build
from tests.core.test_memo import setup

COUNTING = textwrap.dedent('''\
    import collections, json, sys
    from mkdocs.structure import pages

    seen = collections.Counter()
    _convert = pages.Page.render

    def render(self, config, files):
        seen[self.file.src_uri] += 1
        return _convert(self, config, files)

    pages.Page.render = render

    def counts():
        return seen
''') + BUILD

ABOUT = """\
# About

## What it is

A page with a table of contents, a link to [the costs](index.md#costs) and
[every proof](proofs.md).
"""


def build(project, *extra: str):
    return counted_build(project, COUNTING, *extra)


def site_files(project) -> dict[str, bytes]:
    site = project.root / "site"
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and p.suffix in (".html", ".json", ".ipynb", ".svg")}


NOTES = "# Notes\n\nThe cost again: {{ cost.DATA.us }} us.\n"
EVERY = {"index.md": 1, "proofs.md": 1, "about.md": 1, "notes.md": 1}


def make(project) -> None:
    setup(project, page_cache=True)
    project.page("about.md", ABOUT)
    project.page("notes.md", NOTES)
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("plugins:\n", "plugins:\n  - search\n"))


def test_a_warm_build_converts_no_page_and_writes_the_same_site(project):
    make(project)
    done, counts = build(project, "--strict")
    assert done.returncode == 0, done.stderr
    assert counts == EVERY
    first = site_files(project)
    assert "What it is" in first["about/index.html"].decode()  # its table of contents
    assert len(list((project.root / ".cache" / "ldr" / "pages").iterdir())) == 4

    done, counts = build(project, "--strict")
    assert done.returncode == 0, done.stderr
    assert counts == {}
    assert site_files(project) == first
    index = json.loads((project.root / "site" / "search" / "search_index.json").read_text())
    assert any(doc["location"] == "about/#what-it-is" for doc in index["docs"])


def test_an_edit_converts_that_page_and_those_that_read_every_page(project):
    make(project)
    assert build(project, "--strict")[0].returncode == 0
    project.page("about.md", ABOUT + "\nOne more line.\n")
    done, counts = build(project, "--strict")
    assert done.returncode == 0, done.stderr
    # the proofs index and the claim read every page; the notes' value reads a record only
    assert counts == {"about.md": 1, "proofs.md": 1, "index.md": 1}
    assert "One more line." in project.html("about")
    assert len(list((project.root / ".cache" / "ldr" / "pages").iterdir())) == 4  # replaced, not added


def test_a_new_record_converts_the_pages_that_show_it(project):
    make(project)
    assert build(project, "--strict")[0].returncode == 0
    setup(project, us=0.75, page_cache=True)
    done, counts = build(project, "--strict")
    assert done.returncode == 0, done.stderr
    assert counts["index.md"] == 1
    html = project.html()
    assert "0.75 us per op" in html and "0.512" not in html


def test_a_page_that_warns_is_converted_and_warns_on_every_build(project):
    make(project)
    project.page("about.md", ABOUT + "\nSee [the missing page](missing.md).\n")
    for _ in range(2):
        done, counts = build(project, "--strict")
        assert done.returncode == 1
        assert "missing.md" in done.stderr
        assert counts["about.md"] == 1


def test_a_page_converts_again_when_a_page_it_links_to_goes(project):
    make(project)
    project.page("other.md", "# Other\n")
    project.page("about.md", ABOUT + "\nSee [the other page](other.md).\n")
    assert build(project, "--strict")[0].returncode == 0
    (project.root / "docs" / "other.md").unlink()
    done, counts = build(project, "--strict")
    assert done.returncode == 1
    assert "other.md" in done.stderr and "not found" in done.stderr
    assert counts["about.md"] == 1


def test_what_a_conversion_logged_is_logged_again_on_a_hit(project):
    make(project)
    project.page("about.md", ABOUT + "\nSee [the shop](/shop/).\n")
    first, counts = build(project)
    assert first.returncode == 0, first.stderr
    said = [line for line in first.stderr.splitlines() if "/shop/" in line]
    assert said and "INFO" in said[0], first.stderr  # MkDocs: an absolute link, left as it is
    again, counts = build(project)
    assert again.returncode == 0 and counts == {}
    assert [line for line in again.stderr.splitlines() if "/shop/" in line] == said


def test_a_hit_still_tells_the_quotes_file(project):
    make(project)
    assert build(project, "--strict")[0].returncode == 0
    quotes = project.root / "proofs" / "_results" / "_quotes"
    [kept] = quotes.iterdir()
    before = kept.read_text()
    kept.unlink()
    done, counts = build(project, "--strict")
    assert done.returncode == 0, done.stderr
    assert counts == {}
    assert kept.read_text() == before


def test_a_site_with_snippets_converts_every_page(project):
    make(project)
    (project.root / "snippet.txt").write_text("Included text, first edition.\n")
    project.page("about.md", ABOUT + '\n--8<-- "snippet.txt"\n')
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text() + "  - pymdownx.snippets\n")
    assert build(project, "--strict")[0].returncode == 0
    (project.root / "snippet.txt").write_text("Included text, second edition.\n")
    done, counts = build(project, "--strict")
    assert done.returncode == 0, done.stderr
    assert counts == EVERY
    assert "second edition" in project.html("about")


def test_the_page_cache_can_be_turned_off(project):
    make(project)
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("  - ldr\n", "  - ldr:\n      page_cache: false\n"))
    for _ in range(2):
        done, counts = build(project, "--strict")
        assert done.returncode == 0, done.stderr
        assert counts == EVERY
    assert not (project.root / ".cache" / "ldr" / "pages").exists()


def test_a_forged_or_damaged_entry_is_a_miss(project):
    make(project)
    assert build(project, "--strict")[0].returncode == 0
    first = site_files(project)
    entries = list((project.root / ".cache" / "ldr" / "pages").iterdir())
    for entry in entries:  # the seal line kept, other HTML: the seal no longer matches
        seal, _, body = entry.read_text().partition("\n")
        entry.write_text(seal + "\n" + json.dumps({**json.loads(body), "html": "<script>alert(1)</script>"}))
    done, counts = build(project, "--strict")
    assert done.returncode == 0, done.stderr
    assert counts == EVERY
    assert site_files(project) == first
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:100])
    done, counts = build(project, "--strict")
    assert done.returncode == 0 and counts == EVERY
    assert site_files(project) == first


def test_an_info_note_comes_again_on_a_hit(project, monkeypatch):
    monkeypatch.setenv("LDR_ACCELERATOR", "none")
    project.proof("gpu", 'PROOF = {"accelerator": "prefer"}\nimport json\nprint("DATA=" + json.dumps({"a": 4}))\n')
    project.page("index.md", "# GPU\n\n```proof\ngpu\n```\n")
    note = "docs/index.md:3: proof gpu is not yet measured on an accelerator; the page shows its CPU result"
    for _ in range(2):
        done, counts = build(project, "--strict")
        assert done.returncode == 0, done.stderr
        assert note in done.stderr
    assert counts == {}


def test_a_slugify_option_made_by_a_call_is_keyed(project):
    """toc's slugify as mkdocs-material's setup suggests it (a partial of pymdownx's function):
    the site keeps its pages, and another choice of case converts them again."""
    make(project)
    yml = project.root / "mkdocs.yml"
    base = yml.read_text()
    option = ("  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n"
              "        kwds:\n          case: {case}\n")
    yml.write_text(base + option.format(case="lower"))
    assert build(project, "--strict")[0].returncode == 0
    assert 'id="what-it-is"' in project.html("about")
    done, counts = build(project, "--strict")
    assert done.returncode == 0 and counts == {}
    yml.write_text(base + option.format(case="none"))
    done, counts = build(project, "--strict")
    assert done.returncode == 0 and counts == EVERY
    assert 'id="What-it-is"' in project.html("about")
