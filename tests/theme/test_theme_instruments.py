"""The four instruments: one mark per data point in the static SVG, the record embedded intact,
escaping, provenance, and clear errors for bad fences or records."""

from __future__ import annotations

import copy
import importlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from theme_support import load, make_ctx

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.records import ProofData
from build_hooks.series.instruments import DEFAULT_PROOFS, render_fence
from build_hooks.series.instruments._common import compact, embed_json


def marks(html: str) -> list[str]:
    """The marks' numbers (data-i), in the page's order."""
    return re.findall(r'class="ldr-mark[ "][^>]*data-i="(\d+)"', html)


def mark_tags(html: str) -> list[str]:
    """Every mark's opening tag, numbered or not."""
    return re.findall(r'<\w+ class="ldr-mark[ "][^>]*>', html)


def embedded(html: str) -> dict:
    body = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.S).group(1)
    return json.loads(body)[0]


JS = Path(__file__).resolve().parents[2] / "theme" / "assets" / "js"


def reads_of(kind: str) -> tuple[str, ...]:
    return importlib.import_module(f"build_hooks.series.instruments.{kind.replace('-', '_')}").READS


@pytest.mark.parametrize("kind", sorted(DEFAULT_PROOFS))
def test_an_instrument_embeds_exactly_what_its_script_reads(kind):
    """Each widget's script (theme/assets/js/<kind>.js) reads rec.data.KEY and rec.NAME; the page
    embeds those record keys and extra values, nothing it does not read."""
    script = (JS / f"{kind}.js").read_text()
    assert set(re.findall(r"\brec\.data\.(\w+)", script)) == set(reads_of(kind))
    wanted = set(re.findall(r"\brec\.(\w+)", script)) - {"data"}
    ctx = make_ctx()
    record = ctx.proof(DEFAULT_PROOFS[kind])
    payload = embedded(render_fence({"arg": kind}, ctx))
    assert set(payload) - {"data"} <= wanted, (kind, set(payload), wanted)  # two-clocks' step view adds two
    assert set(payload["data"]) == set(reads_of(kind)) <= set(record.data)


def with_data(name: str, data: dict, device_class: str = "cpu"):
    prov = load(name, device_class).provenance
    return make_ctx({name: {device_class: ProofData(name, data, prov)}})


def test_defaults_are_the_contract():
    assert DEFAULT_PROOFS == {"toll-meter": "dispatch_cost", "two-clocks": "two_clocks",
                              "graph-walker": "autograd_graph", "library-sizes": "where_code_lives",
                              "stride-explorer": "view_ops", "promotion-table": "type_promotion",
                              "inplace-lab": "version_counter", "engine-stepper": "engine_order"}


@pytest.mark.parametrize("kind,count_key,numbered", [
    ("toll-meter", lambda d: len(d["SWEEP"]), True),
    ("two-clocks", lambda d: len(d["READS"]), True),
    ("graph-walker", lambda d: len(d["GRAPH"]["nodes"]), True),
    ("library-sizes", lambda d: len(d["LIBRARIES"]["files"]), False),  # its script counts rows in order
])
def test_one_mark_per_point_and_the_record_embedded(ctx, kind, count_key, numbered):
    html = render_fence({"arg": kind}, ctx)
    record = ctx.proof(DEFAULT_PROOFS[kind])
    assert html.startswith(f'<div class="ldr-instrument" data-instrument="{kind}"')
    points = count_key(record.data)
    assert len(mark_tags(html)) == points
    assert marks(html) == ([str(i) for i in range(points)] if numbered else [])
    payload = embedded(html)
    # only what the widget's script reads: the keys it names, whole (the card has the rest), each
    # float at six significant digits (a whole one as an int)
    reads = reads_of(kind)
    assert payload["data"] == {key: compact(record.data[key]) for key in reads}
    assert "provenance" not in payload and "proof" not in payload
    assert f'href="#proof-{record.name}"' in html and "torch 2.13.0" in html
    assert '<svg class="ldr-plot' in html


def test_an_embedded_record_keeps_six_significant_digits():
    """Timings' noise digits and byte counts' ".0" are not shipped; every number stays within a
    millionth of the record, and nothing else changes (bools, ints, strings, nesting)."""
    record = {"us": 0.9019862731640357, "bytes": 18721.0, "big": 3135713390.0, "tiny": 3.4080000000000004e-06,
              "rows": [{"ms": 101.52085000000001, "ok": True, "n": 7, "name": "</script>"}]}
    assert compact(record) == {"us": 0.901986, "bytes": 18721, "big": 3135713390, "tiny": 3.408e-06,
                               "rows": [{"ms": 101.521, "ok": True, "n": 7, "name": "</script>"}]}
    assert isinstance(compact(True), bool) and isinstance(compact(18721.0), int)
    text = embed_json([record])
    assert "0.901986," in text and '"bytes":18721,' in text and "</script>" not in text
    assert json.loads(text)[0]["rows"][0]["name"] == "</script>"


def test_mapping_form_and_explicit_proof(ctx):
    assert marks(render_fence({"name": "toll-meter", "proof": "dispatch_cost"}, ctx)) == [str(i) for i in range(12)]


