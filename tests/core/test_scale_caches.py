"""The caches that keep a fresh build from redoing work (bench/bench_scale.py measures them)."""

import re

import pytest

from build_hooks.directives.registry import registry
from build_hooks.hosts.markdown import fences as ext
from build_hooks.site.defer import defer, restore

PAGE = """# A page

The value is {{ p.DATA.x | .2f }} here.

```proof-output
proof: p
grep: "x"
```

```python
# a code block, not a directive
```
"""


def test_a_page_text_is_parsed_once_per_process_whoever_reads_it(monkeypatch):
    """The page's render, the corrections note, the proofs index and the claims on quotes all
    locate the same pages: markdown-it parses each distinct text once (pages/locate.py)."""
    from build_hooks.pages import locate as module

    module.block_tokens.cache_clear()
    module.recall({})  # no spots found by an earlier build (spotbook.py) nor by an earlier test
    calls = []
    real = module.markdown_parser()

    class Counting:
        def parse(self, text):
            calls.append(text)
            return real.parse(text)

    monkeypatch.setattr(module, "markdown_parser", lambda: Counting())
    first = ext.located(PAGE, registry())
    assert [(s.kind, s.line) for s in first] == [("value", 3), ("proof-output", 5)]
    assert module.locate(PAGE, ("source",)) == []  # another reader, other fences: no new parse
    assert ext.located(PAGE, registry()) == first
    assert len(calls) == 1
    ext.located(PAGE + "\nmore\n", registry())
    assert len(calls) == 2


def test_card_names_and_a_handler_cannot_change_the_options_another_fence_reads():
    text = "```proof\nalpha\n```\n\n```proof\nbeta\n```\n"
    assert ext.card_names(text, registry()) == ["alpha", "beta"]
    options = ext.parse_options("proof: p\ngrep: [a, b]\n", "proof-output")
    options["grep"].append("changed by a handler")
    assert ext.parse_options("proof: p\ngrep: [a, b]\n", "proof-output") == {"proof": "p", "grep": ["a", "b"]}


def test_restore_puts_every_deferred_block_back_once_in_one_pass():
    svg = "<svg>" + "x" * 2000 + "</svg>"
    html, stash = defer(f"<p>a</p>{svg}<p>b</p>{svg.replace('x', 'y')}")
    assert len(stash) == 2 and "<svg>" not in html
    assert restore(html, stash) == f"<p>a</p>{svg}<p>b</p>{svg.replace('x', 'y')}"
    assert restore("<p>no tokens</p>", stash) == "<p>no tokens</p>"


def test_page_sized_text_still_shows_control_characters_and_ids_need_whitespace():
    from build_hooks.render.safe import visible

    long = "a" * 5000
    assert visible(long + "\x1b[31m" + long) == long + "\u241b[31m" + long
    assert visible(long + "\x85") == long + "\\x85"
    assert visible(long) is long
    assert ext.ids('<p id="a"><x data-id="b"></x><svg\nid="c">') == ["a", "c"]


def test_instruments_and_card_run_lines_leave_the_searchable_page_and_come_back():
    instrument = ('<div class="ldr-instrument" data-instrument="x"><p class="ldr-instrument__title">T</p>'
                  '<div class="inner"><div>cell</div></div><script type="application/json">[1]</script></div>')
    card = ('<section class="ldr-proof"><p class="ldr-proof__title">Title</p><pre>output</pre>'
            '<p class="ldr-proof__provenance">torch · <span>cpu</span></p>'
            '<p class="ldr-proof__run"><a href="x.py">Download</a></p></section>')
    page = f"<p>before</p>{instrument}<p>between</p>{card}<p>after</p>"
    html, stash = defer(page)
    assert "cell" not in html and "Download" not in html and "torch ·" not in html
    assert "Title" in html and "output" in html and "between" in html and html.endswith("<p>after</p>")
    assert restore(html, stash) == page


@pytest.mark.parametrize("proof, option, starts", [
    (True, "", True),                     # a proof to run: the host starts while MkDocs reads the config
    (False, "", False),                   # nothing to run: no host
    (True, "      run: false\n", False),  # the build never runs proofs
])
def test_the_proof_host_starts_while_the_config_loads_only_when_a_proof_will_run(
        project, monkeypatch, proof, option, starts):
    import threading

    from mkdocs.config import load_config

    from build_hooks.run import runner

    started = []
    monkeypatch.setattr(runner.Runner, "start", lambda self: started.append(self) or {})
    monkeypatch.setattr(runner, "_SHARED", {})
    if proof:
        project.proof("stale", "print(1)\n")
    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - ldr\n", "  - ldr:\n" + option if option else "  - ldr\n"))
    load_config(str(config))
    for thread in threading.enumerate():
        if thread.name == "ldr-prestart":
            thread.join(30)
    assert bool(started) == starts


