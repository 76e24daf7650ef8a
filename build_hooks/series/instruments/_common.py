"""Shared pieces of every instrument: the root element, embedded record, provenance line."""

from __future__ import annotations

import html as _html
import json
import math

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.proofs.records import ProofData
from build_hooks.render.numbers import count, group, plural, sig, size  # noqa: F401 (the instruments' one number rule)

esc = _html.escape


def attr(value) -> str:
    return _html.escape(str(value), quote=True)


SIGNIFICANT = 6
"""Digits a float keeps in an embedded record: the scripts draw and label with far fewer (a
timing's later digits are noise); the exact record is the proof's download."""


def compact(value):
    """``value`` with every float at :data:`SIGNIFICANT` significant digits, and a whole float
    (a byte count that went through a float) as an int: JSON the browser reads as the same
    numbers, in fewer bytes."""
    if isinstance(value, float) and math.isfinite(value):
        return int(value) if value.is_integer() and abs(value) < 2**53 else float(f"{value:.{SIGNIFICANT}g}")
    if isinstance(value, dict):
        return {key: compact(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [compact(item) for item in value]
    return value


def embed_json(payload) -> str:
    """JSON safe inside <script type="application/json">: no '</script>', no '<!--'; floats
    :func:`compact`."""
    text = json.dumps(compact(payload), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def need(data: dict, key: str, kind, proof: str):
    """A value from a proof record, or a DirectiveError naming what is missing."""
    if key not in data:
        raise DirectiveError(f"proof {proof!r} recorded no {key}; its record has {sorted(data)}")
    value = data[key]
    if not isinstance(value, kind):
        raise DirectiveError(f"proof {proof!r}: {key} should be {getattr(kind, '__name__', kind)}, "
                             f"got {type(value).__name__}")
    return value


def need_rows(data: dict, key: str, proof: str, label: str | None = None) -> list:
    """A non-empty list from a proof record (``label`` names it in errors, e.g. LIBRARIES.files)."""
    rows = need(data, key, list, proof)
    if not rows:
        raise DirectiveError(f"proof {proof!r}: {label or key} is empty")
    return rows


def num(row: dict, key: str, proof: str, where: str) -> float:
    value = row.get(key) if isinstance(row, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise DirectiveError(f"proof {proof!r}: {where} needs a finite number {key!r}, got {value!r}")
    return float(value)


def fmt(value: float, digits: int = 3) -> str:
    """A measurement with ``digits`` significant digits, thousands grouped (render/numbers.py).

    Mirrors ``fmt`` in theme/assets/js/ldr-common.js so static and live readouts agree.
    """
    return sig(value, digits)


def proof_href(ctx: Context, name: str) -> str:
    """Where the proof's card is: the plugin knows, else this page (Context.card_href)."""
    return ctx.card_href(name)


def provenance_line(proof: ProofData, href: str | None = None) -> str:
    prov = proof.provenance
    name = prov.proof or proof.name
    bits = [f'<a href="{attr(href or f"#proof-{name}")}">{esc(name)}</a>']
    if prov.torch:
        bits.append(f"torch {esc(prov.torch)}")
    device, dclass = prov.device, prov.device_class
    if device or dclass:
        bits.append(esc(f"{device} ({dclass})" if device and dclass else device or dclass))
    if prov.measured_at:
        bits.append(f'<time datetime="{attr(prov.measured_at)}">{esc(prov.measured_at)[:10]}</time>')
    stale = ' <strong class="ldr-provenance__stale">stale: the proof changed since this record</strong>' \
        if prov.stale else ""
    return f'<p class="ldr-provenance">Measured by {" · ".join(bits)}{stale}</p>'


def instrument_root(kind: str, proof: ProofData, body: str, *, title: str, ctx: Context,
                    reads: tuple[str, ...], extra: dict | None = None) -> str:
    """The instrument's element: its title, the part of the record its script reads (``reads``:
    the record's top-level keys, as ``rec.data.KEY`` in theme/assets/js/<kind>.js; the rest of
    the record is on the proof's card, not embedded again), ``extra`` values the script reads
    as ``rec.<name>``, the static ``body`` and the provenance line."""
    payload: dict = {"data": {key: proof.data[key] for key in reads if key in proof.data}}
    payload.update(extra or {})
    # The record travels as a one-element JSON array. mkdocs-material's instant navigation
    # re-creates every inline <script> of the new page without its type (so it runs as
    # JavaScript): an array literal is a harmless expression there, an object is a syntax error.
    return (
        f'<div class="ldr-instrument" data-instrument="{attr(kind)}" data-proof="{attr(proof.name)}">'
        f'<p class="ldr-instrument__title">{esc(title)}</p>'
        f'<script type="application/json" class="ldr-instrument__data">{embed_json([payload])}</script>'
        f'{body}{provenance_line(proof, proof_href(ctx, proof.name))}</div>'
    )


def log_scale(lo: float, hi: float, a: float, b: float):
    """Map [lo, hi] (positive) onto [a, b] logarithmically."""
    if lo <= 0 or hi <= 0:
        raise DirectiveError("a logarithmic axis needs positive values")
    llo, lhi = math.log10(lo), math.log10(hi)
    span = (lhi - llo) or 1.0
    return lambda v: a + (math.log10(v) - llo) / span * (b - a)


def nice_decades(lo: float, hi: float) -> list[float]:
    return [10.0 ** k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def primary(ctx: Context, proof_name: str) -> ProofData:
    record = ctx.proof(proof_name)
    if not isinstance(record.data, dict):
        raise DirectiveError(f"proof {proof_name!r}: record data is not a mapping")
    return record
