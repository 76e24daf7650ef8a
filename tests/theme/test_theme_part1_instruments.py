"""Part 1's instruments, stride-explorer (view_ops) and promotion-table (type_promotion): the
static fallback holds every record value, rules are worded from categories and sizes, bad
records fail with the proof and key named, and nothing from a record reaches the HTML unescaped."""

from __future__ import annotations

import copy
import html as _html
import json
import re

import pytest
from theme_support import load, make_ctx

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.records import ProofData
from build_hooks.series.instruments import DEFAULT_PROOFS, render_fence
from build_hooks.series.instruments.promotion_table import defaults_of, pair_rule, scalar_rule, short


def embedded(html: str) -> dict:
    body = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.S).group(1)
    return json.loads(body)[0]


def render(kind: str, proof: str, data: dict | None = None) -> str:
    rec = load(proof)
    ctx = make_ctx({proof: {"cpu": ProofData(proof, rec.data if data is None else data, rec.provenance)}})
    return render_fence({"arg": kind}, ctx)


def views_data() -> dict:
    return copy.deepcopy(load("view_ops").data)


def promo_data() -> dict:
    return copy.deepcopy(load("type_promotion").data)


def test_defaults():
    assert DEFAULT_PROOFS["stride-explorer"] == "view_ops"
    assert DEFAULT_PROOFS["promotion-table"] == "type_promotion"


def test_fixture_records_match_the_committed_records():
    """The browser fixtures are copies of proofs/_results: a re-recorded proof must be re-copied."""
    from theme_support import ROOT
    for name in ("view_ops", "type_promotion"):
        committed = json.loads((ROOT / "proofs" / "_results" / f"{name}.cpu.json").read_text())
        assert load(name).data == committed["data"], f"copy proofs/_results/{name}.cpu.json into tests/browser/fixtures"


# ---- stride explorer ------------------------------------------------------------------------

def test_stride_explorer_static_fallback_holds_every_view():
    data = views_data()
    html = render("stride-explorer", "view_ops")
    assert html.startswith('<div class="ldr-instrument" data-instrument="stride-explorer" data-proof="view_ops"')
    assert embedded(html)["data"] == {"BASE": data["BASE"], "VIEWS": data["VIEWS"]}
    numel, views = data["BASE"]["numel"], data["VIEWS"]
    storage = re.search(r'<ol class="ldr-storage".*?</ol>', html, re.S).group(0)
    assert re.findall(r'data-cell="(\d+)"', storage) == [str(k) for k in range(numel)]
    first = views[0]["reads"]
    lit = re.findall(r'class="ldr-cell ldr-cell--read" data-cell="(\d+)"', storage)
    assert lit == [str(k) for k in sorted(set(first))]
    # the first view's grid: one element per read, in order
    grid = re.search(r'<div class="ldr-strides__view">(.*?)</figure>', html, re.S).group(1)
    assert re.findall(r'data-cell="(\d+)"', grid) == [str(c) for c in first]
    # the table: one row per view, its sizes, strides, offset and cells
    rows = re.findall(r"<tr><td><code>(.*?)</code></td>(.*?)</tr>", html, re.S)
    assert [_html.unescape(op) for op, _ in rows] == [v["op"] for v in views]
    for (_, cells), v in zip(rows, views):
        tds = re.findall(r"<td>(.*?)</td>", cells)
        assert tds[0] == "×".join(map(str, v["sizes"])) and tds[2] == str(v["storage_offset"])
        assert tds[4] == ("shared" if v["shares_storage"] else "copy")
        expected = v["reads"] if v["shares_storage"] else v["values"]
        assert tds[5] == " ".join(map(str, expected))
    assert html.count("<option ") == len(views)
    assert "torch 2.13.0" in html and 'href="#proof-view_ops"' in html


def test_stride_explorer_draws_counts_slices_and_copies():
    data = views_data()
    expand = next(i for i, v in enumerate(data["VIEWS"]) if "expand" in v["op"])
    copy_ = next(i for i, v in enumerate(data["VIEWS"]) if not v["shares_storage"])
    three = next(i for i, v in enumerate(data["VIEWS"]) if len(v["sizes"]) == 3 and v["sizes"][0] > 1)
    for first, check in ((expand, lambda h: h.count('<small class="ldr-cell__count">×3</small>') == 4),
                         (copy_, lambda h: "a copy: new storage" in h),
                         (three, lambda h: h.count('class="ldr-slice__label"') == data["VIEWS"][three]["sizes"][0])):
        reordered = views_data()
        reordered["VIEWS"].insert(0, reordered["VIEWS"].pop(first))
        assert check(render("stride-explorer", "view_ops", reordered)), reordered["VIEWS"][0]["op"]


