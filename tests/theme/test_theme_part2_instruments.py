"""Part 2's instruments. inplace-lab (version_counter): the static fallback holds every recorded
case, the lead counts failures from the record and explains them only when the record bears the
explanation out, bad records fail naming the proof and the key, and record text is escaped.
engine-stepper (engine_order): one mark per recorded step, laid out so that every edge points down,
a table of every step with its ready queue, the rule stated only when the record shows it, and bad
records named."""

from __future__ import annotations

import copy
import html as _html
import json
import re

import pytest
from theme_support import ROOT, load, make_ctx

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.records import ProofData
from build_hooks.series.instruments import DEFAULT_PROOFS, render_fence
from build_hooks.series.instruments.engine_stepper import label, layout
from build_hooks.series.instruments.inplace_lab import program, verdict

WHY = "each one a write into a tensor the node saved"


def lab() -> dict:
    return copy.deepcopy(load("version_counter").data)


def render(data: dict | None = None) -> str:
    rec = load("version_counter")
    ctx = make_ctx({"version_counter": {"cpu": ProofData("version_counter", rec.data if data is None else data,
                                                         rec.provenance)}})
    return render_fence({"arg": "inplace-lab"}, ctx)


def text(html: str) -> str:
    without_scripts = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    return " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", without_scripts)).split())


def test_default_proof_and_fixture_is_the_committed_record():
    assert DEFAULT_PROOFS["inplace-lab"] == "version_counter"
    committed = json.loads((ROOT / "proofs" / "_results" / "version_counter.cpu.json").read_text())
    assert load("version_counter").data == committed["data"], \
        "copy proofs/_results/version_counter.cpu.json's data into tests/browser/fixtures"


def test_static_fallback_holds_every_case_and_draws_the_first():
    data = lab()
    rows = data["LAB"]
    html = render()
    assert html.startswith('<div class="ldr-instrument" data-instrument="inplace-lab" data-proof="version_counter"')
    body = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.S).group(1)
    assert json.loads(body)[0]["data"] == {"LAB": rows}
    table = re.findall(r'<tr data-op="([^"]*)" data-write="(\w+)">(.*?)</tr>', html, re.S)
    assert [(_html.unescape(op), w) for op, w, _ in table] == [(r["op"], r["write"]) for r in rows]
    for (_, _, cells), row in zip(table, rows):
        tds = [text(c) for c in re.findall(r"<td>(.*?)</td>", cells, re.S)]
        assert tds[3:5] == [str(row["versions"]["a"]), str(row["versions"]["out"])]
        assert tds[5] == verdict(row)
    first = rows[0]
    figure = text(re.search(r'<figure class="ldr-figure ldr-lab".*?</figure>', html, re.S).group(0))
    assert program(first) in figure and first["node"] in figure and verdict(first) in figure
    assert f'data-key="a_version" data-value="{first["versions"]["a"]}"' in html
    # the controls wait for JavaScript; without it the figure and the table are the instrument
    assert '<div class="ldr-controls ldr-lab__controls" hidden>' in html


def test_verdicts_quote_the_gradient_or_the_error():
    rows = lab()["LAB"]
    ran = next(r for r in rows if r["ran"])
    failed = next(r for r in rows if not r["ran"])
    assert verdict(ran).startswith("backward ran: x.grad = [") and len(verdict(ran).split(",")) == len(ran["grad"])
    assert verdict(failed) == "backward raised RuntimeError: " + failed["error"]
    assert program({"op": "a * a", "write": "input"}) == "a = x * 1; out = a * a; a.add_(1); out.sum().backward()"
    assert program({"op": "exp", "write": "output"}) == "a = x * 1; out = a.exp(); out.add_(1); out.sum().backward()"


def test_the_lead_counts_failures_and_explains_them_only_when_the_record_does():
    data = lab()
    failed = sum(not r["ran"] for r in data["LAB"])
    assert f"Of {len(data['LAB'])} cases, " in text(render(data)) and f"{failed} fail, {WHY}" in text(render(data))
    # a record where a write into an unsaved tensor failed: the count follows, the reason goes
    odd = next(r for r in data["LAB"] if r["ran"] and r["write"] == "input" and
               not any(s["holds"] == "input" for s in r["saved"]))
    odd.update(ran=False, grad=None, error="something else")
    shown = text(render(data))
    assert f"{failed + 1} fail" in shown and f"{failed} fail" not in shown and WHY not in shown


@pytest.mark.parametrize("breakage,message", [
    (lambda d: d.pop("LAB"), "recorded no LAB"),
    (lambda d: d["LAB"].clear(), "LAB is empty"),
    (lambda d: d["LAB"][1].update(write="sideways"), "LAB[1].write should be one of none, input, output"),
    (lambda d: d["LAB"].pop(2), "LAB lacks some writes for exp"),
    (lambda d: d["LAB"][0].update(grad=None), "LAB[0] ran, so it needs the gradient"),
    (lambda d: d["LAB"][2].update(error=""), "LAB[2] did not run, so it needs the error text"),
    (lambda d: d["LAB"][0]["versions"].pop("out"), "LAB[0].versions.out should be a whole number"),
    (lambda d: d["LAB"][0]["saved"][0].update(holds="both"), "LAB[0].saved[0] needs a slot name and holds"),
    (lambda d: d["LAB"][0]["saved"][0].update(saved_version=-1), "LAB[0].saved[0].saved_version"),
    (lambda d: d["LAB"][0].update(node=""), "LAB[0] needs a non-empty 'node'"),
])
def test_bad_records_name_the_proof_and_the_key(breakage, message):
    data = lab()
    breakage(data)
    with pytest.raises(DirectiveError) as err:
        render(data)
    assert "version_counter" in str(err.value) and message in str(err.value)


