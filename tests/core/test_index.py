"""The proofs index and the generated exercises, on real builds of a small project."""

from __future__ import annotations

import json
import re

import pytest
from pymdownx.superfences import SuperFencesException

from build_hooks.pages.quotes import Quote, page_title, quotes


def nbformat_record(project, name: str) -> dict:
    body = json.loads((project.root / "site" / "proofs" / f"{name}.ipynb").read_text())
    return body["metadata"]["ldr"]["record"]


def rows(html: str) -> dict[str, str]:
    """proof -> its <tr> in the index."""
    return dict(re.findall(r'<tr class="ldr-index__proof" id="index-([a-z0-9_]+)"[^>]*>(.*?)</tr>', html, re.S))


@pytest.fixture
def site(project):
    project.proof("toll", 'import json\nimport torch\n'  # a torch proof: history and a foreign record
                  'print("1 element: 0.5 us")\nprint("TOLL=" + json.dumps({"us": 0.5}))\n',
                  doc="What does one <b>op</b> cost?\n\nIt times one add.")
    project.proof("bits", 'print("BITS=16")\n', doc="How many bits does `torch.half` hold?")
    project.proof("lonely", 'print("alone")\n', doc="Is anyone quoting me?")
    project.page("index.md", "# Home\n\nA toll of {{ toll.TOLL.us }} us.\n")
    project.page("part.md", """\
        ---
        title: The part
        ---
        # Heading that is not the title

        ```proof-output
        proof: toll
        grep: "element"
        ```

        ```claim
        proof: toll
        check: TOLL.us < 1
        say: "One op costs under <i>a</i> microsecond."
        ```

        Bits: {{ bits.BITS }}.

        ```proof
        toll
        ```

        ## Try it yourself

        ```exercises
        toll: |
          **The toll.** Predict the time, then run [`toll`](#proof-toll).
        ```
        """)
    project.page("proofs.md", "# Every proof\n\n```proofs-index\n```\n")
    (project.root / "mkdocs.yml").write_text(
        (project.root / "mkdocs.yml").read_text() + "nav:\n  - index.md\n  - part.md\n  - proofs.md\n")
    return project


def test_index_lists_every_proof_with_its_pages_quotes_records_and_history(site):
    assert site.build().returncode == 0
    # A record kept from an older torch shows as history.
    old = json.loads(site.record("toll").read_text())
    old.update(torch="2.0.0", torch_build="2.0.0", measured_at="2023-03-15T10:00:00Z", wall_s=0.25)
    history = site.root / "proofs" / "_results" / "_history" / "2.0.0"
    history.mkdir(parents=True)
    (history / "toll.cpu.json").write_text(json.dumps(old, indent=2))
    # An accelerator record from another machine under another torch, kept by `ldr merge`.
    from build_hooks.store.foreign import mark_foreign
    from build_hooks.store.record import Record
    from build_hooks.store.store import Store

    gpu = json.loads(site.record("toll").read_text())
    gpu.update(device_class="cuda", device="NVIDIA H200", torch="2.11.0", torch_build="2.11.0+cu126",
               measured_at="2026-11-20T08:00:00Z", wall_s=0.125)
    site.record("toll", "cuda").write_text(json.dumps(gpu, indent=2))
    mark_foreign(Store(site.root / "proofs"), Record.from_text(json.dumps(gpu)), "2.14.1", "shard")
    result = site.build()
    assert result.returncode == 0, result.stderr
    assert "running" not in result.stderr
    html = site.html("proofs")
    found = rows(html)
    assert list(found) == ["bits", "lonely", "toll"]
    toll = found["toll"]
    # The question, linked to the card; both downloads.
    assert ('<a class="ldr-index__title" href="../part/#proof-toll">What does one &lt;b&gt;op&lt;/b&gt; cost?</a>'
            in toll)
    assert '<a class="ldr-index__download" href="../proofs/toll.py" download>.py</a>' in toll
    # A title's `backticks` are code, as on the card (everything else stays escaped).
    assert re.search(r'<a class="ldr-index__title" href="[^"]+">How many bits does <code>torch\.half</code> '
                     r'hold\?</a>', found["bits"]), found["bits"]
    assert '<a class="ldr-index__download" href="../proofs/toll.ipynb" download>.ipynb</a>' in toll
    # Pages in site order: the home page (a value, no card: linked to the page) then the part.
    pages = re.findall(r'<li><a href="([^"]*)" title="(docs/[^"]+)">([^<]*)</a>: ([^\n]*)', toll)
    assert pages == [("../", "docs/index.md", "Home", "1 value"),
                     ("../part/#proof-toll", "docs/part.md", "The part", "card · 1 excerpt · 1 claim")]
    assert '<li title="docs/part.md:6">excerpt: grep &#34;element&#34;</li>' in toll
    assert "claim: One op costs under &lt;i&gt;a&lt;/i&gt; microsecond." in toll
    assert '<li title="docs/index.md:3">value: <code>TOLL.us</code></li>' in toll
    record = json.loads(site.record("toll").read_text())
    assert (f'<span class="ldr-index__state ldr-index__state--fresh">fresh</span> cpu · torch {record["torch"]} · '
            f'{record["device"]} · <time datetime="{record["measured_at"][:10]}">') in toll
    assert ('<li class="ldr-index__history">history · cpu · torch 2.0.0 · '
            f'{record["device"]} · <time datetime="2023-03-15">2023-03-15</time> · 0.25 s</li>') in toll
    assert ('<span class="ldr-index__state ldr-index__state--foreign" title="recorded under torch 2.11.0 '
            '(foreign accelerator record, kept)">foreign</span> cuda · torch 2.11.0 · NVIDIA H200 · '
            '<time datetime="2026-11-20">2026-11-20</time> · 0.12 s') in toll
    assert nbformat_record(site, "toll")["device"] == "NVIDIA H200"  # the notebook shows the primary record
    assert "not quoted on any page yet" in found["lonely"]
    assert 'href="../proofs/lonely.py"' in found["lonely"]
    assert "<b>" not in html and "<i>a" not in html


