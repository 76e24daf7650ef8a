"""Each instrument draws one mark per data point and shows exactly the record's numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path as _Path

import pytest
from browser_support import click_nav, embedded_record, fixture_record, read_by

from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.series.instruments._common import compact

PIN = _pinned(_Path(__file__).resolve().parents[2])


PART0 = "theme-check/part-00-the-map/"


def root(kind: str) -> str:
    return f".ldr-instrument[data-instrument='{kind}']"


def readout(page, kind: str) -> dict:
    return page.eval_on_selector_all(
        f"{root(kind)} output[data-key]",
        "els => Object.fromEntries(els.map(o => [o.dataset.key, [o.dataset.value, o.textContent]]))")


def embedded(page, kind: str) -> dict:
    return json.loads(page.eval_on_selector(f"{root(kind)} script", "s => s.textContent"))[0]


def fmt(v: float, digits: int = 3) -> str:
    """What the readouts print (ldr.fmt in theme/assets/js/ldr-common.js mirrors it)."""
    from build_hooks.render.numbers import sig

    return sig(v, digits)


def close_text(shown: str, value: float):
    assert shown.replace(",", "").rstrip("%") == fmt(value).replace(",", "") or \
        math.isclose(float(shown.replace(",", "").rstrip("%")), value, rel_tol=5e-3), (shown, value)


@pytest.fixture
def part0(project_site, open_page):
    page, watch = open_page(project_site.url(PART0))
    page.wait_for_function("() => document.querySelectorAll('.ldr-instrument[data-ldr-ready]').length === 4")
    yield page
    watch.check()


@pytest.mark.parametrize("kind,proof", [("toll-meter", "dispatch_cost"), ("two-clocks", "two_clocks"),
                                        ("graph-walker", "autograd_graph"), ("library-sizes", "where_code_lives")])
def test_embedded_record_is_the_committed_record(part0, kind, proof):
    payload = embedded(part0, kind)
    assert part0.get_attribute(root(kind), "data-proof") == proof
    assert payload["data"] == read_by(kind, embedded_record(proof))  # what its script reads, no more
    line = part0.text_content(f"{root(kind)} .ldr-provenance")
    assert proof in line and f"torch {PIN}" in line
    assert part0.get_attribute(f"{root(kind)} .ldr-provenance a", "href").endswith((f"#proof-{proof}", f"{proof}.py"))


def test_toll_meter(part0):
    data = embedded_record("dispatch_cost")
    sweep, small = data["SWEEP"], data["TOLL"]["small_us"]
    assert part0.locator(f"{root('toll-meter')} .ldr-mark").count() == len(sweep) == 12
    slider = part0.locator(f"{root('toll-meter')} input[type=range]")
    slider.focus()
    part0.keyboard.press("Home")
    for i, point in enumerate(sweep):
        if i:
            part0.keyboard.press("ArrowRight")
        shown = readout(part0, "toll-meter")
        assert int(shown["numel"][0]) == point["numel"]
        assert float(shown["us"][0]) == point["us"]
        assert math.isclose(float(shown["fixed_share"][0]), min(1, small / point["us"]), rel_tol=1e-12)
        assert math.isclose(float(shown["ops_per_s"][0]), 1e6 / point["us"], rel_tol=1e-12)
        close_text(shown["us"][1], point["us"])
        close_text(shown["fixed_share"][1], 100 * min(1, small / point["us"]))
        close_text(shown["ops_per_s"][1], 1e6 / point["us"])
        current = part0.eval_on_selector_all(f"{root('toll-meter')} .ldr-mark--current",
                                             "els => els.map(e => e.dataset.i)")
        assert current == [str(i)]
    # the pointer picks the nearest size too
    box = part0.locator(f"{root('toll-meter')} .ldr-mark[data-i='3']").bounding_box()
    part0.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert int(readout(part0, "toll-meter")["numel"][0]) == sweep[3]["numel"]


def check_two_clocks(page, data: dict, clocks: int):
    reads = data["READS"]
    base = root("two-clocks")
    assert page.locator(f"{base} .ldr-mark").count() == len(reads) == 3
    assert page.locator(f"{base} .ldr-mark .ldr-bar--device").count() == (len(reads) if clocks == 2 else 0)
    for i, row in enumerate(reads):
        page.click(f"{base} .ldr-button[data-i='{i}']")
        shown = readout(page, "two-clocks")
        assert float(shown["python_ms"][0]) == row["python_ms"]
        close_text(shown["python_ms"][1], row["python_ms"])
        if clocks == 2:
            assert float(shown["done_ms"][0]) == row["done_ms"]
            assert math.isclose(float(shown["free_ms"][0]), max(0, row["done_ms"] - row["python_ms"]), abs_tol=1e-12)
        else:
            assert "done_ms" not in shown
        assert page.get_attribute(f"{base} .ldr-button[data-i='{i}']", "aria-pressed") == "true"


def test_two_clocks_cpu_record_shows_one_step_on_one_clock(part0):
    """With only a CPU record the instrument shows what a CPU measures: one training step,
    phase by phase, with the read of the loss, instead of three equal bars."""
    base = root("two-clocks")
    text = part0.text_content(base)
    assert "Only a CPU record exists" in text and "one clock" in text
    phases = embedded_record("two_clocks")["PHASES"]["phases"]
    step = sum(p["ms"] for p in phases)
    assert part0.locator(f"{base} .ldr-mark").count() == len(phases)
    assert readout(part0, "two-clocks")["phase"][0] == "loss.item()"  # the read is chosen first
    for i, p in enumerate(phases):
        part0.click(f"{base} .ldr-button[data-i='{i}']")
        shown = readout(part0, "two-clocks")
        assert shown["phase"][0] == p["phase"]
        assert math.isclose(float(shown["us"][0]), p["ms"] * 1000, rel_tol=1e-12)
        assert math.isclose(float(shown["share"][0]), p["ms"] / step, rel_tol=1e-12)
        assert part0.get_attribute(f"{base} .ldr-button[data-i='{i}']", "aria-pressed") == "true"


def test_two_clocks_with_an_accelerator_record(fixture_site, open_page):
    page, watch = open_page(fixture_site.url("part-00-the-map/"))
    page.wait_for_function("() => document.querySelector("
                           "'.ldr-instrument[data-instrument=two-clocks][data-ldr-ready]')")
    assert "Only a CPU record" not in page.text_content(root("two-clocks"))
    data = compact(fixture_record("two_clocks", "cuda"))
    assert embedded(page, "two-clocks")["data"] == read_by("two-clocks", data)
    check_two_clocks(page, data, clocks=2)
    watch.check()


def test_graph_walker(part0):
    data = embedded_record("autograd_graph")
    nodes = data["GRAPH"]["nodes"]
    base = root("graph-walker")
    assert part0.locator(f"{base} .ldr-mark").count() == len(nodes)
    part0.click(f"{base} [data-step='first']")
    for i, node in enumerate(nodes):
        if i:
            part0.keyboard.press("ArrowRight")
        shown = readout(part0, "graph-walker")
        assert shown["name"][0] == node["name"] and int(shown["step"][0]) == i + 1
        saved = part0.eval_on_selector_all(f"{base} .ldr-walker__detail li", "els => els.map(e => e.dataset.saved)")
        assert saved == [s["name"] for s in node["saved"]]
        really = [s for s in node["saved"] if s["shape"] is not None and not s.get("empty")]
        detail = part0.text_content(f"{base} .ldr-walker__detail")
        assert f"Saved for backward: {len(really)} tensor" in detail
        assert detail.count("empty, not saved here") == len(node["saved"]) - len(really)
        current = part0.eval_on_selector_all(f"{base} .ldr-mark--current", "els => els.map(e => e.dataset.id)")
        assert current == [str(node["id"])]
    part0.keyboard.press("Home")
    assert readout(part0, "graph-walker")["name"][0] == nodes[0]["name"]


def test_library_sizes(part0):
    from build_hooks.series.instruments.library_sizes import _files, chart_rows

    data = embedded_record("where_code_lives")
    files = chart_rows(_files(data, "where_code_lives")[1], data["EXTENSION"]["name"])
    total = data["LIBRARIES"]["total_bytes"]
    base = root("library-sizes")
    labels = part0.eval_on_selector_all(f"{base} .ldr-mark", "els => els.map(e => e.getAttribute('aria-label'))")
    shown_sizes = part0.eval_on_selector_all(f"{base} .ldr-mark .ldr-value", "els => els.map(e => e.textContent)")
    # the accessible name of each bar contains its visible text (its name and its size)
    assert labels == [f"{f['name']}, {size}" for f, size in zip(files, shown_sizes)]
    assert part0.locator(f"{base} .ldr-mark").count() == len(files)
    part0.locator(f"{base} .ldr-mark").first.focus()
    for i, f in enumerate(files):
        if i:
            part0.keyboard.press("ArrowDown")
        shown = readout(part0, "library-sizes")
        assert shown["name"][0] == f["name"] and shown["folder"][0] == f["folder"]
        assert int(shown["bytes"][0]) == f["bytes"] and shown["bytes"][1] == f"{int(f['bytes']):,}"
        assert math.isclose(float(shown["share"][0]), f["bytes"] / total, rel_tol=1e-12)
        tab_stops = part0.eval_on_selector_all(f"{base} .ldr-mark", "els => els.flatMap((e, k) => "
                                               "e.getAttribute('tabindex') === '0' ? [k] : [])")
        assert tab_stops == [i]  # one tab stop, the chosen bar


def test_instruments_mount_after_instant_navigation(project_site, open_page):
    page, watch = open_page(project_site.url("theme-check/"))
    page.evaluate("() => { window.__ldrSamePage = true; }")
    click_nav(page, PART0)
    page.wait_for_function("() => document.querySelectorAll('.ldr-instrument[data-ldr-ready]').length === 4")
    assert page.evaluate("() => window.__ldrSamePage === true")
    assert page.locator(f"{root('toll-meter')} .ldr-mark").count() == 12
    watch.check()
