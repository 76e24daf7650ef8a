"""Promotion table: the dtype an op between two dtypes gives, from the ``type_promotion`` proof.

A matrix of result dtypes (row dtype + column dtype), each cell tinted by its category: bool,
integer, floating, complex. The rule each cell follows is worded here from the record's
categories and sizes (never typed per cell), carried on the cell, and shown by the readout
when the reader picks it. Below, the cases where one side is a Python number or a 0-dim tensor.
"""

from __future__ import annotations

import re

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.series.instruments._common import attr, esc, group, instrument_root, need, need_rows, primary

DEFAULT_PROOF = "type_promotion"
CATEGORIES = ("bool", "integer", "floating", "complex")
RANK = {c: k for k, c in enumerate(CATEGORIES)}
A_TYPE = {"bool": "bool", "integer": "an integer type", "floating": "a floating type", "complex": "a complex type"}
ONE = {"bool": "bool", "integer": "an integer one", "floating": "a floating one", "complex": "a complex one"}
BOTH = {"bool": "both bool", "integer": "both integers", "floating": "both floating", "complex": "both complex"}


# The record's keys theme/assets/js/promotion-table.js reads (rec.data.KEY); only these are embedded.
READS: tuple[str, ...] = ("PROMOTION",)


def short(name: str) -> str:
    """A compact cell label: float16 -> f16, bfloat16 -> bf16, uint8 -> u8, complex64 -> c64."""
    for long, brief in (("complex", "c"), ("bfloat", "bf"), ("float", "f"), ("uint", "u"), ("int", "i")):
        if re.fullmatch(long + r"\d+", name):
            return brief + name[len(long):]
    return name


def pair_rule(a: str, b: str, r: str, info: dict) -> str:
    """Why a + b gives r, in words, from categories, sizes and signs."""
    A, B, R = info[a], info[b], info[r]
    head = f"{a} + {b} -> {r}: "
    if a == b:
        return head + "the same dtype on both sides keeps it"
    if A["category"] != B["category"]:
        hi, lo = (A, B) if RANK[A["category"]] > RANK[B["category"]] else (B, A)
        wins = f'{A_TYPE[hi["category"]]} wins over {ONE[lo["category"]]}'
        if r == hi["name"]:
            return head + wins + " whatever its size"
        if R["category"] == hi["category"] and R["bits"] > hi["bits"]:
            return head + f"{wins}, and widens to {r} to keep {lo['name']}'s {lo['bits']} bits of precision"
        return head + f"{wins}; torch picks {r}"
    cat = A["category"]
    if r in (a, b):
        other = b if r == a else a
        return head + f"{BOTH[cat]}; {r} holds every {other} value"
    if cat == "integer" and A["signed"] != B["signed"]:
        uns, sig = (A, B) if not A["signed"] else (B, A)
        why = f"{uns['name']} has no negatives, {sig['name']} stops at {2 ** (sig['bits'] - 1) - 1:,}"
    elif A["bits"] == B["bits"]:
        why = f"the same {A['bits']} bits, split differently between range and precision"
    else:
        why = "each has values the other cannot hold"
    return head + f"{BOTH[cat]}, but neither holds the other ({why}); {r} is the smallest type that holds both"


