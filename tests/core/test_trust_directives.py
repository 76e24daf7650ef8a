"""A strict build that passes is a true page: proof output stays data, every directive error is
a build error naming its own page and line, and a value's link never breaks --strict."""

import json
import re
import textwrap

import markdown as pymd
import pytest
from pymdownx.superfences import SuperFencesException

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.registry import registry
from build_hooks.hosts.markdown.extension import VALUE, LdrExtension, LdrState, custom_fences
from build_hooks.pages.locate import Locations, locate
from build_hooks.proofs.datalines import parse_output
from build_hooks.render.safe import visible

SERIES = ["build_hooks.series"]  # the series' widgets join the core's fences
FENCES = registry(SERIES).fences
HOSTILE = {
    "img": "<img src=x onerror=alert(1)>",
    "link": "[click](javascript:alert(8))",
    "em": "*x* _y_ **z**",
    "amp": "&lt;b&gt; &amp; &#60;",
    "ctl": "a\x1bb\x00c\x7fd\x9be\x07f",
    "script": "</script><img src=x onerror=alert(2)><!--",
}
EVIL = f"""
    import json
    print({HOSTILE["img"] + " " + HOSTILE["link"] + " " + HOSTILE["em"]!r})
    print("colour \\x1b[31mred\\x1b[0m nul \\x00 del \\x7f csi \\x9b bell \\x07")
    print("NOTE=" + json.dumps({HOSTILE!r}))
"""
TOLL = """
    import json
    print("1 element:   0.50 us per add")
    print("4M elements: 300.00 us per add")
    print("TOLL=" + json.dumps({"small_us": 0.5012, "rate": 1995210.0}))
"""
CONTROL_BYTES = ("\x00", "\x1b", "\x7f", "\x9b", "\x07")


def safe(html: str) -> None:
    """Nothing a proof printed became markup."""
    assert "<img" not in html
    assert not [h for h in re.findall(r'href="([^"]*)"', html) if "javascript:" in h]
    assert "<em>" not in html and "<strong>x" not in html and "<strong>z" not in html
    for byte in CONTROL_BYTES:
        assert byte not in html, f"control character {byte!r} reached the HTML"


@pytest.fixture
def evil(project):
    project.proof("evil", EVIL)
    project.proof("toll", TOLL)
    return project


def collect(project, text: str, page: str = "chapter.md") -> tuple[str, list[str]]:
    """Convert as the plugin does (errors collected, not raised): (html, error messages)."""
    state = LdrState(project.root, raise_errors=False, autorun=True)
    state.begin_page(page, "")
    engine = pymd.Markdown(extensions=["attr_list", "pymdownx.superfences", LdrExtension(state=state)],
                           extension_configs={"pymdownx.superfences": {"custom_fences": custom_fences(SERIES)}})
    html = engine.convert(textwrap.dedent(text))
    return html, [d.message for d in state.diagnostics if d.level == "error"]


def error(md, text: str, page: str = "chapter.md") -> str:
    with pytest.raises((DirectiveError, SuperFencesException)) as info:
        md(text, page=page)
    return str(info.value)


# -- 1. proof output is data ---------------------------------------------------------------

def test_inline_values_are_text_never_markup(evil, md):
    html = md("A {{ evil.NOTE.img }} B {{ evil.NOTE.link }} C {{ evil.NOTE.em }} D {{ evil.NOTE.amp }}.\n")
    safe(html)
    assert ">&lt;img src=x onerror=alert(1)&gt;</span>" in html
    assert ">[click](javascript:alert(8))</span>" in html
    assert ">*x* _y_ **z**</span>" in html
    # An entity in the data is shown as written, not decoded: the browser displays "&lt;b&gt; &amp; &#60;".
    assert ">&amp;lt;b&amp;gt; &amp;amp; &amp;#60;</span>" in html
    assert 'title="evil: NOTE.img = \'&lt;img src=x onerror=alert(1)&gt;\'' in html


