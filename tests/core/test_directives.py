"""Directive rendering on small cases, with exact HTML where the output is ours alone."""

import json
import re
from pathlib import Path as _Path

import pytest
from pymdownx.superfences import SuperFencesException

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.pin import pinned_torch as _pinned

SERIES = ["build_hooks.series"]  # the series' widgets join the core's fences

PIN = _pinned(_Path(__file__).resolve().parents[2])


TOLL = """
    import json
    import torch  # noqa: F401  (a proof of torch's: its provenance names the torch)
    print("1 element:   0.50 us per add")
    print("4M elements: 300.00 us per add")
    print("TOLL=" + json.dumps({"small_us": 0.5012, "rate": 1995210.0, "sizes": [1, 4]}))
    print("<script>alert(1)</script>")
"""


@pytest.fixture
def toll(project):
    project.proof("toll", TOLL, doc="The toll.\n\nEvery op pays it.")
    return project


def provenance(project, name="toll"):
    record = json.loads(project.record(name).read_text())
    return f"torch {record['torch']}, {record['device']}, {record['measured_at'][:10]}"


def test_inline_value_exact(toll, md):
    """A value is quiet text, not a link that jumps to the card: its provenance is its title (shown
    on hover, and on focus by the stylesheet), and the card's address stays in data-card."""
    html = md("A toll of {{ toll.TOLL.small_us | .2f }} us, {{ toll.TOLL.rate | words }} ops/s.\n")
    where = provenance(toll)
    assert html == (
        '<p>A toll of <span class="ldr-value" data-card="#proof-toll" data-format=".2f" data-key="TOLL.small_us" '
        f'data-proof="toll" tabindex="0" title="toll: TOLL.small_us = 0.5012 ({where})">0.50</span> us, '
        '<span class="ldr-value" data-card="#proof-toll" data-format="words" data-key="TOLL.rate" '
        f'data-proof="toll" tabindex="0" title="toll: TOLL.rate = 1995210.0 ({where})">2.0 million</span> ops/s.</p>'
    )
    assert "<a " not in html and "href=" not in html


FAR = re.compile(r'<div class="ldr-far" style="--ldr-far-p:(\d+);--ldr-far-w:(\d+)">')


