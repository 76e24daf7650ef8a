"""Claims: the check language, its refusals, the fence on a page, and a strict build."""

from pathlib import Path as _Path

import pytest
from pymdownx.superfences import SuperFencesException

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.upgrade.claims import ClaimResult, describe, evaluate, find_claims
from build_hooks.upgrade.expression import ClaimError
from build_hooks.upgrade.shown import show_value

PIN = _pinned(_Path(__file__).resolve().parents[2])


DATA = {
    "TOLL": {"small_us": 4.1, "large_us": 1780.2, "op": "add", "fused": True, "none": None},
    "SWEEP": [{"numel": 1, "us": 4.1}, {"numel": 4, "us": 4.0}, {"numel": 16, "us": 9.5}],
    "SIZES": {"libtorch_cpu": {"bytes": 434184800}, "stub": {"bytes": 8737}},
    "CHAIN": ["MulBackward0", "AddBackward0", "CopySlices"],
    "STEPS": 30,
    "FLAGS": [True, True, False],
    "WEIRD": "__class__",
}


def holds(expression):
    return evaluate(expression, DATA).holds


def refused(expression):
    with pytest.raises(ClaimError) as info:
        evaluate(expression, DATA)
    return str(info.value)


@pytest.mark.parametrize("expression, expected", [
    ("TOLL.large_us > 100 * TOLL.small_us", True),
    ("TOLL.large_us > 1000 * TOLL.small_us", False),
    ("SWEEP.0.us < SWEEP.-1.us", True),
    ("SIZES.libtorch_cpu.bytes > 10000 * SIZES.stub.bytes", True),
    ("STEPS == 30", True),
    ("1 < 2 < 3 <= 3", True),
    ("1 < 3 < 2", False),
    ("SWEEP.0.numel < SWEEP.1.numel < SWEEP.2.numel", True),
    ("(STEPS + 2) * 2 - 4 == 60 and STEPS / 4 == 7.5 and STEPS // 4 == 7 and STEPS % 7 == 2", True),
    ("2 ** 10 == 1024 and -STEPS == -30 and +STEPS == 30", True),
    ("not TOLL.fused or TOLL.op == 'add'", True),
    ("TOLL.fused and not TOLL.fused", False),
    ("TOLL.op != \"mul\" and TOLL.none == None and TOLL.fused == True", True),
    ("'Mul' in CHAIN.0 and 'CopySlices' in CHAIN and 'Sub' not in CHAIN.1", True),
    ("CHAIN == ['MulBackward0', 'AddBackward0', 'CopySlices']", True),
    ("CHAIN.0 == 'MulBackward0' and CHAIN.-1 == 'CopySlices'", True),
    ("max(SWEEP.*.us) == SWEEP.2.us and min(SWEEP.*.us) == 4.0", True),
    ("max(1, STEPS, 3) == 30 and min([5, 2]) == 2", True),
    ("sum(SWEEP.*.numel) == 21 and len(SWEEP) == 3 and len(TOLL.op) == 3", True),
    ("all(FLAGS)", False),
    ("any(FLAGS) and all([True, 1 < 2])", True),
    ("abs(-3) == 3 and round(TOLL.large_us) == 1780 and round(2.345, 1) == 2.3", True),
    ("WEIRD == '__class__'", True),
    ("(((STEPS)))  >  1e1", True),
])
def test_each_construct(expression, expected):
    assert holds(expression) is expected


def test_values_are_the_paths_as_written():
    result = evaluate("TOLL.large_us > 100 * TOLL.small_us and max(SWEEP.*.us) > 0", DATA)
    assert result == ClaimResult(True, {"TOLL.large_us": 1780.2, "TOLL.small_us": 4.1,
                                        "SWEEP.*.us": [4.1, 4.0, 9.5]})


def test_paths_inside_strings_stay_strings():
    assert evaluate("'TOLL.op' != TOLL.op", DATA).values == {"TOLL.op": "add"}