def test_control_characters_are_shown_as_pictures_everywhere(evil, md):
    assert visible("a\x1bb\x00c\x7fd\x9be\tf\ng") == "a\u241bb\u2400c\u2421d\\x9be\tf\ng"
    value = md("{{ evil.NOTE.ctl }}\n")
    assert ">a\u241bb\u2400c\u2421d\\x9be\u2407f</span>" in value
    card = md("```proof\nevil\n```\n")
    assert "colour \u241b[31mred\u241b[0m nul \u2400 del \u2421 csi \\x9b bell \u2407" in card
    excerpt = md('```proof-output\nproof: evil\ngrep: "colour"\n```\n')
    assert "<pre><code>colour \u241b[31mred" in excerpt
    for html in (value, card, excerpt):
        safe(html)


def test_card_and_excerpt_escape_output(evil, md):
    card = md("```proof\nevil\n```\n")
    excerpt = md('```proof-output\nproof: evil\nlines: "1"\n```\n')
    for html in (card, excerpt):
        safe(html)
        assert ("&lt;img src=x onerror=alert(1)&gt; [click](javascript:alert(8)) *x* _y_ **z**"
                in html)


def test_traceback_of_a_failed_proof_is_escaped(project, md):
    project.proof("broken", 'import sys\nprint("<img src=x onerror=alert(3)>\\x1b[0m", file=sys.stderr)\n'
                            "raise SystemExit(3)\n")
    html = md("```proof\nbroken\n```\n")
    assert "ldr-proof__traceback" in html
    assert "&lt;img src=x onerror=alert(3)&gt;\u241b[0m" in html
    safe(html)