def _drop(key):
    def f(d):
        del d[key]
    return f


@pytest.mark.parametrize("mutate,needle", [
    (_drop("VIEWS"), r"'view_ops' recorded no VIEWS"),
    (_drop("BASE"), r"'view_ops' recorded no BASE"),
    (lambda d: d.update(VIEWS=[]), r"'view_ops': VIEWS is empty"),
    (lambda d: d.update(VIEWS={"op": "x"}), r"'view_ops': VIEWS should be list"),
    (lambda d: d["BASE"].update(numel=0), r"BASE\.numel"),
    (lambda d: d["VIEWS"][2].update(strides="4, 2"), r"VIEWS\[2\]\.strides should be a list of integers"),
    (lambda d: d["VIEWS"][2].update(strides=[4]), r"VIEWS\[2\] has 2 sizes but 1 strides"),
    (lambda d: d["VIEWS"][3].update(reads=[1, 2]), r"VIEWS\[3\]\.reads has 2 entries"),
    (lambda d: d["VIEWS"][1].update(shares_storage="yes"), r"VIEWS\[1\] needs true or false for 'shares_storage'"),
    (lambda d: d["VIEWS"][1].update(storage_offset=-1), r"VIEWS\[1\]\.storage_offset"),
    (lambda d: d["VIEWS"][4].pop("op"), r"VIEWS\[4\] needs an 'op'"),
    (lambda d: d["VIEWS"][0]["reads"].__setitem__(0, 99), r"VIEWS\[0\] reads a cell beyond BASE\.numel"),
])
def test_stride_explorer_bad_records_name_proof_and_key(mutate, needle):
    data = views_data()
    mutate(data)
    with pytest.raises(DirectiveError, match=needle):
        render("stride-explorer", "view_ops", data)


def test_stride_explorer_escapes_the_operation_text():
    data = views_data()
    data["VIEWS"][0]["op"] = '</script><b onmouseover="x">&'
    data["BASE"]["source"] = "<i>arange</i>"
    html = render("stride-explorer", "view_ops", data)
    assert "<b " not in html and "<i>" not in html
    assert "&lt;/script&gt;&lt;b onmouseover=&quot;x&quot;&gt;&amp;" in html
    assert html.count("</script>") == 1 and "<!--" not in html
    assert embedded(html)["data"]["VIEWS"][0]["op"] == data["VIEWS"][0]["op"]


# ---- promotion table ------------------------------------------------------------------------

def test_short_names_come_from_the_dtype_names():
    assert [short(n) for n in ("bool", "uint8", "int16", "float16", "bfloat16", "complex128", "qint8")] == \
        ["bool", "u8", "i16", "f16", "bf16", "c128", "qint8"]


def test_promotion_table_static_matrix_is_the_record():
    data = promo_data()
    promo = data["PROMOTION"]
    html = render("promotion-table", "type_promotion")
    assert embedded(html)["data"] == {"PROMOTION": promo}  # the scalars are drawn, not scripted
    n = len(promo["dtypes"])
    cells = re.findall(r'<td class="ldr-promo__cell ldr-cat--(\w+)" data-r="(\d+)" data-c="(\d+)" '
                       r'data-rule="([^"]*)" title="([^"]*)">([^<]*)</td>', html)
    assert len(cells) == n * n
    for cat, r, c, rule, title, text in cells:
        a, b, out = promo["dtypes"][int(r)], promo["dtypes"][int(c)], promo["table"][int(r)][int(c)]
        assert text == short(out) and cat == promo["info"][out]["category"]
        assert _html.unescape(title) == f"{a} + {b} -> {out}"
        assert _html.unescape(rule).startswith(f"{a} + {b} -> {out}: ")
    assert html.count("<li><code>") == len(data["SCALARS"])
    assert 'href="#proof-type_promotion"' in html