@pytest.mark.parametrize("expression, says", [
    ("__import__('os')", "names starting with '_' are not allowed"),
    ("().__class__", "names starting with '_' are not allowed"),
    ("().mro", "not allowed in a claim: attribute access"),
    ("TOLL.__class__", "a data path part cannot start with '__'"),
    ("toll.small_us > 1", "not allowed in a claim: attribute access"),
    ("[x for x in SWEEP]", "not allowed in a claim: comprehensions"),
    ("any(x for x in FLAGS)", "not allowed in a claim: comprehensions"),
    ("lambda: 1", "not allowed in a claim: lambdas"),
    ("(lambda: 1)() == 1", "calling 'lambda: 1' is not allowed"),
    ("open('f')", "calling 'open' is not allowed"),
    ("eval('1')", "calling 'eval' is not allowed"),
    ("exec('1') or compile('1', 'f', 'eval')", "calling 'exec' is not allowed"),
    ("getattr(TOLL, 'x')", "calling 'getattr' is not allowed"),
    ("TOLL(1) == 1", "a data path is a value, not a function"),
    ("max(SWEEP.*.us, key=abs)", "takes no keyword arguments"),
    ("10**10**10 > 1", "exponent 10000000000: the limit is 64"),
    ("2 ** 64 ** 2 > 1", "the limit is 64"),
    ("99999 ** 64 > 1", "beyond 1e+300"),
    ("1e300 * 1e10 > 1", "gives inf, which is not a finite real number"),
    ("10 ** 60 * 10 ** 60 * 10 ** 60 * 10 ** 60 * 10 ** 60 * 10 ** 60 > 1", "beyond 1e+300"),
    ("1e999 > 1", "not a finite real number"),
    ("9" * 400 + " > 1", "beyond 1e+300"),
    ("(-8) ** 0.5 > 0", "not a finite real number"),
    ("-(" * 40 + "1" + ")" * 40 + " < 0", "too complex"),
    ("1+" * 150 + "1 > 0", "too complex"),
    ("min(" + "1," * 200 + "1) == 1", "too complex"),
    ("[" + "1," * 40 + "] == []", "a list literal is limited to 32 items"),
    ("1 + " * 200 + "1 > 0", "characters long; the limit is 500"),
    ("'a' * 1000000000 == 'a'", "'*' needs numbers"),
    ("SWEEP[0] == 1", "not allowed in a claim: subscripts"),
    ("max(*SWEEP) > 0", "not allowed in a claim: starred"),
    ("f'{STEPS}' == '30'", "not allowed in a claim: f-strings"),
    ("(x := 1) == 1", "not allowed in a claim: the walrus"),
    ("1 if STEPS else 2", "not allowed in a claim: conditional"),
    ("{'a': 1} == {}", "not allowed in a claim: dict literals"),
    ("b'x' == b'x'", "bytes literals are not allowed"),
    ("1j == 1j", "complex literals are not allowed"),
    ("STEPS is 30", "'is' is not allowed"),
    ("~STEPS == 1", "'~' operator is not allowed"),
    ("STEPS << 2 == 1", "operator LShift is not allowed"),
    ("STEPS / 0 > 1", "division by zero"),
    ("TOLL.op < 3", "cannot compare 'add' < 3"),
    ("STEPS", "gives 30, not True or False"),
    ("STEPS >", "is not a valid expression"),
    ("TOLL.smal_us > 1", "unknown data path 'TOLL.smal_us' (no 'TOLL.smal_us'); known keys: TOLL.small_us"),
    ("NOPE.x > 1", "unknown data path 'NOPE.x' (no 'NOPE')"),
    ("SWEEP.9.us > 1", "no 'SWEEP.9'"),
    ("sum(TOLL) > 1", "sum() needs a list"),
    ("len() == 0", "len() takes 1 argument(s), got 0"),
    ("min([]) == 0", "min(): "),
    ("", "a claim needs `check: <expression>`"),
])
def test_refusals_are_clear(expression, says):
    assert says in refused(expression)