def test_instrument_data_cannot_close_its_script(project, md):
    toll = {"small_us": 0.5, "large_us": 300.0, "op": HOSTILE["img"], "note": HOSTILE["script"],
            "ctl": "\x1b\x7f"}
    sweep = [{"numel": 1, "us": 0.5}, {"numel": 1024, "us": 3.0}]
    project.proof("meter", f"import json\nprint('TOLL=' + json.dumps({toll!r}))\n"
                           f"print('SWEEP=' + json.dumps({sweep!r}))\n")
    html = md("```instrument\nname: toll-meter\nproof: meter\n```\n")
    safe(html)
    assert html.count("</script>") == 1 and html.count("<script") == 1
    body = html.split('class="ldr-instrument__data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body and ">" not in body  # so no </script> and no <!-- inside
    data = json.loads(body)[0]["data"]["TOLL"]
    assert data["note"] == HOSTILE["script"] and data["op"] == HOSTILE["img"]
    assert data["ctl"] == "\u241b\u2421"


# -- 2. nothing vanishes silently ------------------------------------------------------------

def test_non_finite_numbers_are_refused_at_parse_time():
    parsed = parse_output(['X={"a": {"b": NaN}, "c": [1, -Infinity]}', "Y=Infinity", "Z=1e999", "W=2"])
    assert parsed.data == {"W": 2}
    assert parsed.problems == [
        "output line 1: X.a.b is NaN; data must be finite numbers (print null or a string instead)",
        "output line 1: X.c.1 is -Infinity; data must be finite numbers (print null or a string instead)",
        "output line 2: Y is Infinity; data must be finite numbers (print null or a string instead)",
        "output line 3: Z is Infinity; data must be finite numbers (print null or a string instead)",
    ]
    json.dumps(parsed.data, allow_nan=False)


def test_duplicate_names_are_problems():
    parsed = parse_output(["X=1", "X=2"])
    assert parsed.data == {"X": 2}
    assert parsed.problems == ["output line 2: X printed twice; the last value wins"]


def test_nan_in_data_is_not_stored_and_a_value_says_why(project, md):
    project.proof("nan", 'print("X={\\"a\\": {\\"b\\": NaN}}")\n')
    message = error(md, "text\n\n{{ nan.X.a.b }}\n")
    assert message.startswith("docs/chapter.md:3: proof nan has no data key 'X.a.b'")
    assert "its data lines could not be read: output line 1: X.a.b is NaN; data must be finite" in message
    stored = json.loads(project.record("nan").read_text(),
                        parse_constant=lambda c: pytest.fail(f"the store holds {c}"))
    assert stored["data"] == {}


def test_a_data_line_cut_by_the_output_cap_is_named_as_such(project, md):
    project.proof("chatty", 'PROOF = {"output_cap": 1024}\nprint("BIG=" + "[" + "1, " * 1000 + "1]")\n')
    message = error(md, "{{ chatty.BIG.0 }}\n")
    assert message.startswith("docs/chapter.md:1: proof chatty has no data key 'BIG.0'")
    assert "printed no NAME=<json> lines" not in message
    assert "printed more than its output cap" in message
    assert "output line 1: BIG= is not valid JSON" in message and "cut off" in message


def test_an_unexpected_exception_in_a_fence_is_an_error_with_its_line(project, md, monkeypatch):
    project.proof("toll", TOLL)
    import build_hooks.hosts.markdown.state as module

    def explode(*args, **kwargs):
        raise KeyError("wall_s")

    monkeypatch.setattr(module, "render_card", explode)
    message = error(md, "# T\n\nintro\n\n```proof\ntoll\n```\n")
    assert message.startswith("docs/chapter.md:5: the proof fence for toll could not be rendered: KeyError: 'wall_s'")
    assert "proofs/_results" in message


def test_an_unexpected_exception_in_a_value_is_an_error_with_its_line(project, md, monkeypatch):
    project.proof("toll", TOLL)
    import build_hooks.hosts.markdown.state as module

    def explode(value, fmt=""):
        raise TypeError("boom")

    monkeypatch.setattr(module, "format_value", explode)
    message = error(md, "one\n\ntwo {{ toll.TOLL.small_us }}\n")
    assert message == ("docs/chapter.md:3: the value {{ toll.TOLL.small_us }} could not be rendered: "
                       "TypeError: boom (an unexpected error: a record in proofs/_results with a field "
                       "of the wrong type causes this; `ldr status` lists the records, `ldr run NAME "
                       "--force` rewrites one)")


def test_a_nan_already_in_the_store_fails_the_instrument_with_its_line(project, md):
    sweep = [{"numel": 1, "us": 0.5}, {"numel": 1024, "us": 3.0}]
    project.proof("meter", "import json\nprint('TOLL=' + json.dumps({'small_us': 0.5, 'large_us': 3.0}))\n"
                           f"print('SWEEP=' + json.dumps({sweep!r}))\n")
    md("```instrument\nname: toll-meter\nproof: meter\n```\n")  # records it
    record = json.loads(project.record("meter").read_text())
    record["data"]["TOLL"]["extra"] = float("nan")  # as a store written before NaN was refused
    project.record("meter").write_text(json.dumps(record))
    md.state.begin_build()
    try:
        html = md("Text.\n\n```instrument\nname: toll-meter\nproof: meter\n```\n", page="chapter.md")
    except (DirectiveError, SuperFencesException) as exc:
        assert str(exc).startswith("docs/chapter.md:3: the instrument fence for toll-meter could not be "
                                   "rendered: ValueError: Out of range float values are not JSON compliant")
    else:  # a store that refuses such a record makes the proof run again: then the page is true
        assert 'data-instrument="toll-meter"' in html and "NaN" not in html


def test_a_wrong_typed_record_field_fails_a_strict_build(project):
    project.proof("twelve_ideas", TOLL)
    assert project.ldr("run").returncode == 0
    record = json.loads(project.record("twelve_ideas").read_text())
    record["wall_s"] = "slow"
    project.record("twelve_ideas").write_text(json.dumps(record, indent=2))
    project.page("index.md", "# Home\n\nSome text.\n\n```proof\ntwelve_ideas\n```\n")
    config = project.root / "mkdocs.yml"  # use the record as it is: no re-run
    config.write_text(config.read_text().replace("  - ldr\n", "  - ldr:\n      run: false\n"))
    result = project.build()
    assert result.returncode != 0
    # Either the card fails naming its line, or the store reports the record as corrupt.
    assert ("docs/index.md:5: the proof fence for twelve_ideas could not be rendered: ValueError" in result.stderr
            or ("corrupt record" in result.stderr and "twelve_ideas.cpu.json" in result.stderr)), result.stderr
    assert not (project.root / "site" / "index.html").exists() or \
        "<p><code>proof" not in project.html("index")


# -- 4. every error names its own line -------------------------------------------------------

FRONT = "---\ntitle: Lines\n---\n"


def test_errors_name_their_own_lines_in_a_strict_build(evil):
    lines = [""] * 60
    lines[0] = "# Lines"
    for number in (26, 31, 36, 46):  # four excerpts of one proof, each quoting a missing line
        lines[number - 1: number + 3] = ["```proof-output", "proof: toll", f'grep: "absent {number}"', "```"]
    lines[15:19] = ["```proof-output", "proof: toll", 'grep: "4M"', "```"]  # a good excerpt at 16
    lines[20:23] = ["```proof", "nope_nope", "```"]  # a bad card at 21, after the excerpt
    for number in (50, 52, 55):
        lines[number - 1] = f"Line {number}: {{{{ toll.TOLL.nope }}}} and `{{{{ toll.TOLL.nope }}}}`."
    evil.page("index.md", FRONT + "\n".join(lines) + "\n")
    result = evil.build()
    assert result.returncode != 0
    shift = FRONT.count("\n")
    found = re.findall(r"docs/index\.md:(\d+): (no output line contains 'absent (\d+)'|unknown proof "
                       r"'nope_nope'|proof toll has no data key 'TOLL.nope')", result.stderr)
    by_kind = sorted((int(line) - shift, what.split("'")[1]) for line, what, _ in found)
    assert by_kind == [(21, "nope_nope"), (26, "absent 26"), (31, "absent 31"), (36, "absent 36"),
                       (46, "absent 46"), (50, "TOLL.nope"), (52, "TOLL.nope"), (55, "TOLL.nope")]


def test_identical_fences_each_get_their_own_line(evil):
    fence = '```proof-output\nproof: toll\ngrep: "absent"\n```\n'
    _, errors = collect(evil, f"{fence}\ntext\n\n{fence}\n{fence}\n- item\n\n"
                              f"    {fence.replace(chr(10), chr(10) + '    ')}")
    assert sorted(int(m.split(":")[1]) for m in errors) == [1, 8, 13, 20]


def test_a_card_after_an_excerpt_names_its_own_line(evil, md):
    message = error(md, 'Intro.\n\n```proof-output\nproof: toll\ngrep: "4M"\n```\n\nMore.\n\n'
                        "```proof\nname: toll\ndevice: cpu\n```\n")
    assert message.startswith("docs/chapter.md:10: proof: unknown option(s) device; the proof fence takes: name")


def test_repeated_values_each_get_their_own_line(evil):
    text = ("{{ toll.TOLL.nope }}\n\n- item {{ toll.TOLL.nope }}\n\n> {{ toll.TOLL.nope }}\n\n"
            "`{{ toll.TOLL.nope }}` in code, then\n{{ toll.TOLL.nope }}\n\n"
            "| a | b |\n|---|---|\n| {{ toll.TOLL.nope }} | x |\n")
    _, errors = collect(evil, text)
    lines = sorted(int(m.split(":")[1]) for m in errors)
    assert lines == [1, 3, 5, 8, 12]


def test_locate_skips_code_and_escapes_and_sees_into_admonitions():
    text = textwrap.dedent("""\
        Text {{ a.B }} and `{{ a.C }}` and \\{{ a.D }}.

        ```python
        {{ a.E }}
        ```

        !!! note
            Inside {{ a.F }}.

            ```proof
            x
            ```

        ````markdown
        ```proof
        y
        ```
        ````
        """)
    spots = locate(text, FENCES, VALUE)
    assert [(s.kind, s.line, s.text.strip()) for s in spots] == [
        ("value", 1, "{{ a.B }}"), ("value", 8, "{{ a.F }}"), ("proof", 10, "x")]
    where = Locations(spots)
    assert where.take("proof", "x\n").line == 10 and where.take("proof", "x\n") is None
    assert where.take("value", "{{  a.F }}").line == 8


# -- 5. unknown options ----------------------------------------------------------------------

@pytest.mark.parametrize("fence, body, expected", [
    ("proof-output", 'proof: toll\ngerp: "4M"',
     "proof-output: unknown option(s) gerp (did you mean grep for gerp?); the proof-output fence takes: "
     "device, from, grep, lines, proof, to"),
    ("proof", "name: toll\ndevice: cuda", "proof: unknown option(s) device; the proof fence takes: name"),
    ("instrument", "name: toll-meter\nproof: toll\ncolour: red",
     "instrument: unknown option(s) colour; the instrument fence takes: name, proof"),
    ("figure", "src: floors.excalidraw\ncaptoin: x",
     "figure: unknown option(s) captoin (did you mean caption for captoin?); the figure fence takes: "
     "alt, caption, frame, src"),
    ("reading-lines", "style: big",
     "reading-lines: the reading-lines fence takes no options (style given); leave its body empty"),
    ("robot", "says: hi\nmood: happy", "robot: unknown option(s) mood; the robot fence takes: says"),
    ("proofs-index", "sort: name",
     "proofs-index: the proofs-index fence takes no options (sort given); leave its body empty"),
    ("drift-report", "form: 2.13.0",
     "drift-report: unknown option(s) form (did you mean from for form?); the drift-report fence takes: "
     "details, from, to"),
])
def test_unknown_options_are_errors_naming_them(evil, md, fence, body, expected):
    message = error(md, f"Text.\n\n```{fence}\n{body}\n```\n")
    assert message == f"docs/chapter.md:3: {expected}"


# -- 6. one card per proof per page ----------------------------------------------------------

def test_a_second_card_of_a_proof_is_an_error_naming_both_lines(evil, md):
    text = "```proof\ntoll\n```\n\nText.\n\n```proof\nname: toll\n```\n"
    assert error(md, text) == (
        "docs/chapter.md:7: proof toll already has a card on this page at line 1; a page shows each "
        "proof's card once; quote it with proof-output or an inline value instead")
    html, errors = collect(evil, text)
    assert len(errors) == 1 and html.count('id="proof-toll"') == 1


# -- 7. a value's link never breaks --strict -------------------------------------------------

def test_value_links_resolve_under_strict(evil):
    evil.proof("lone", 'print("N=7")\n')
    evil.page("index.md", "# Home\n\nThe toll is {{ toll.TOLL.small_us | .2f }} us.\n")
    evil.page("other.md", "# Other\n\n```proof\ntoll\n```\n\nHere {{ toll.TOLL.small_us | .1f }}.\n")
    (evil.root / "docs" / "deep").mkdir()
    evil.page("deep/page.md", "# Deep\n\nOnly a value: {{ lone.N }}.\n")
    config = evil.root / "mkdocs.yml"  # every link and anchor checked, not only missing files
    config.write_text(config.read_text() + "validation:\n  anchors: warn\n  unrecognized_links: warn\n")
    result = evil.build()
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    assert 'data-card="other/#proof-toll"' in evil.html("index")
    other = evil.html("other")
    assert 'data-card="#proof-toll" data-format=".1f"' in other and 'id="proof-toll"' in other
    deep = evil.html("deep/page")
    assert re.search(r'<span class="ldr-value" data-card="proofs/lone\.py"', deep)  # from the site's root
    assert (evil.root / "site" / "proofs" / "lone.py").is_file()


def test_lines_inside_containers(evil):
    """Admonitions, details and tabs indent their content; quotes and lists nest it."""
    text = textwrap.dedent('''\
        # T

        !!! note "Title"

            Text {{ toll.TOLL.n5 }}.

            ```proof-output
            proof: toll
            grep: "a7"
            ```

        ??? details

            === "Tab"

                Tab {{ toll.TOLL.n16 }}

                ```proof-output
                proof: toll
                grep: "t18"
                ```

        > ```proof-output
        > proof: toll
        > grep: "q23"
        > ```

        - item {{ toll.TOLL.n28 }}

            ```proof-output
            proof: toll
            grep: "l30"
            ```

        Last {{ toll.TOLL.n35 }}
        ''')
    state = LdrState(evil.root, raise_errors=False, autorun=True)
    state.begin_page("chapter.md", "")
    engine = pymd.Markdown(
        extensions=["attr_list", "admonition", "pymdownx.details", "pymdownx.tabbed", "pymdownx.superfences",
                    LdrExtension(state=state)],
        extension_configs={"pymdownx.superfences": {"custom_fences": custom_fences(SERIES)},
                           "pymdownx.tabbed": {"alternate_style": True}})
    engine.convert(text)
    found = sorted((int(d.message.split(":")[1]), re.findall(r"'([a-z]\d+|TOLL\.n\d+)'", d.message)[0])
                   for d in state.diagnostics)
    assert found == [(5, "TOLL.n5"), (7, "a7"), (16, "TOLL.n16"), (18, "t18"), (23, "q23"),
                     (28, "TOLL.n28"), (30, "l30"), (35, "TOLL.n35")]