def scalar_rule(case: dict, info: dict, defaults: dict) -> str:
    """Why a dimensioned tensor plus a Python number or a 0-dim tensor gives what it gives.

    ``defaults`` maps a category to torch's default dtype for it (floating, and integer if known).
    """
    other, t, r = case["other"], case["tensor"], case["result"]
    if other["kind"] == "tensor":
        return pair_rule(t, other["dtype"], r, info).split(": ", 1)[1]
    what = f"a Python {other.get('python_type', 'number')}" if other["kind"] == "python" \
        else f"a 0-dim {other.get('dtype', '')} tensor"
    tc, oc = info[t]["category"], other["category"]
    tensor = f"the {tc} tensor"
    if RANK[oc] <= RANK[tc] and r == t:
        level = "the same category" if oc == tc else "a lower category"
        return f"{what} is of {level}: it does not promote a dimensioned tensor, {t} stays"
    if RANK[oc] > RANK[tc]:
        if other["kind"] == "zero-dim" and r == other.get("dtype"):
            return f"{what} outranks {tensor}: a higher category brings its own dtype, {r}"
        if r == defaults.get(oc):
            return f"{what} outranks {tensor}: the result takes the default {oc} dtype, {r}"
        if oc == "complex" and info[r]["bits"] == 2 * info[defaults["floating"]]["bits"] and tc != "floating":
            return f"{what} outranks {tensor}: the result takes the default complex dtype, {r}"
        if oc == "complex" and info[r]["bits"] == 2 * info[t]["bits"]:
            return f"{what} outranks {tensor}: the result is complex at {t}'s precision, {r}"
        return f"{what} outranks {tensor}: the result is {r}"
    return f"{what}: the result is {r}"


def _check_promotion(promo: dict, proof: str) -> None:
    """PROMOTION's shape: dtypes, a square table of dtype names, info, default_float."""
    for key, kind in (("dtypes", list), ("table", list), ("info", dict)):
        if not isinstance(promo.get(key), kind):
            raise DirectiveError(f"proof {proof!r}: PROMOTION.{key} should be {kind.__name__}, "
                                 f"got {type(promo.get(key)).__name__}")
    dtypes = need_rows(promo, "dtypes", proof, "PROMOTION.dtypes")
    table = need_rows(promo, "table", proof, "PROMOTION.table")
    if not isinstance(promo.get("default_float"), str):
        raise DirectiveError(f"proof {proof!r}: PROMOTION.default_float should name a dtype")
    if not all(isinstance(d, str) for d in dtypes):
        raise DirectiveError(f"proof {proof!r}: PROMOTION.dtypes should be dtype names")
    if len(table) != len(dtypes) or not all(isinstance(row, list) and len(row) == len(dtypes) for row in table):
        raise DirectiveError(f"proof {proof!r}: PROMOTION.table should be {len(dtypes)} rows of "
                             f"{len(dtypes)} dtype names")


def _is_scalar_case(case) -> bool:
    """A SCALARS case: expr, tensor and result as text, and the other operand's kind and category."""
    return (isinstance(case, dict) and all(isinstance(case.get(k), str) for k in ("expr", "tensor", "result"))
            and isinstance(case.get("other"), dict)
            and case["other"].get("kind") in ("python", "zero-dim", "tensor")
            and case["other"].get("category") in CATEGORIES)


def _is_dtype_info(entry) -> bool:
    return (isinstance(entry, dict) and entry.get("category") in CATEGORIES
            and isinstance(entry.get("bits"), int) and isinstance(entry.get("signed"), bool))


def check(data: dict, proof: str) -> tuple[dict, list[dict]]:
    promo = need(data, "PROMOTION", dict, proof)
    _check_promotion(promo, proof)
    dtypes, table, info = promo["dtypes"], promo["table"], promo["info"]
    scalars = need_rows(data, "SCALARS", proof)
    named = set(dtypes) | {promo["default_float"]} | {r for row in table for r in row}
    for i, case in enumerate(scalars):
        if not _is_scalar_case(case):
            raise DirectiveError(f"proof {proof!r}: SCALARS[{i}] needs expr, tensor, result and other "
                                 "(kind python, zero-dim or tensor, and a category)")
        named |= {case["tensor"], case["result"]} | ({case["other"]["dtype"]} if "dtype" in case["other"] else set())
    for name in sorted(named, key=str):
        if not _is_dtype_info(info.get(name) if isinstance(name, str) else None):
            raise DirectiveError(f"proof {proof!r}: PROMOTION.info has no category, bits and signed for {name!r}")
    return promo, scalars