def test_find_claims_scans_without_rendering():
    text = ("# Page\n\n```claim\nproof: toll\ncheck: TOLL.small_us < 5\n```\n\n- item\n\n"
            "    ~~~~claim\n    say: It is quick.\n    proof: toll\n    check: \"TOLL.op == 'add'\"\n    ~~~~\n")
    assert find_claims(text) == [(3, "toll", "TOLL.small_us < 5", ""), (10, "toll", "TOLL.op == 'add'", "It is quick.")]
    assert find_claims(text)[1].say == "It is quick." and find_claims(text)[0].line == 3
    example = "````markdown\n```claim\nproof: toll\ncheck: TOLL.small_us < 5\n```\n````\n\n```claim\nsay: a: b\n```\n"
    assert find_claims(example) == [(8, "", "", "")]


# -- on a page ---------------------------------------------------------------------------
TOLL = """
    import json
    import torch  # noqa: F401  (a proof of torch's: the claim names the torch it was checked against)
    print("one add takes a while")
    print("TOLL=" + json.dumps({"small_us": 4.1, "large_us": 1780.2, "name": "<b>bold</b>"}))
"""


@pytest.fixture
def toll(project):
    project.proof("toll", TOLL)
    return project


def test_a_claim_that_holds_is_a_quiet_mark_that_opens_onto_its_check(toll, md):
    html = md("# T\n\nA big add is slow.\n\n```claim\nproof: toll\ncheck: TOLL.large_us > 100 * TOLL.small_us\n"
              "say: A big add costs over a hundred small ones.\n```\n")
    # closed, the reader sees "✓ checked" (the stylesheet draws the ✓), with no title that says
    # again what the open mark says first
    assert ('<details class="ldr-claim" data-proof="toll" data-holds="true"><summary>checked'
            "</summary>") in html
    # open: the statement, the torch it was checked against, the check and the values it read
    detail = html.split("</summary>", 1)[1]
    assert detail.startswith('<p class="ldr-claim__say">A big add costs over a hundred small ones.</p>'
                             '<p class="ldr-claim__check">'
                             f"Checked against torch {PIN} (cpu) on every build: <code>TOLL.large_us "
                             '&gt; 100 * TOLL.small_us</code> on the data of <a href="#proof-toll">proof toll</a>')
    # the values it read, a line each, in one element
    assert '<code class="ldr-claim__values">TOLL.large_us = 1,780\nTOLL.small_us = 4.1</code>' in detail
    assert "<li>" not in detail and "<ul" not in detail
    assert "<div" not in html  # no box: the paragraph, then the mark
    # the paragraph is classed for the stylesheet, which runs it on into the mark (no :has() rule)
    assert '<p class="ldr-claimed">A big add is slow.</p>\n<details class="ldr-claim"' in html
    assert md.state.diagnostics == []


def test_a_false_claim_warns_with_page_line_and_values(toll, md):
    html = md("# T\n\nText.\n\n```claim\nproof: toll\ncheck: TOLL.large_us < 100 * TOLL.small_us\n```\n")
    assert '<div class="ldr-claim ldr-claim--broken" data-proof="toll" data-holds="false" role="note">' in html
    # nothing earlier is recorded: it does not hold on this run, and torch is not named as a cause
    assert f"This claim does not hold on the run of {md.state.library.store.read('toll', 'cpu').measured_at[:10]} " \
           f"(torch {PIN}, cpu)</p>" in html and "no longer" not in html
    assert "<details" not in html and "<summary" not in html  # loud: nothing folded away
    assert '<code class="ldr-claim__values">TOLL.large_us = 1,780\n' in html
    [warning] = md.state.diagnostics
    assert warning.level == "warning"
    assert warning.message.startswith(
        "docs/index.md:5: claim does not hold: TOLL.large_us < 100 * TOLL.small_us with "
        f"TOLL.large_us = 1,780, TOLL.small_us = 4.1 (proof toll, torch {PIN} (cpu)); no earlier run is recorded")


def test_data_from_the_proof_is_escaped(toll, md):
    html = md("```claim\nproof: toll\ncheck: TOLL.name == '<i>'\nsay: <script>x</script>\n```\n")
    assert "<b>" not in html and "<script>" not in html and "<i>" not in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "&lt;script&gt;x&lt;/script&gt;" in html


