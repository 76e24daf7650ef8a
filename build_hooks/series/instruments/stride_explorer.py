"""Stride explorer: which storage cells each view reads, from the ``view_ops`` proof.

The base tensor's storage is a row of cells; a view is a grid of elements (its last dimension
across, the one before it down, any earlier ones as separate slices). Each element shows the
storage cell it reads, ``offset + sum(index * stride)``, as the proof computed and checked it.
The reader picks an operation and sees which cells light up, how often each is read, and
whether the result still shares the base's storage or is a copy.
"""

from __future__ import annotations

import itertools
import math

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.series.instruments._common import count, esc, instrument_root, need, need_rows, primary

DEFAULT_PROOF = "view_ops"


# The record's keys theme/assets/js/stride-explorer.js reads (rec.data.KEY); only these are embedded.
READS: tuple[str, ...] = ("BASE", "VIEWS")


def dims(sizes: list[int]) -> str:
    """Sizes as the readout prints them: 3×4 (a 0-dim tensor is 'scalar')."""
    return "×".join(str(n) for n in sizes) or "scalar"


def tup(seq: list[int]) -> str:
    return "(" + ", ".join(str(n) for n in seq) + ("," if len(seq) == 1 else "") + ")"


def _ints(row: dict, key: str, proof: str, where: str, *, minimum: int | None = None) -> list[int]:
    value = row.get(key)
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise DirectiveError(f"proof {proof!r}: {where}.{key} should be a list of integers, got {value!r:.60}")
    if minimum is not None and any(v < minimum for v in value):
        raise DirectiveError(f"proof {proof!r}: {where}.{key} holds a value below {minimum}")
    return value


def _flag(row: dict, key: str, proof: str, where: str) -> bool:
    if not isinstance(row.get(key), bool):
        raise DirectiveError(f"proof {proof!r}: {where} needs true or false for {key!r}, got {row.get(key)!r}")
    return row[key]


def check(data: dict, proof: str) -> tuple[dict, list[dict]]:
    """BASE and VIEWS from the record, or a DirectiveError naming the proof and the key."""
    base = need(data, "BASE", dict, proof)
    numel = base.get("numel")
    if not isinstance(numel, int) or isinstance(numel, bool) or numel <= 0:
        raise DirectiveError(f"proof {proof!r}: BASE.numel should be a positive integer, got {numel!r}")
    _ints(base, "sizes", proof, "BASE", minimum=0)
    _ints(base, "strides", proof, "BASE")
    views = []
    for i, row in enumerate(need_rows(data, "VIEWS", proof)):
        where = f"VIEWS[{i}]"
        if not isinstance(row, dict) or not isinstance(row.get("op"), str) or not row["op"].strip():
            raise DirectiveError(f"proof {proof!r}: {where} needs an 'op' (the operation's source text)")
        sizes = _ints(row, "sizes", proof, where, minimum=0)
        strides = _ints(row, "strides", proof, where)
        if len(sizes) != len(strides):
            raise DirectiveError(f"proof {proof!r}: {where} has {len(sizes)} sizes but {len(strides)} strides")
        offset = row.get("storage_offset")
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            raise DirectiveError(f"proof {proof!r}: {where}.storage_offset should be an integer >= 0, got {offset!r}")
        shared = _flag(row, "shares_storage", proof, where)
        _flag(row, "is_contiguous", proof, where)
        count = math.prod(sizes)
        for key in ("reads", "values"):
            cells = _ints(row, key, proof, where, minimum=0)
            if len(cells) != count:
                raise DirectiveError(f"proof {proof!r}: {where}.{key} has {len(cells)} entries for {count} elements")
        shown = row["reads"] if shared else row["values"]
        if any(c >= numel for c in shown):
            raise DirectiveError(f"proof {proof!r}: {where} reads a cell beyond BASE.numel ({numel})")
        views.append(row)
    return base, views


def cells_of(view: dict) -> list[int]:
    """The base's storage cell behind each element: the cell read (a view) or copied from (a copy)."""
    return view["reads"] if view["shares_storage"] else view["values"]


def render_storage(numel: int, view: dict) -> str:
    counts: dict[int, int] = {}
    for c in cells_of(view):
        counts[c] = counts.get(c, 0) + 1
    items = []
    for k in range(numel):
        n = counts.get(k, 0)
        cls = "ldr-cell ldr-cell--read" if n else "ldr-cell"
        badge = f'<small class="ldr-cell__count">×{n}</small>' if n > 1 else ""
        items.append(f'<li class="{cls}" data-cell="{k}"><span>{k}</span>{badge}</li>')
    return f'<ol class="ldr-storage" start="0" aria-label="storage cells 0 to {numel - 1}">{"".join(items)}</ol>'


