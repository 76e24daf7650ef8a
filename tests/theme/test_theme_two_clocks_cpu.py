"""Two clocks on a CPU-only record: one training step on the single clock, phase by phase,
with the read of the loss as the subject; the accelerator view is untouched."""

from __future__ import annotations

import copy
import json
import re

import pytest
from theme_support import load, make_ctx

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.records import ProofData
from build_hooks.series.instruments import render_fence

PHASES = {"device_class": "cpu", "step_ms": 1.5,
          "phases": [{"phase": "forward", "ms": 0.5}, {"phase": "backward", "ms": 0.7},
                     {"phase": "optimizer step", "ms": 0.294}, {"phase": "loss.item()", "ms": 0.006}]}


def _ctx(phases, extra_records=None):
    base = load("two_clocks")
    data = copy.deepcopy(base.data)
    data["PHASES"] = phases
    records = {"cpu": ProofData("two_clocks", data, base.provenance)}
    records.update(extra_records or {})
    return make_ctx({"two_clocks": records})


def _embedded(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.S).group(1))[0]


def test_cpu_record_draws_one_step_on_one_clock():
    html = render_fence({"arg": "two-clocks"}, _ctx(PHASES))
    assert "Only a CPU record exists" in html and "one clock" in html
    assert "6.00 µs" in html and "1,500 µs" in html  # the read, and the whole step (3 significant digits)
    rows = re.findall(r'class="ldr-row-label"[^>]*>([^<]+)<', html)
    assert rows == ["forward", "backward", "optimizer step", "loss.item()"]
    assert html.count("ldr-bar--device") == 1  # only the read is the subject
    rec = _embedded(html)
    assert rec["view"] == "step" and rec["clocks"] == 1
    assert [p["phase"] for p in rec["phases"]] == rows
    assert "two clocks part" not in html


def test_accelerator_record_keeps_the_two_clock_view():
    cuda = load("two_clocks", "cuda")
    html = render_fence({"arg": "two-clocks"}, _ctx(PHASES, {"cuda": cuda}))
    assert _embedded(html)["view"] == "reads" and _embedded(html)["clocks"] == 2


@pytest.mark.parametrize("bad,match", [
    ([1, 2], "PHASES must be a mapping"),
    ({"phases": []}, "phases"),
    ({"phases": [{"ms": 1}]}, r"PHASES.phases\[0\] needs a phase name"),
    ({"phases": [{"phase": "x", "ms": "slow"}]}, "ms"),
])
def test_bad_phases_name_the_key(bad, match):
    with pytest.raises(DirectiveError, match=match):
        render_fence({"arg": "two-clocks"}, _ctx(bad))
