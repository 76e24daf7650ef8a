"""The site's one rule for numbers (build_hooks/render/numbers.py) and the places that use it."""

import pytest

from build_hooks.render import drift as drift_html
from build_hooks.render.numbers import count, group, sig, size
from build_hooks.render.values import format_value
from build_hooks.series.instruments import graph_walker, library_sizes, toll_meter, two_clocks


@pytest.mark.parametrize("value, expected", [
    (1779.53, "1,780"),        # never "1780" next to "10,000"
    (10000, "10,000"),
    (824943.2, "824,943"),
    (1.2122, "1.21"),
    (30.3483, "30.3"),
    (0.0123456, "0.0123"),
    (9.996, "10.0"),           # rounding carries into a new digit: still three significant digits
    (999.6, "1,000"),
    (-1234.5, "-1,235"),       # ties round away from zero, as the browser does
    (1.005, "1.01"),           # the shortest decimal form is rounded, not the binary value
    (0, "0"),
])
def test_sig_keeps_three_significant_digits_and_groups_thousands(value, expected):
    assert sig(value) == expected


@pytest.mark.parametrize("value, expected", [
    (1779.53, "1,779.53"), (541607888, "541,607,888"), (1780.0, "1,780"), (0.25, "0.25"), (True, "True"),
    ("abc", "abc"), ("100001.0", "100,001.0"), ("-12345", "-12,345"),
])
def test_group_keeps_every_digit(value, expected):
    assert group(value) == expected


def test_counts_are_singular_for_one():
    assert count(1, "element") == "1 element"
    assert count(2, "element") == "2 elements"
    assert count(1024, "element") == "1,024 elements"
    assert count(0, "tensor") == "0 tensors"
    assert count(1, "other file") == "1 other file"


@pytest.mark.parametrize("value, expected", [
    (541_607_888, "541.6 MB"), (18_721, "18.7 kB"), (2_100_000_000, "2.1 GB"), (512, "512 bytes"), (1, "1 byte"),
])
def test_sizes_use_decimal_units_with_one_decimal(value, expected):
    assert size(value) == expected
    assert library_sizes.human_bytes(value) == expected


@pytest.mark.parametrize("value, spec, expected", [
    (4096, "d", "4,096"),            # a bare d groups like ,d
    (1779.53, ".0f", "1,780"),
    (12345.678, ".1f", "12,345.7"),
    (1779.53, "", "1,779.53"),        # a float without a format keeps its digits, grouped
    (5, "05d", "00005"),              # zero padding is the author's choice of digits
    (1e-7, ".1e", "1.0e-07"),
    (1, "bytes", "1 byte"),
])
def test_prose_values_follow_the_rule(value, spec, expected):
    assert format_value(value, spec) == expected


def test_toll_meter_tooltips_say_one_element():
    toll = {"small_us": 1.2}
    points = [{"numel": 1, "us": 1.2}, {"numel": 1024, "us": 1779.53}, {"numel": 1 << 20, "us": 10000.0}]
    svg = toll_meter.render_svg(toll, points)
    assert "<title>1 element: 1.20 µs</title>" in svg
    assert "<title>1,024 elements: 1,780 µs</title>" in svg
    assert "<title>1,048,576 elements: 10,000 µs</title>" in svg
    assert "1 elements" not in svg and "1780" not in svg
    ticks = [t.split(">")[-1] for t in svg.split("</text>") if 'class="ldr-tick" x="' in t and 'text-anchor="end"' in t]
    assert ticks == ["1", "10", "100", "1,000", "10,000"]  # decades are exact numbers


def test_graph_walker_and_library_sizes_count_in_the_singular():
    node = {"saved": [{"name": "self", "shape": [2, 3]}], "next": []}
    assert "Saved for backward: 1 tensor</p>" in graph_walker.describe(node, {})
    node["saved"].append({"name": "other", "shape": [3]})
    assert "Saved for backward: 2 tensors</p>" in graph_walker.describe(node, {})
    files = [{"name": "_C.so", "bytes": 10.0, "folder": "torch", "loaded": True},
             {"name": "libtest.so", "bytes": 5.0, "folder": "torch/lib", "loaded": False}]
    rows = library_sizes.chart_rows(files, "_C.so")
    assert rows[-1]["name"] == "1 other file, not loaded"
    svg = library_sizes.render_svg(rows)
    assert "1 other file, not loaded</text>" in svg and "10 bytes</text>" in svg
    assert "<title>" not in svg  # a row's folder and exact bytes are the readout's, not a hover title
    assert two_clocks.us(1.77953) == "1,780 µs"


def test_drift_table_follows_the_one_number_rule_and_counts_records():
    from build_hooks.upgrade.drift import Drift
    from build_hooks.upgrade.proofdrift import ProofDrift, ValueDrift

    values = [ValueDrift(key="TOLL.large_us", old=1779.53, new=3728.05, ratio=2.0949, noise=False),
              ValueDrift(key="SWEEP.10.us", old=175.29407999999998, new=175.3, ratio=1.00003, noise=True, z=0.4),
              ValueDrift(key="TOLL.bytes", old=434184800, new=541607888, ratio=1.2474, noise=False)]
    report = Drift("2.13.0", "2.14.1", proofs=[ProofDrift("dispatch_cost", "cpu", values=values)], compared=1)
    html = drift_html.html_fragment(report)
    assert "1 record compared" in html and "record(s)" not in html
    # a measurement to three significant digits, grouped, with its ratio
    assert ('<td class="ldr-drift__old" data-label="2.13.0">1,780</td><td class="ldr-drift__new" '
            'data-label="2.14.1">3,728</td><td class="ldr-drift__change">×2.09</td>') in html
    # two values close together show the digits that tell them apart, never the raw float
    assert ">175.29</td>" in html and ">175.3</td>" in html and "175.29407999999998" not in html
    assert "×1.00 (noise, z 0.4)" in html
    assert ">434,184,800</td>" in html and ">541,607,888</td>" in html  # counts keep every digit
    assert drift_html.value_text("abc") == "abc" and drift_html.value_text(False) == "false"