@pytest.mark.parametrize("body, says", [
    ("proof: toll\ncheck: TOLL.smal_us > 1", "docs/chapter.md:3: claim on proof toll: unknown data path "
                                             "'TOLL.smal_us' (no 'TOLL.smal_us'); known keys: TOLL.small_us"),
    ("proof: toll\ncheck: __import__('os')", "docs/chapter.md:3: claim on proof toll: names starting with '_'"),
    ("proof: nope\ncheck: A.b > 1", "docs/chapter.md:3: unknown proof 'nope'"),
    ("proof: toll", "docs/chapter.md:3: a claim takes `proof: <name>`, `check: <expression>`"),
    ("proof: toll\ncheck: TOLL.small_us > 1\nwhy: x",
     "claim: unknown option(s) why; the claim fence takes: check, device, proof, quote, say"),
])
def test_bad_claims_are_errors_naming_page_and_line(toll, md, body, says):
    with pytest.raises((DirectiveError, SuperFencesException)) as info:
        md(f"# T\n\n```claim\n{body}\n```\n", page="chapter.md")
    assert str(info.value).startswith(says) or says in str(info.value), str(info.value)


def test_a_strict_build_fails_on_a_false_claim(toll):
    page = ("# Home\n\nThe big add is slow.\n\n```claim\nproof: toll\ncheck: TOLL.large_us > 100 * TOLL.small_us\n"
            "```\n\n```proof\ntoll\n```\n")
    toll.page("index.md", page)
    assert toll.build().returncode == 0
    assert 'data-holds="true"' in toll.html()
    toll.page("index.md", page.replace("> 100 *", "> 1000 *"))
    strict = toll.build()
    assert strict.returncode == 1
    assert ("docs/index.md:5: claim does not hold: TOLL.large_us > 1000 * TOLL.small_us with "
            "TOLL.large_us = 1,780, TOLL.small_us = 4.1") in strict.stderr
    relaxed = toll.build(strict=False)  # the record is fresh; the claim is still checked and warned
    assert relaxed.returncode == 0 and "claim does not hold" in relaxed.stderr
    assert 'data-holds="false"' in toll.html()


@pytest.mark.parametrize("check,fails", [
    ("A.x > 0", True), ("A.n == 3", True), ('"b" in A.s', True), ("A.b", True), ("len(A.l) == 3", True),
    ("A.x > 100 * A.y", True), ("A.x + A.y > 5", True),
    ("len(A.l) >= 0", False), ("A.x == A.x", False), ("A.b or True", False), ("A.x * 0 == 0", False),
    ("A.x < 1e200", False), ("abs(A.x) >= 0", False),
])
def test_a_claim_that_no_other_value_can_break_is_told_apart(check, fails):
    from build_hooks.upgrade.claims import can_fail

    data = {"A": {"x": 5.0, "y": 0.01, "n": 3, "l": [1, 2, 3], "s": "abc", "b": True}}
    assert evaluate(check, data).holds
    assert can_fail(check, data) is fails


ACCEL_PAGE = """\
# Two clocks

```claim
proof: clocks
check: CLOCKS.gap_ms > 1
device: {device}
say: The GPU runs behind Python.
```
"""


def _accel_build(project, device: str, records: tuple[str, ...]):
    import os
    import subprocess
    import sys

    from tests.core.recordkit import record

    project.proof("clocks", 'import json\nprint("CLOCKS=" + json.dumps({"gap_ms": 0.0}))\n')
    for device_class in records:
        record(project, "clocks", device_class, data={"CLOCKS": {"gap_ms": 5.0 if device_class != "cpu" else 0.0}})
    project.page("index.md", ACCEL_PAGE.format(device=device))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", LDR_RUN="false")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=project.root,
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("device", ["cuda", "accelerator"])
def test_an_accelerator_claim_is_never_checked_on_cpu_numbers(project, device):
    result = _accel_build(project, device, ("cpu",))
    assert result.returncode == 0, result.stderr
    html = project.html()
    assert 'data-holds="unmeasured"' in html and "not yet checked" in html
    assert 'data-holds="false"' not in html  # the CPU's 0.0 was not used
    assert "claim on proof clocks is not checked" in result.stderr