def test_the_chrome_every_card_and_figure_repeats_leaves_the_searchable_page():
    from build_hooks.site.defer import join, split

    card = ('<section class="ldr-proof"><header><p class="ldr-proof__label">Proof</p>'
            '<p class="ldr-proof__title">Views share storage</p></header><pre>out</pre>'
            '<p class="ldr-proof__source"><a href="proofs/v.py.html">Source: <code>proofs/v.py</code> · '
            '3&nbsp;lines</a></p></section>')
    figure = ('<figure class="ldr-figure"><figcaption>The strides. <span class="ldr-figure-hint" hidden>Tap '
              'to zoom.</span> <span class="ldr-figure-source">(<a href="d.excalidraw">download the '
              'scene</a>)</span></figcaption></figure>')
    parts = split(card + figure)
    searchable = "".join(parts[0::2])
    assert "Views share storage" in searchable and "The strides." in searchable and "out" in searchable
    for chrome in ("Proof</p>", "Source:", "Tap", "download the scene"):
        assert chrome not in searchable
    stash: dict[str, str] = {}
    assert restore(join(parts, stash), stash) == card + figure


def test_what_a_claim_checked_and_a_quotes_lines_leave_the_searchable_page():
    # the search index every reader downloads keeps a claim's statement and a quote's caption,
    # not the check, values and torch every claim repeats, nor the pinned torch's code
    from build_hooks.proofs.sources import Quote
    from build_hooks.render.claim import _mark
    from build_hooks.render.source import render as render_quote
    from build_hooks.site.defer import join, split

    detail = ('<p class="ldr-claim__check">Check <code>A.b &gt; 1</code> on the data of <a href="#proof-a">proof '
              '<code>a</code></a>, measured 2026-01-01 on a CPU:</p>'
              '<code class="ldr-claim__values">A.b = 2\nA.c = <i>3</i></code>')
    claim = _mark("proof", "a", {"say": "Twice as big."}, "checked against torch 2.0.0 (cpu)", detail)
    quote = render_quote(Quote("torch/x.py", "torch/x.py", 3, 4, ("def gather_everything():", "    pass"), "2.0.0"),
                         "Where it gathers.")
    parts = split(claim + quote)
    searchable = re.sub(r"<[^>]+>", " ", "".join(parts[0::2]))  # the text search reads, not attributes
    assert "Twice as big." in searchable and "Where it gathers." in searchable and "torch/x.py" in searchable
    for apparatus in ("on every build", "A.b", "gather_everything"):
        assert apparatus not in searchable, apparatus
    stash: dict[str, str] = {}
    assert restore(join(parts, stash), stash) == claim + quote


def test_the_drift_reports_tables_and_the_proofs_index_lists_leave_the_searchable_page():
    from build_hooks.site.defer import join, split

    drift = ('<h2>where_code_lives</h2><p>What moved.</p><table class="ldr-drift__values"><tr><td>'
             '<code>LIBRARIES.files[x.so]</code></td><td>171,104</td></tr></table>'
             '<pre class="ldr-drift__output"><span class="ldr-drift__line--added">+ new line</span></pre>'
             '<ul class="ldr-drift__claims"><li>check <code>A.b</code></li></ul>')
    index = ('<tr class="ldr-index__proof"><td><a class="ldr-index__title" href="#">Views share storage</a>'
             '<details class="ldr-index__quoted"><summary>what it quotes</summary><ul><li>excerpt: from "a"</li>'
             '</ul></details></td><td><ul class="ldr-index__records"><li>cpu<ul class="ldr-index__history"><li>'
             '2.13.0</li></ul></li><li>2.14.1 recorded</li></ul></td></tr>')
    card = '<pre class="ldr-proof__output"><code>every line the proof printed</code></pre>'
    parts = split(drift + index + card)
    searchable = re.sub(r"<[^>]+>", " ", "".join(parts[0::2]))
    assert "where_code_lives" in searchable and "What moved." in searchable and "Views share storage" in searchable
    for apparatus in ("LIBRARIES", "171,104", "new line", "A.b", "what it quotes", "excerpt", "2.13.0", "recorded",
                      "every line the proof printed"):
        assert apparatus not in searchable, apparatus
    assert "<ul" not in "".join(parts[0::2])  # a nested list is deferred with the list that holds it
    stash: dict[str, str] = {}
    assert restore(join(parts, stash), stash) == drift + index + card