def test_record_text_is_escaped():
    data = lab()
    for row in data["LAB"]:
        if row["op"] == "exp":
            row["op"] = "<img src=x onerror=alert(1)>"
    data["LAB"][2]["error"] = "</output><script>alert(2)</script>"
    html = render(data)
    outside = re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", html, flags=re.S)
    assert "<img" not in outside and "<script>alert" not in outside
    assert "&lt;img src=x onerror=alert(1)&gt;" in outside and "&lt;/output&gt;&lt;script&gt;" in outside
    # and the embedded JSON cannot close its script element
    assert "</script><script>" not in html.split('class="ldr-instrument__data">', 1)[1].split("</script>", 1)[0]


# ---- engine stepper ---------------------------------------------------------------------------

def order() -> dict:
    return copy.deepcopy(load("engine_order").data)


def render_stepper(data: dict | None = None) -> str:
    rec = load("engine_order")
    ctx = make_ctx({"engine_order": {"cpu": ProofData("engine_order", rec.data if data is None else data,
                                                      rec.provenance)}})
    return render_fence({"arg": "engine-stepper"}, ctx)


def test_stepper_default_and_fixture_is_the_committed_record():
    assert DEFAULT_PROOFS["engine-stepper"] == "engine_order"
    committed = json.loads((ROOT / "proofs" / "_results" / "engine_order.cpu.json").read_text())
    assert load("engine_order").data == committed["data"], \
        "copy proofs/_results/engine_order.cpu.json's data into tests/browser/fixtures"


def test_stepper_draws_every_step_with_edges_pointing_down():
    rows = order()["ORDER"]
    html = render_stepper()
    marks = re.findall(r'<g class="ldr-mark ldr-node" data-step="(\d+)">'
                       r'<rect x="([\d.]+)" y="([\d.]+)".*?<text[^>]*>(.*?)</text>', html)
    assert [int(m[0]) for m in marks] == [r["step"] for r in rows]
    assert [_html.unescape(m[3]) for m in marks] == [label(r) for r in rows]
    assert label(rows[-1]).endswith("AccumulateGrad · max")
    y = {int(m[0]): float(m[2]) for m in marks}
    edges = re.findall(r'<line class="ldr-edge" data-from="(\d+)" data-to="(\d+)"', html)
    assert sorted((int(a), int(b)) for a, b in edges) == sorted((f, r["step"]) for r in rows for f in r["after"])
    assert all(y[int(a)] < y[int(b)] for a, b in edges)
    pos, _, width, _ = layout(rows)
    assert all(0 <= x <= width for x, _ in pos.values())


def test_stepper_table_lists_each_ready_queue():
    rows = order()["ORDER"]
    table = re.findall(r'<tr data-step="(\d+)">(.*?)</tr>', render_stepper(), re.S)
    assert [int(k) for k, _ in table] == [r["step"] for r in rows]
    for (_, cells), row in zip(table, rows):
        tds = [text(c) for c in re.findall(r"<td>(.*?)</td>", cells, re.S)]
        assert tds[1] == row["name"]
        assert tds[3] == ", ".join(f'{rows[s]["name"]} ({"max" if rows[s]["seq"] == 2 ** 64 - 1 else rows[s]["seq"]})'
                                   for s in row["ready"])
        assert tds[4] == (", ".join(str(s + 1) for s in row["after"]) or "the start")


def test_stepper_states_the_rule_only_when_the_record_shows_it():
    data = order()
    waited = sum(len(r["ready"]) > 1 for r in data["ORDER"])
    shown = text(render_stepper(data))
    assert "the one with the highest sequence number, every time" in shown and f"{waited} steps had more" in shown
    # a run where a lower-numbered ready node went first: the rule is no longer claimed
    step = next(r for r in data["ORDER"] if len(r["ready"]) > 1)
    other = next(s for s in step["ready"] if s != step["step"])
    data["ORDER"][other]["seq"] = step["seq"] + 100
    shown = text(render_stepper(data))
    assert "highest sequence number" not in shown and "one of them (the table shows which)" in shown


@pytest.mark.parametrize("breakage,message", [
    (lambda d: d.pop("ORDER"), "recorded no ORDER"),
    (lambda d: d["ORDER"][3].update(step=7), "ORDER[3] should be a mapping with step 3"),
    (lambda d: d["ORDER"][2].update(seq=-1), "ORDER[2].seq should be a sequence number"),
    (lambda d: d["ORDER"][2].update(after=[5]), "ORDER[2] runs before a node that feeds it"),
    (lambda d: d["ORDER"][2].update(after=[99]), "ORDER[2].after should list steps from 0 to 8"),
    (lambda d: d["ORDER"][4].update(ready=[5, 6]), "ORDER[4].ready should hold step 4"),
    (lambda d: d["ORDER"][1].update(name=""), "ORDER[1] needs the node's name"),
])
def test_stepper_bad_records_name_the_proof_and_the_key(breakage, message):
    data = order()
    breakage(data)
    with pytest.raises(DirectiveError) as err:
        render_stepper(data)
    assert "engine_order" in str(err.value) and message in str(err.value)