def test_runs_past_the_first_screens_are_wrapped_between_headings(toll, md):
    """The browser may skip what is off screen inside a <div class="ldr-far"> (the stylesheet),
    never above the first one: the first run starts at the first top-level block once EARLY_TEXT
    characters of text are behind (a directive's too), each run ends at a heading, which stays
    outside, and a short page has none."""
    from build_hooks.site.lazyfigures import EARLY_TEXT

    line = "x" * 99 + "\n\n"  # a paragraph of 99 characters
    assert "ldr-far" not in md(line * (EARLY_TEXT // 99 - 1) + "## A heading\n\nmore\n")
    html = md(line * (EARLY_TEXT // 99 + 1) + "- after\n\nlast\n\n## Next\n\nmore\n")
    # 51 paragraphs hold 5,049 characters: the list after them starts the first run
    head, runs = html.split('<div class="ldr-far"', 1)
    assert head.count("x" * 99) == EARLY_TEXT // 99 + 1
    assert len(FAR.findall(html)) == 2
    first, second = runs.split("</div>")[:2]
    assert "<ul>" in first and "<p>last</p>" in first and "<h2" not in first
    assert second.lstrip().startswith("<h2>Next</h2>") and "<p>more</p>" in second
    # a directive's text counts: with a card above, fewer paragraphs come before the first run
    card = md("```proof\ntoll\n```\n" + line * (EARLY_TEXT // 99 + 1))
    assert card.count('class="ldr-far"') == 1
    assert card[:card.index('class="ldr-far"')].count("x" * 99) < EARLY_TEXT // 99 + 1
    # a block of raw HTML that holds a heading stays outside too, and ends the run before it
    raw = md(line * (EARLY_TEXT // 99 + 1) + "before\n\n<div><h3>Inside</h3></div>\n\nafter\n")
    assert len(FAR.findall(raw)) == 2
    assert re.search(r"</div>\s*<div><h3>Inside</h3></div>\s*<div class=\"ldr-far\"", raw), raw[-400:]


def test_a_runs_stand_in_grows_with_what_it_holds(md):
    """The stand-in heights (site/farblocks.py) follow the run's text; on a phone's narrow column
    a run is taller than on a laptop's."""
    from build_hooks.site.lazyfigures import EARLY_TEXT

    line = "x" * 99 + "\n\n"
    lead = line * (EARLY_TEXT // 99 + 1)
    short = [tuple(map(int, m)) for m in FAR.findall(md(lead + "one\n\n## H\n\n" + "word " * 50 + "\n"))]
    long = [tuple(map(int, m)) for m in FAR.findall(md(lead + "one\n\n## H\n\n" + "word " * 500 + "\n"))]
    assert short[0] == long[0]
    assert long[1][0] > 5 * short[1][0] and long[1][1] > 5 * short[1][1]
    assert all(phone > wide for phone, wide in short + long)


def test_value_in_code_span_is_left_alone(toll, md):
    assert md("`{{ toll.TOLL.small_us }}`") == "<p><code>{{ toll.TOLL.small_us }}</code></p>"


def test_excerpt_exact(toll, md):
    record = json.loads(toll.record("toll").read_text()) if toll.record("toll").exists() else None
    html = md('```proof-output\nproof: toll\ngrep: "4M"\n```\n')
    record = json.loads(toll.record("toll").read_text())
    assert html == (
        '<figure class="ldr-excerpt" data-proof="toll"><pre><code>4M elements: 300.00 us per add</code></pre>'
        '<figcaption>Output of <a href="#proof-toll">proof <code>toll</code></a> · torch '
        f"{record['torch']} · {record['device']}</figcaption></figure>"
    )


def test_excerpt_by_line_numbers_skips_data_lines(toll, md):
    html = md('```proof-output\nproof: toll\nlines: "2-3"\n```\n')
    assert "<pre><code>4M elements: 300.00 us per add\n&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>" in html


def test_card_parts(toll, md):
    html = md("```proof\ntoll\n```\n")
    assert html.startswith('<section class="ldr-proof" id="proof-toll" data-proof="toll" data-device="cpu" '
                           'aria-labelledby="proof-toll-title">')
    assert ('<p class="ldr-proof__title" id="proof-toll-title"><a class="ldr-proof__anchor" '
            'href="#proof-toll">The toll</a></p>') in html
    assert '<p class="ldr-proof__purpose">Every op pays it.</p>' in html
    assert ('<pre class="ldr-proof__output"><code>1 element:   0.50 us per add\n4M elements: 300.00 us per add\n'
            '&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>') in html
    assert "TOLL=" not in html.split("ldr-proof__source")[0], "data lines must not show in the output"
    assert "<script>" not in html
    lines = len((toll.root / "proofs" / "toll.py").read_text().splitlines())
    # The source is one click away, on a page of its own: the card carries no highlighted code.
    assert ('<p class="ldr-proof__source"><a href="proofs/toll.py.html">Source: <code>proofs/toll.py</code> · '
            f'{lines}&nbsp;lines</a></p>') in html
    assert "<details" not in html and 'class="highlight' not in html and '<span class="k' not in html
    assert '<a class="ldr-proof__download" href="proofs/toll.py" download>Download and run it</a>' in html
    assert re.search(r'<p class="ldr-proof__provenance">torch ' + re.escape(PIN)
                     + r' · <span class="ldr-proof__device">cpu: .+'
                     r'</span> · Python 3\.\d+\.\d+ · Linux \w+ · measured <time datetime="\d{4}-\d\d-\d\d">', html)
    assert "ldr-proof__notice" not in html


def errors(md, text, page="chapter.md"):
    # Fences must raise SuperFencesException, or superfences would swallow the error.
    with pytest.raises((DirectiveError, SuperFencesException)) as info:
        md(text, page=page)
    return str(info.value)


def test_unknown_proof_names_page_and_line(toll, md):
    message = errors(md, "# T\n\nintro\n\nA {{ nope.TOLL.small_us }} here.\n")
    assert message.startswith("docs/chapter.md:5: unknown proof 'nope'") and "known proofs: toll" in message


def test_unknown_key_names_page_line_and_known_keys(toll, md):
    message = errors(md, "Line one.\n\nThe {{ toll.TOLL.smal_us | .2f }} toll.\n")
    assert message.startswith("docs/chapter.md:3: proof toll has no data key 'TOLL.smal_us'")
    assert "known keys: TOLL.small_us, TOLL.rate, TOLL.sizes.0" in message


def test_unknown_proof_in_a_card_names_page_and_line(toll, md):
    message = errors(md, "# T\n\n```proof\nmissing_one\n```\n")
    assert message.startswith("docs/chapter.md:3: unknown proof 'missing_one'")


def test_excerpt_errors(toll, md):
    assert "docs/chapter.md:1: no output line contains 'absent'" in errors(
        md, '```proof-output\nproof: toll\ngrep: "absent"\n```\n')
    assert "lines: 7-9 is out of range: the output has 3 visible lines" in errors(
        md, '```proof-output\nproof: toll\nlines: "7-9"\n```\n')
    assert "needs `grep:" in errors(md, "```proof-output\nproof: toll\n```\n")
    assert "to: no output line after line 1 contains 'nowhere'" in errors(
        md, '```proof-output\nproof: toll\nfrom: "4M"\nto: "nowhere"\n```\n')


def test_excerpt_from_to_keeps_a_block_between_two_markers(toll, md):
    html = md('```proof-output\nproof: toll\nfrom: "1 element"\nto: "4M"\n```\n')
    assert "<pre><code>1 element:   0.50 us per add\n4M elements: 300.00 us per add</code></pre>" in html


def test_a_title_with_backticks_shows_code_not_backticks(project, md):
    project.proof("ticks", "print(1)\n", doc="What `x.view` shares <b>\n\nIt shares.")
    html = md("```proof\nticks\n```\n")
    assert ('<a class="ldr-proof__anchor" href="#proof-ticks">What <code>x.view</code> shares &lt;b&gt;</a>'
            in html)
    assert "`" not in html


def test_purpose_keeps_backticks_as_code(project, md):
    project.proof("ticks", "print(1)\n", doc="Ticks.\n\nShows that `torch.randn` is <builtin>.")
    assert ('<p class="ldr-proof__purpose">Shows that <code>torch.randn</code> is &lt;builtin&gt;.</p>'
            in md("```proof\nticks\n```\n"))


def test_bad_format_and_bad_yaml(toll, md):
    assert "format 'words' needs a number" in errors(md, "{{ toll.TOLL.sizes | words }}\n")
    assert "not valid YAML" in errors(md, "```proof-output\nproof: [toll\n```\n")


def test_device_selection(toll, md):
    assert "proof toll has no cuda record; recorded: cpu" in errors(md, "{{ toll@cuda.TOLL.small_us }}\n")
    assert ">0.5012<" in md("{{ toll@cpu.TOLL.small_us }}\n")


@pytest.mark.parametrize("name", ["ldr", "build_hooks.hosts.markdown.extension"])
def test_extension_by_name_without_mkdocs(project, name):
    """As Zensical, ProperDocs or plain Python-Markdown load it: by name, with a root option;
    a proof with no record runs the first time a page quotes it."""
    import markdown

    from build_hooks.hosts.markdown.extension import custom_fences

    project.proof("z", 'print("V=41")\nprint("hello")\n')
    md = markdown.Markdown(extensions=["attr_list", name, "pymdownx.superfences"],
                           extension_configs={name: {"root": str(project.root)},
                                              "pymdownx.superfences": {"custom_fences": custom_fences(SERIES)}})
    html = md.convert("Value {{ z.V }}.\n\n```proof\nz\n```\n")
    assert 'id="proof-z"' in html and ">41</span>" in html and project.record("z").exists()
    with pytest.raises(SuperFencesException, match="unknown proof 'nope'"):
        md.convert("```proof\nnope\n```\n")