def test_our_elements_reach_the_search_plugin_as_their_text_and_come_back_whole():
    from build_hooks.site.defer import as_text, defer

    card = ('<section class="ldr-proof" id="proof-v"><header><p class="ldr-proof__title"><a href="#proof-v">Views '
            'share storage</a></p></header><pre class="ldr-proof__output"><code>' + "line\n" * 300 + '</code></pre>'
            '</section>')
    prose = ('<p class="ldr-claimed">It is <span class="ldr-value" data-proof="v" tabindex="0" title="v: X = 2">2 '
             'bytes</span> with <code>x.stride()</code>.</p>')
    claim = ('<details class="ldr-claim" data-proof="v"><summary>checked</summary><p class="ldr-claim__say">a &lt; b '
             'and <em>c</em></p></details>')
    report = '<div class="ldr-drift"><h2 id="moved">Moved</h2><p class="ldr-drift__say">It moved.</p></div>'
    void = '<img class="ldr-drawing-file" src="f.svg" alt="A drawing"><hr class="ldr-rule"/>'
    widget = ('<div class="ldr-widget"><p class="ldr-widget__say">Drag it.</p>'
              '<script type="application/json">{"secret": [1, 2]}</script></div>')
    page = f"<h1>T</h1>{card}<p>Plain <code>code</code>.</p>{prose}{claim}{report}{void}{widget}<p>end</p>"
    html, stash = defer(page)
    held = dict(stash)
    text = as_text(html, stash)
    # what the search plugin reads: our elements as text, between markers; no tag of theirs is left
    assert "Views share storage" in text and "a &lt; b and c" in text and "2 bytes" in text
    assert 'class="ldr-proof' not in text and 'class="ldr-claim"' not in text and "<em>" not in text
    assert 'class="ldr-value' not in text and "<summary>" not in text
    # prose keeps its markup, a heading stays a heading (the search plugin starts a section there),
    # and what holds one keeps its tags: only the elements inside it become text
    assert "<p>Plain <code>code</code>.</p>" in text and '<p class="ldr-claimed">It is' in text
    assert "<code>x.stride()</code>" in text
    assert '<h2 id="moved">Moved</h2>' in text and '<div class="ldr-drift">' in text
    assert 'class="ldr-drift__say"' not in text and "It moved." in text
    assert void in text  # an element with no end tag has no text to give
    # a script's content is no text for the index: what holds one keeps its markup
    assert '<script type="application/json">{"secret": [1, 2]}</script>' in text and "Drag it." in text
    assert len(stash) > len(held)
    assert restore(text, stash) == page
    # a text marker whose text was changed is left as it is, never half put back
    bent = text.replace("Views share storage", "Views <b>share</b> storage")
    assert "Views <b>share</b> storage" in restore(bent, stash)


def test_the_built_search_index_reads_our_elements_as_text(project):
    import json
    import subprocess
    import sys

    project.proof("cost", 'import json\nprint("DATA=" + json.dumps({"us": 0.5}))\n',
                  doc="What one call costs.\n\nTimes one `torch.add` call.")
    project.page("index.md", "# One\n\n## Cost\n\nIt costs {{ cost.DATA.us }} us.\n\n```proof\ncost\n```\n")
    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("plugins:\n  - ldr", "plugins:\n  - search\n  - ldr"))
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=project.root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (project.root / "site" / "index.html").read_text()
    assert "ldr-text" not in page and "ldr-deferred" not in page  # every element came back
    assert '<span class="ldr-value"' in page and 'class="ldr-proof__title"' in page
    index = json.loads((project.root / "site" / "search" / "search_index.json").read_text())
    section = next(d for d in index["docs"] if d["location"].endswith("#cost"))
    assert "What one call costs" in section["text"] and "0.5" in section["text"]
    # the card went to the search plugin as text: the code its purpose shows is no markup there
    assert "torch.add" in section["text"] and "<code>torch.add</code>" not in section["text"]
    assert '<code>torch.add</code>' in page