def render_matrix(promo: dict) -> str:
    dtypes, table, info = promo["dtypes"], promo["table"], promo["info"]
    head = "".join(f'<th scope="col" data-c="{j}"><abbr title="{attr(d)}">{esc(short(d))}</abbr></th>'
                   for j, d in enumerate(dtypes))
    rows = []
    for i, (a, row) in enumerate(zip(dtypes, table)):
        cells = "".join(
            f'<td class="ldr-promo__cell ldr-cat--{info[r]["category"]}" data-r="{i}" data-c="{j}" '
            f'data-rule="{attr(pair_rule(a, b, r, info))}" title="{attr(f"{a} + {b} -> {r}")}">{esc(short(r))}</td>'
            for j, (b, r) in enumerate(zip(dtypes, row)))
        rows.append(f'<tr><th scope="row" data-r="{i}"><abbr title="{attr(a)}">{esc(short(a))}</abbr></th>{cells}</tr>')
    return ('<div class="ldr-scroll ldr-promo__scroll"><table class="ldr-promo">'
            f'<thead><tr><th scope="col" class="ldr-promo__corner">a \\ b</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def render_legend(promo: dict) -> str:
    present = [c for c in CATEGORIES if any(promo["info"][r]["category"] == c for row in promo["table"] for r in row)]
    swatches = "".join(f'<li><span class="ldr-swatch ldr-cat--{c}"></span>{c}</li>' for c in present)
    return (f'<ul class="ldr-promo__legend">{swatches}</ul>'
            '<p class="ldr-promo__key">b bool, u unsigned int, i int, f float, bf bfloat, c complex; '
            'the number is bits per element.</p>')


def defaults_of(promo: dict) -> dict:
    found = {"floating": promo["default_float"]}
    if isinstance(promo.get("default_int"), str):
        found["integer"] = promo["default_int"]
    return found


def render_scalars(scalars: list[dict], info: dict, defaults: dict) -> str:
    """One item per case: the expression, the dtype it gives, its first value and why."""
    items = "".join(
        f'<li><code>{esc(s["expr"])}</code> → <span class="ldr-chip ldr-cat--{info[s["result"]]["category"]}">'
        f'{esc(s["result"])}</span> <span class="ldr-promo__value">first value {esc(group(s.get("first", "?")))}</span>'
        f'<br><span class="ldr-promo__why">{esc(scalar_rule(s, info, defaults))}</span></li>'
        for s in scalars)
    # the left operand's name as the expressions spell it (h, i32, ...) and its dtype
    names = sorted({(s["expr"].split(" ")[0], s["tensor"]) for s in scalars})
    named = ", ".join(f"<code>{esc(v)}</code> {esc(t)}" for v, t in names)
    return ('<p class="ldr-strides__label">One side a Python number or a 0-dim tensor; '
            f'the left side is a 1-d tensor: {named}</p>'
            f'<ul class="ldr-promo__cases">{items}</ul>')


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    promo, scalars = check(record.data, proof_name)
    n = len(promo["dtypes"])
    lead = (f'<p class="ldr-instrument__lead">{n} dtypes, {n * n} pairs: the dtype of <code>a + b</code> for a tensor '
            'of the row\'s dtype and one of the column\'s. Across categories the higher one wins; within one, '
            'the type that holds both.</p>')
    controls = ('<div class="ldr-controls" hidden>'
                '<p class="ldr-walker__hint">Point at or click a cell; arrow keys move across the table.</p>'
                '<div class="ldr-readout ldr-walker__node" aria-live="polite">'
                '<p class="ldr-walker__where"><output data-key="pair"></output> → <output data-key="result"></output>'
                '</p>'
                '<p class="ldr-promo__rule"><output data-key="rule"></output></p></div></div>')
    hint = '<p class="ldr-scroll-hint">The table scrolls sideways.</p>'
    body = (lead + render_legend(promo) + hint + render_matrix(promo) + controls
            + render_scalars(scalars, promo["info"], defaults_of(promo)))
    return instrument_root("promotion-table", record, body, title="Promotion table: the dtype a + b gives", ctx=ctx,
                           reads=READS)