@pytest.mark.parametrize("device", ["cuda", "accelerator"])
def test_an_accelerator_claim_is_checked_on_the_accelerator_record(project, device):
    result = _accel_build(project, device, ("cpu", "cuda"))
    assert result.returncode == 0, result.stderr
    assert 'data-proof="clocks" data-holds="true"' in project.html() and "(cuda)" in project.html()


def test_a_claim_on_an_unknown_device_class_names_the_choices(project):
    result = _accel_build(project, "tpu", ("cpu",))
    assert result.returncode != 0 and "`device: tpu` is not one of cpu, cuda, mps, accelerator" in result.stderr


# -- showing what a claim saw ----------------------------------------------------------------
@pytest.mark.parametrize("values, shown", [
    ({"naive": 1.0000000000000002, "careful": 1.0}, "naive = 1.0000000000000002, careful = 1"),
    ({"a": 10000.0009765625, "b": 10000}, "a = 10,000.001, b = 10,000"),
    ({"sum": 0.1 + 0.2, "exact": 0.3}, "sum = 0.30000000000000004, exact = 0.3"),
    ({"x": 1.25, "y": 1.2500001}, "x = 1.25, y = 1.2500001"),
    ({"big_us": 1780.2, "small_us": 4.1}, "big_us = 1,780, small_us = 4.1"),
    ({"n": 434184800, "us": 123456.789, "third": 1 / 3}, "n = 434,184,800, us = 123,457, third = 0.333"),
    ({"xs": [2.0000001, 2.0], "ok": True, "op": "add"}, "xs = [2.0000001, 2], ok = True, op = 'add'"),
    ({"tiny": 1e-9, "huge": 2.5e20, "bad": float("nan")}, "tiny = 1e-09, huge = 2.5e+20, bad = nan"),
])
def test_a_claim_shows_the_digits_that_tell_its_values_apart(values, shown):
    assert describe(values) == shown


def test_the_numbers_of_the_check_are_told_apart_too():
    assert describe({"sum": 10000.0009765625}) == "sum = 10,000"
    assert describe({"sum": 10000.0009765625}, "sum > 10000") == "sum = 10,000.001"
    assert describe({"x": 1780.2}, "x > -1780.1") == "x = 1,780.2"


def test_a_value_alone_shows_three_digits_and_every_digit_left_of_the_point():
    assert [show_value(v) for v in (1 / 3, 9.9996, -1234.5678, 0.0, 12345678)] == ["0.333", "10", "-1,235", "0",
                                                                                   "12,345,678"]


NEAR = """
    import json
    print("NEAR=" + json.dumps({"naive": 1.0000000000000002, "careful": 1.0, "sum": 10000.0009765625}))
"""


def test_a_claim_on_the_page_shows_both_sides_distinct(project, md):
    project.proof("near", NEAR)
    html = md("# T\n\n```claim\nproof: near\ncheck: NEAR.naive != NEAR.careful and NEAR.sum > 10000\n```\n")
    assert ("NEAR.naive = 1.0000000000000002\nNEAR.careful = 1\n"
            "NEAR.sum = 10,000.001</code>") in html  # apart from the check's 10000
    assert 'data-holds="true"' in html


def test_only_the_paragraph_right_before_a_mark_is_marked():
    from build_hooks.render.claim import mark_claimed

    html = ('<p>before</p>\n<p id="s">says <em>it</em></p>\n<details class="ldr-claim" data-holds="true">'
            '<p>inside</p></details><p class="note">runs on</p> <details class="ldr-claim">'
            '<pre>x</pre><details class="ldr-claim"><p>after</p>')
    assert mark_claimed(html) == (
        '<p>before</p>\n<p class="ldr-claimed" id="s">says <em>it</em></p>\n<details class="ldr-claim" '
        'data-holds="true"><p>inside</p></details><p class="ldr-claimed note">runs on</p> '
        '<details class="ldr-claim"><pre>x</pre><details class="ldr-claim"><p>after</p>')
    assert mark_claimed("<p>no claim</p>") == "<p>no claim</p>"
