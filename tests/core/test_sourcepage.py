"""A card links to its proof's source, published as a small page of its own beside the script
(``proofs/<name>.py.html``, site/sourcepage.py); no chapter carries the highlighted code."""

from __future__ import annotations

import html as htmllib
import posixpath
import re
from html.parser import HTMLParser

import pytest

SOURCE = '''\
from _help import H

BREAKOUT = "</script><script>alert(1)</script>"
BOLD = "<b>bold</b> & more"
FLIPPED = "abc\u202edef"


def shout(text):
    return text.upper()


print(shout(BREAKOUT), BOLD, FLIPPED, H)
'''


class Links(HTMLParser):
    """Every link and source of a page, and every element's tag."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.links += [value for name, value in attrs if name in ("href", "src") and value]


def parse(text: str) -> Links:
    found = Links()
    found.feed(text)
    return found


@pytest.fixture
def built(project):
    (project.root / "proofs" / "_help.py").write_text("H = 2\n")
    project.proof("tricky", SOURCE, doc="What `x.view` shares </script>\n\nIt shares <b>storage</b>.")
    project.proof("loner", 'print("nobody shows me")\n', doc="A proof no page shows.")
    (project.root / "docs" / "guide").mkdir()
    project.page("guide/part.md", "# Part\n\n```proof\ntricky\n```\n")
    project.page("index.md", "# Home\n\nSee [the part](guide/part.md).\n")
    result = project.build()
    assert result.returncode == 0, result.stderr[-3000:]
    return project


def card_of(html: str, name: str) -> str:
    return re.search(rf'<section class="ldr-proof" id="proof-{name}".*?</section>', html, re.S).group(0)


def test_the_card_links_to_the_source_page_and_carries_no_highlighted_code(built):
    chapter = built.html("guide/part")
    card = card_of(chapter, "tricky")
    lines = SOURCE.count("\n") + 3  # the docstring's three lines
    assert ('<p class="ldr-proof__source"><a href="../../proofs/tricky.py.html">Source: <code>proofs/tricky.py'
            f"</code> · {lines}&nbsp;lines</a></p>") in card
    # No line of the script reaches the chapter: no highlighted code, no folded copy of it.
    assert "<details" not in card and 'class="highlight' not in chapter and '<span class="k' not in chapter
    assert "shout" not in chapter and "BREAKOUT" not in chapter
    target = (built.root / "site" / "guide" / "part" / "../../proofs/tricky.py.html").resolve()
    assert target == built.root / "site" / "proofs" / "tricky.py.html" and target.is_file()


def test_the_source_page_shows_the_script_escaped_highlighted_and_numbered(built):
    page = (built.root / "site" / "proofs" / "tricky.py.html").read_text(encoding="utf-8")
    script = (built.root / "proofs" / "tricky.py").read_text(encoding="utf-8")
    # What the script holds is text: no tag of it reaches the page, and nothing breaks out.
    assert "<script" not in page.lower() and "<b>" not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in page
    # A bidirectional control would show code in another order than it runs: it reads as an escape.
    assert "\u202e" not in page
    # Highlighted: keywords, names of functions and strings are told apart.
    assert '<span class="k">def</span> <span class="nf">shout</span>' in page
    assert '<span class="kn">from</span> <span class="nn">_help</span>' in page
    # The code shown is the script, line for line, and the numbers count its lines.
    code = re.search(r'<pre class="code"><code>(.*?)</code></pre>', page, re.S).group(1)
    shown = htmllib.unescape(re.sub(r"<[^>]+>", "", code))
    assert shown == script.replace("\u202e", "\\u202e").rstrip("\n") and 'FLIPPED = "abc\\u202edef"' in shown
    numbers = re.search(r'<pre class="ln" aria-hidden="true">(.*?)</pre>', page, re.S).group(1)
    assert numbers.split("\n") == [str(n) for n in range(1, len(script.splitlines()) + 1)]
    # The title: backticks are code, the rest escaped; the window title is plain text.
    assert "<h1>What <code>x.view</code> shares &lt;/script&gt;</h1>" in page
    assert "<title>What x.view shares &lt;/script&gt; · proofs/tricky.py</title>" in page


def test_the_source_page_stands_alone_and_every_link_resolves(built):
    site = built.root / "site"
    page = (site / "proofs" / "tricky.py.html").read_text(encoding="utf-8")
    found = parse(page)
    # Light: its own small stylesheet, light and dark; no script, no other file, no font.
    assert "script" not in found.tags and "img" not in found.tags
    assert "@import" not in page and "url(" not in page and "@font-face" not in page
    assert "@media (prefers-color-scheme:dark)" in page and len(page.encode()) < 12_000
    links = [link for link in found.links if not link.startswith("data:")]
    assert links == ["../guide/part/#proof-tricky", "tricky.py", "_help.py", "tricky.ipynb"]
    for link in links:
        path, _, anchor = link.partition("#")
        target = site / posixpath.normpath(posixpath.join("proofs", path))
        target = target / "index.html" if link.endswith("/") or path.endswith("/") else target
        assert target.is_file(), link
        if anchor:
            assert f'id="{anchor}"' in target.read_text(encoding="utf-8"), link
    assert (site / "proofs" / "tricky.py").read_bytes() == (built.root / "proofs" / "tricky.py").read_bytes()
    assert 'href="tricky.py" download' in page and 'href="tricky.ipynb" download' in page
    # A proof that no page shows still has its page; it leads back to the site.
    loner = (site / "proofs" / "loner.py.html").read_text(encoding="utf-8")
    assert '<a href="../index.html">&larr; Back to the site</a>' in loner and "nobody shows me" in loner


def test_the_source_page_follows_the_script_and_a_warm_build_writes_the_same_bytes(built):
    path = built.root / "site" / "proofs" / "tricky.py.html"
    first = path.read_bytes()
    assert list((built.root / ".cache" / "ldr" / "highlight").glob("*.html"))  # pygments ran once
    again = built.build()
    assert again.returncode == 0 and "running" not in again.stderr
    assert path.read_bytes() == first
    script = built.root / "proofs" / "tricky.py"
    script.write_text(script.read_text().replace("def shout(text):", "def whisper(text):").replace(
        "shout(BREAKOUT)", "whisper(BREAKOUT)"))
    edited = built.build()
    assert edited.returncode == 0, edited.stderr[-2000:]
    page = path.read_text(encoding="utf-8")
    assert '<span class="nf">whisper</span>' in page and "shout" not in page


def test_a_proof_named_index_does_not_take_the_proofs_index_page(project):
    project.proof("index", 'print("hello")\n', doc="A proof named index.")
    project.page("index.md", "# Home\n\n```proof\nindex\n```\n")
    project.page("proofs.md", "# Every proof\n\n```proofs-index\n```\n")
    result = project.build()
    assert result.returncode == 0, result.stderr[-3000:]
    site = project.root / "site"
    assert 'class="ldr-index"' in (site / "proofs" / "index.html").read_text(encoding="utf-8")
    assert '<a href="../#proof-index">' in (site / "proofs" / "index.py.html").read_text(encoding="utf-8")
    assert '<a href="proofs/index.py.html">' in project.html()


def test_sourcepage_helpers_on_their_own(tmp_path):
    from build_hooks.site.sourcepage import card_href, highlight_source, inline_code, plain_text

    assert inline_code("a `b` <c>") == "a <code>b</code> &lt;c&gt;"
    assert inline_code("one ` tick") == "one ` tick"  # unmatched: left as it is
    assert plain_text("What `x.view` shares") == "What x.view shares"
    # Pages in any order: the same card page (the first by source path).
    assert card_href("p", {"p": [("z.md", "z/"), ("a/b.md", "a/b/")]}) == "../a/b/#proof-p"
    assert card_href("p", {"p": [("index.md", "")]}) == "../#proof-p"
    assert card_href("p", None) is None
    # Each line of the script is one line of HTML, whatever spans a token covers.
    code = highlight_source('"""Doc\n\nmore."""\nx = 1\r\n\n')
    assert code.split("\n")[1] == "" and len(code.split("\n")) == 5 and "\r" not in code
    assert '<span class="n">' not in code and "x" in code