@pytest.mark.parametrize("options,needle", [
    ({"arg": "speedometer"}, "unknown instrument"),
    ({"name": "toll-meter", "colour": "red"}, "unknown option"),
    ({"name": "toll-meter", "proof": "no_such_proof"}, "unknown proof"),
    ({"name": "toll-meter", "proof": 3}, "proof must be"),
    ({}, "unknown instrument"),
])
def test_bad_fences_raise_directive_errors(ctx, options, needle):
    with pytest.raises(DirectiveError, match=needle):
        render_fence(options, ctx)


def test_a_record_missing_its_data_says_what_is_missing():
    data = copy.deepcopy(load("dispatch_cost").data)
    del data["SWEEP"]
    with pytest.raises(DirectiveError, match="SWEEP"):
        render_fence({"arg": "toll-meter"}, with_data("dispatch_cost", data))
    data = copy.deepcopy(load("dispatch_cost").data)
    data["SWEEP"][3]["us"] = "fast"
    with pytest.raises(DirectiveError, match=r"SWEEP\[3\]"):
        render_fence({"arg": "toll-meter"}, with_data("dispatch_cost", data))


def test_text_from_records_is_escaped_and_cannot_close_the_script():
    data = copy.deepcopy(load("where_code_lives").data)
    data["LIBRARIES"]["files"][0]["name"] = "</script><b>evil&.so"
    html = render_fence({"arg": "library-sizes"}, with_data("where_code_lives", data))
    assert "<b>evil" not in html and "&lt;/script&gt;&lt;b&gt;evil&amp;.so" in html
    assert html.count("</script>") == 1
    assert embedded(html)["rows"][0]["name"] == "</script><b>evil&.so"  # what the script reads

    graph = copy.deepcopy(load("autograd_graph").data)
    graph["GRAPH"]["nodes"][0]["name"] = 'Sum<i>"Backward'
    html = render_fence({"arg": "graph-walker"}, with_data("autograd_graph", graph))
    assert "Sum<i>" not in html and "Sum&lt;i&gt;&quot;Backward" in html


def test_toll_meter_table_and_fixed_toll(ctx):
    html = render_fence({"arg": "toll-meter"}, ctx)
    data = ctx.proof("dispatch_cost").data
    assert html.count("<tr><td>") == len(data["SWEEP"])
    assert "fixed toll" in html and 'class="ldr-implied"' in html
    assert 'max="11"' in html


def test_two_clocks_with_an_accelerator_draws_both_clocks(ctx):
    html = render_fence({"arg": "two-clocks"}, ctx)  # fixtures hold cuda and cpu records
    reads = ctx.proof("two_clocks").data["READS"]
    assert html.count('class="ldr-bar ldr-bar--device"') == len(reads) and "Only a CPU record" not in html
    assert embedded(html)["clocks"] == 2 and "NVIDIA H200 (cuda)" in html


def test_two_clocks_with_only_a_cpu_record_says_so():
    html = render_fence({"arg": "two-clocks"}, make_ctx({"two_clocks": {"cpu": load("two_clocks")}}))
    assert "Only a CPU record exists" in html and "ldr-bar--device" not in html
    assert embedded(html)["clocks"] == 1
    assert len(marks(html)) == 3


def test_graph_walker_layers_from_the_loss(ctx):
    html = render_fence({"arg": "graph-walker"}, ctx)
    nodes = ctx.proof("autograd_graph").data["GRAPH"]["nodes"]
    assert html.count('class="ldr-edge"') == sum(len(n["next"]) for n in nodes)
    assert html.count("ldr-node--leaf") == sum(1 for n in nodes if n["variable"])
    assert embedded(html) == {"data": {"GRAPH": ctx.proof("autograd_graph").data["GRAPH"]}}


def test_graph_walker_rejects_dangling_edges():
    data = copy.deepcopy(load("autograd_graph").data)
    data["GRAPH"]["nodes"][0]["next"] = [99]
    with pytest.raises(DirectiveError, match="unknown nodes"):
        render_fence({"arg": "graph-walker"}, with_data("autograd_graph", data))


def test_stale_records_say_so():
    rec = load("dispatch_cost")
    prov = replace(rec.provenance, stale=True)
    html = render_fence({"arg": "toll-meter"},
                        make_ctx({"dispatch_cost": {"cpu": ProofData("dispatch_cost", rec.data, prov)}}))
    shown = re.sub(r"<script\b.*?</script>", "", html, flags=re.S)  # what a reader sees, not the data
    assert re.search(r'<strong class="ldr-provenance__stale">stale: [^<]+</strong>', shown)
    fresh = render_fence({"arg": "toll-meter"}, make_ctx({"dispatch_cost": {"cpu": ProofData(
        "dispatch_cost", rec.data, replace(rec.provenance, stale=False))}}))
    assert "ldr-provenance__stale" not in fresh


def test_card_href_from_the_plugin_is_used():
    ctx = make_ctx()
    ctx.card_link = lambda name: f"../part-00-the-map/#proof-{name}"
    assert 'href="../part-00-the-map/#proof-dispatch_cost"' in render_fence({"arg": "toll-meter"}, ctx)