@pytest.mark.parametrize("a,b,words", [
    ("int32", "float16", "a floating type wins over an integer one whatever its size"),
    ("bool", "int8", "an integer type wins over bool whatever its size"),
    ("uint8", "int8", "neither holds the other (uint8 has no negatives, int8 stops at 127); int16 is the smallest"),
    ("float16", "bfloat16", "the same 16 bits, split differently between range and precision"),
    ("complex64", "float64", "widens to complex128 to keep float64's 64 bits"),
    ("int8", "int64", "both integers; int64 holds every int8 value"),
    ("float32", "float32", "the same dtype on both sides keeps it"),
])
def test_pair_rules_are_worded_from_the_data(a, b, words):
    promo = load("type_promotion").data["PROMOTION"]
    i, j = promo["dtypes"].index(a), promo["dtypes"].index(b)
    assert words in pair_rule(a, b, promo["table"][i][j], promo["info"])


def test_scalar_rules_follow_the_category_rule():
    data = load("type_promotion").data
    info, defaults = data["PROMOTION"]["info"], defaults_of(data["PROMOTION"])
    why = {s["expr"]: scalar_rule(s, info, defaults) for s in data["SCALARS"]}
    assert why["h + 1e5"].endswith("does not promote a dimensioned tensor, float16 stays")
    assert why["h + torch.tensor(1e5)"].startswith("a 0-dim float32 tensor is of the same category")
    assert why["i32 + 2.5"].endswith("the default floating dtype, float32")
    assert why["i32 + torch.tensor(2.5, dtype=torch.float64)"].endswith("brings its own dtype, float64")
    assert "float32 holds every float16 value" in why["h + torch.tensor([1e5, 1e5])"]
    assert why["b + 1"].endswith("the default integer dtype, int64")
    assert why["i32 + 1j"].endswith("the default complex dtype, complex64")
    assert why["h + 1j"].endswith("complex at float16's precision, complex32")


@pytest.mark.parametrize("mutate,needle", [
    (lambda d: d.pop("PROMOTION"), r"'type_promotion' recorded no PROMOTION"),
    (lambda d: d.pop("SCALARS"), r"'type_promotion' recorded no SCALARS"),
    (lambda d: d.update(SCALARS=[]), r"'type_promotion': SCALARS is empty"),
    (lambda d: d["PROMOTION"].update(dtypes=[]), r"PROMOTION\.dtypes is empty"),
    (lambda d: d["PROMOTION"].update(table="float32"), r"PROMOTION\.table should be list"),
    (lambda d: d["PROMOTION"]["table"].pop(), r"PROMOTION\.table should be 11 rows of 11"),
    (lambda d: d["PROMOTION"]["table"][3].pop(), r"PROMOTION\.table should be 11 rows of 11"),
    (lambda d: d["PROMOTION"]["info"].pop("complex128"),
     r"PROMOTION\.info has no category, bits and signed for 'complex128'"),
    (lambda d: d["PROMOTION"]["info"]["int8"].update(category="whole"), r"PROMOTION\.info .* 'int8'"),
    (lambda d: d["SCALARS"][1].pop("other"), r"SCALARS\[1\] needs expr"),
    (lambda d: d["SCALARS"][2]["other"].update(kind="string"), r"SCALARS\[2\] needs"),
])
def test_promotion_table_bad_records_name_proof_and_key(mutate, needle):
    data = promo_data()
    mutate(data)
    with pytest.raises(DirectiveError, match=needle):
        render("promotion-table", "type_promotion", data)


def test_promotion_table_escapes_every_record_string():
    data = promo_data()
    promo = data["PROMOTION"]
    evil = '<i>bool"&'
    promo["dtypes"][0] = evil
    promo["info"][evil] = promo["info"].pop("bool")
    promo["table"] = [[evil if r == "bool" else r for r in row] for row in promo["table"]]
    data["SCALARS"] = [dict(s, tensor=evil if s["tensor"] == "bool" else s["tensor"],
                            result=evil if s["result"] == "bool" else s["result"]) for s in data["SCALARS"]]
    data["SCALARS"][0]["expr"] = "</script><script>alert(1)</script>"
    data["SCALARS"][0]["first"] = "<b>inf</b>"
    html = render("promotion-table", "type_promotion", data)
    assert "<i>" not in html and "<b>" not in html and "<script>alert" not in html
    assert "&lt;i&gt;bool&quot;&amp;" in html and "&lt;/script&gt;&lt;script&gt;alert(1)" in html
    assert html.count("</script>") == 1
    assert embedded(html)["data"]["PROMOTION"]["dtypes"][0] == evil  # through the JSON intact