def render_view(view: dict) -> str:
    """The view's elements, last dimension across; leading dimensions become labelled slices."""
    sizes, cells = view["sizes"], cells_of(view)
    cols = sizes[-1] if sizes else 1
    rows = sizes[-2] if len(sizes) >= 2 else 1
    per = max(1, cols * rows)
    lead = list(itertools.product(*(range(n) for n in sizes[:-2])))
    parts = []
    for s, index in enumerate(lead):
        label = f'<p class="ldr-slice__label">[{", ".join(map(str, index))}]</p>' if index else ""
        chunk = cells[s * per:(s + 1) * per]
        spans = "".join(f'<span class="ldr-cell" data-k="{s * per + j}" data-cell="{c}">{c}</span>'
                        for j, c in enumerate(chunk))
        parts.append(f'<div class="ldr-slice">{label}<div class="ldr-viewgrid" style="--ldr-cols:{cols}">{spans}</div>'
                     '</div>')
    return "".join(parts)


def storage_text(view: dict) -> str:
    return "shares the base's storage" if view["shares_storage"] else "a copy: new storage"


def render_figure(base: dict, view: dict) -> str:
    return (
        '<figure class="ldr-figure ldr-strides">'
        f'<p class="ldr-strides__label">storage of <code>x</code>: {base["numel"]} cells, in memory order</p>'
        f'{render_storage(base["numel"], view)}'
        f'<p class="ldr-strides__label">elements of <code class="ldr-strides__op">{esc(view["op"])}</code>, '
        f'<span class="ldr-strides__shape">{esc(dims(view["sizes"]))}</span>: each shows the storage cell it reads</p>'
        f'<div class="ldr-strides__view">{render_view(view)}</div></figure>')


def render_table(views: list[dict]) -> str:
    rows = "".join(
        f'<tr><td><code>{esc(v["op"])}</code></td><td>{esc(dims(v["sizes"]))}</td><td>{esc(tup(v["strides"]))}</td>'
        f'<td>{v["storage_offset"]}</td><td>{"yes" if v["is_contiguous"] else "no"}</td>'
        f'<td>{"shared" if v["shares_storage"] else "copy"}</td><td>{esc(" ".join(map(str, cells_of(v))))}</td></tr>'
        for v in views)
    return ('<details class="ldr-instrument__table"><summary>Every operation: sizes, strides, cells read</summary>'
            '<div class="ldr-scroll"><table><thead><tr><th>operation</th><th>sizes</th><th>strides</th><th>offset</th>'
            '<th>contiguous</th><th>storage</th><th>cells, in element order</th></tr></thead>'
            f'<tbody>{rows}</tbody></table></div></details>')


def render_picker(views: list[dict]) -> str:
    """The operation picker, above the figure (shown by JS)."""
    options = "".join(f'<option value="{i}">{esc(v["op"])}</option>' for i, v in enumerate(views))
    return (
        '<div class="ldr-controls" hidden>'
        f'<label class="ldr-controls__label">Operation on <code>x</code> <select class="ldr-select">{options}</select>'
        '</label>'
        '<p class="ldr-walker__hint">Point at an element (or focus it, arrow keys move) to light its storage cell; '
        'point at a storage cell to light the elements that read it.</p></div>')


def render_readout() -> str:
    """What the chosen view is, below the figure (shown by JS)."""
    items = (("sizes", "sizes"), ("strides", "strides"), ("storage offset", "offset"), ("contiguous", "contiguous"),
             ("storage", "storage"), ("element", "element"))
    rows = "".join(f'<div><dt>{label}</dt><dd><output data-key="{key}"></output></dd></div>' for label, key in items)
    return ('<div class="ldr-controls ldr-strides__readout" hidden><dl class="ldr-readout" aria-live="polite">'
            f'{rows}<div class="ldr-readout__wide"><dt>cells read, element by element</dt>'
            '<dd><output data-key="cells"></output></dd></div></dl></div>')


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    base, views = check(record.data, proof_name)
    shared = sum(v["shares_storage"] for v in views)
    source = base.get("source")
    lead = (f'<p class="ldr-instrument__lead"><code>x = {esc(str(source))}</code> has sizes {esc(tup(base["sizes"]))} '
            f'and strides {esc(tup(base["strides"]))}. Of {count(len(views), "operation")} on it, '
            f'<strong class="ldr-subject-text">{shared} only change sizes, strides and offset</strong>: '
            'they read the same cells in another order.</p>') if source else ""
    first = views[0]
    status = (f'<p class="ldr-strides__status">{esc(first["op"])}: sizes {esc(tup(first["sizes"]))}, strides '
              f'{esc(tup(first["strides"]))}, offset {first["storage_offset"]}, '
              f'{"contiguous" if first["is_contiguous"] else "not contiguous"}, {esc(storage_text(first))}.</p>')
    body = lead + render_picker(views) + render_figure(base, first) + status + render_readout() + render_table(views)
    return instrument_root("stride-explorer", record, body, title="Stride explorer: which storage cells a view reads",
                           ctx=ctx, reads=READS)