def test_a_stale_record_is_named_with_its_reason_and_a_failed_one_with_its_end(site):
    assert site.build().returncode == 0
    site.proof("lonely", 'raise SystemExit(3)\n', doc="Is anyone quoting me?")
    assert site.build(strict=False).returncode == 0
    lonely = rows(site.html("proofs"))["lonely"]
    measured = json.loads(site.record("lonely").read_text())["failure"]["measured_at"][:10]
    assert ('<span class="ldr-index__state ldr-index__state--failed" title="failed '  # plain Python: no torch
            f'on {measured}: it exited with status 3; shown: the last good run">failed</span>') in lonely
    (site.root / "mkdocs.yml").write_text(site.root.joinpath("mkdocs.yml").read_text().replace(
        "  - ldr\n", "  - ldr:\n      run: false\n"))
    site.proof("bits", 'print("BITS=17")\n', doc="How many bits does `torch.half` hold?")
    result = site.build(strict=False)
    assert result.returncode == 0, result.stderr
    bits = rows(site.html("proofs"))["bits"]
    assert ('<span class="ldr-index__state ldr-index__state--stale" title="script changed since it was '
            'recorded">stale</span>') in bits


def test_exercises_keep_the_authors_words_and_add_the_proofs_without_text(site):
    assert site.build().returncode == 0
    html = site.html("part")
    items = re.findall(r'<li class="ldr-exercise" id="exercise-([a-z0-9_]+)" data-proof="[a-z0-9_]+">(.*?)</li>',
                       html, re.S)
    assert [name for name, _ in items] == ["toll", "bits"]  # the author's first, then the page's order
    toll, bits = items[0][1], items[1][1]
    assert toll.startswith('\n<p><strong>The toll.</strong> Predict the time, then run '
                           '<a href="#proof-toll"><code>toll</code></a>.</p>')
    # the proof's line: its title and both downloads, as text (no element that only styles)
    assert ('<p class="ldr-exercise__proof">The proof: '
            '<a href="#proof-toll">What does one &lt;b&gt;op&lt;/b&gt; cost?</a> · '
            '<a class="ldr-exercise__download" href="../proofs/toll.py" download>toll.py</a> · '
            '<a class="ldr-exercise__download" href="../proofs/toll.ipynb" download>'
            'toll.ipynb</a></p>') in toll
    # bits has no card anywhere: its links go to the script.
    assert bits.startswith('\n<p><strong>How many bits does <code>torch.half</code> hold?</strong> Predict what ')
    assert '<a href="../proofs/bits.py">How many bits does <code>torch.half</code> hold?</a>' in bits
    assert '<a href="../proofs/bits.py"><code>bits</code></a>' in bits
    assert "lonely" not in html.split('class="ldr-exercises"')[1].split("</ol>")[0]


def test_an_unknown_proof_in_exercises_fails_naming_the_line_and_a_close_name(project, md):
    project.proof("toll", 'print("x")\n')
    with pytest.raises(SuperFencesException) as caught:
        md("# P\n\n```exercises\ntol: Predict it.\n```\n", page="p.md")
    message = str(caught.value)
    assert "docs/p.md:3" in message and "'tol' is not a proof; did you mean toll?" in message


def test_the_index_takes_no_options(project, md):
    project.proof("toll", 'print("x")\n')
    with pytest.raises(SuperFencesException, match="proofs-index"):
        md("```proofs-index\nsort: name\n```\n", page="p.md")


def test_quotes_skip_code_blocks_and_name_instruments_by_their_proof():
    text = ("---\ntitle: T\n---\n# H\n\n{{ a.K.x | .2f }} and `{{ a.K.y }}`\n\n"
            "````markdown\n```proof\nb\n```\n````\n\n```instrument\ntoll-meter\n```\n")
    assert quotes(text, {"toll-meter": "dispatch_cost"}) == [
        Quote(6, "a", "value", "K.x"), Quote(14, "dispatch_cost", "instrument", "toll-meter")]
    assert page_title(text, "x.md") == "T"
    assert page_title("# Part `1` { #top }\n", "x.md") == "Part 1"
    assert page_title("no heading", "a/some-page.md") == "Some page"
    assert page_title("```python\n# not a title\n```\n\n# Real\n", "x.md") == "Real"
