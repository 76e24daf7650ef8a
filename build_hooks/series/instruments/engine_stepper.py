"""Engine stepper: backward one node at a time, in the order the engine ran them, from ``engine_order``.

The proof hung a pre-hook on every node of a small graph and recorded the order the engine ran
them (``ORDER``: step, node name, sequence number, the steps of the nodes that feed it) and, for
each step, which nodes were ready at that moment (every feeder already run). The graph is drawn
with the loss on top; the reader steps through the run and sees which node runs, which wait in
the ready queue and which still wait for a gradient. Without JavaScript the drawing and a table
of every step stand.
"""

from __future__ import annotations

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.drawing.offscreen import skip_offscreen
from build_hooks.series.instruments._common import count, esc, instrument_root, need_rows, primary
from build_hooks.series.instruments.graph_walker import CHAR_W, COL_GAP, NODE_H, PAD, ROW_GAP

DEFAULT_PROOF = "engine_order"
MAX_SEQ = 2 ** 64 - 1


# The record's keys theme/assets/js/engine-stepper.js reads (rec.data.KEY); only these are embedded.
READS: tuple[str, ...] = ("ORDER",)


def seq_text(seq: int) -> str:
    return "max" if seq == MAX_SEQ else str(seq)


def check(data: dict, proof: str) -> list[dict]:
    """ORDER, checked: steps 0..n-1 in order, feeders and ready sets that point at real steps."""
    rows = need_rows(data, "ORDER", proof)
    n = len(rows)
    for i, row in enumerate(rows):
        where = f"ORDER[{i}]"
        if not isinstance(row, dict) or row.get("step") != i:
            raise DirectiveError(f"proof {proof!r}: {where} should be a mapping with step {i}")
        if not isinstance(row.get("name"), str) or not row["name"].strip():
            raise DirectiveError(f"proof {proof!r}: {where} needs the node's name")
        seq = row.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
            raise DirectiveError(f"proof {proof!r}: {where}.seq should be a sequence number, got {seq!r:.40}")
        for key in ("after", "ready"):
            steps = row.get(key)
            if not isinstance(steps, list) or not all(isinstance(s, int) and not isinstance(s, bool)
                                                      and 0 <= s < n for s in steps):
                raise DirectiveError(f"proof {proof!r}: {where}.{key} should list steps from 0 to {n - 1}")
        if any(s >= i for s in row["after"]):
            raise DirectiveError(f"proof {proof!r}: {where} runs before a node that feeds it")
        if i not in row["ready"] or any(s < i for s in row["ready"]):
            raise DirectiveError(f"proof {proof!r}: {where}.ready should hold step {i} and no step run before it")
    return rows


def label(row: dict) -> str:
    return f'{row["step"] + 1}. {row["name"]} · {seq_text(row["seq"])}'


def graph_nodes(rows: list[dict]) -> list[dict]:
    """Each node with the nodes it feeds gradients to, and its label."""
    return [{"id": r["step"], "name": label(r), "next": [s["step"] for s in rows if r["step"] in s["after"]]}
            for r in rows]


def layout(rows: list[dict]) -> tuple[dict[int, tuple[float, float]], float, float, float]:
    """Rows by the longest path from the loss, so every edge points down (feeders run first, so one
    pass in step order settles each depth); boxes as wide as the longest label."""
    depth: dict[int, int] = {}
    for r in rows:
        depth[r["step"]] = max((depth[f] + 1 for f in r["after"]), default=0)
    layers: dict[int, list[int]] = {}
    for r in rows:
        layers.setdefault(depth[r["step"]], []).append(r["step"])
    node_w = max(96.0, CHAR_W * max(len(label(r)) for r in rows) + 18)
    widest = max(len(ids) for ids in layers.values())
    width = PAD * 2 + widest * node_w + (widest - 1) * COL_GAP
    pos: dict[int, tuple[float, float]] = {}
    for d, ids in layers.items():
        row_w = len(ids) * node_w + (len(ids) - 1) * COL_GAP
        for k, step in enumerate(ids):
            pos[step] = ((width - row_w) / 2 + k * (node_w + COL_GAP), PAD + d * (NODE_H + ROW_GAP))
    height = PAD * 2 + (max(layers) + 1) * NODE_H + max(layers) * ROW_GAP
    return pos, node_w, width, height


def render_svg(rows: list[dict]) -> str:
    nodes = graph_nodes(rows)
    pos, nw, width, height = layout(rows)
    parts = [f'<svg class="ldr-plot ldr-graph ldr-engine" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
             f'style="max-width:{width:.0f}px;min-width:{0.7 * width:.0f}px" '
             f'aria-label="Backward graph of {len(nodes)} nodes, numbered in the order the engine ran them">']
    for n in nodes:
        x, y = pos[n["id"]]
        for nxt in n["next"]:
            x2, y2 = pos[nxt]
            parts.append(f'<line class="ldr-edge" data-from="{n["id"]}" data-to="{nxt}" x1="{x + nw / 2:.1f}" '
                         f'y1="{y + NODE_H:.1f}" x2="{x2 + nw / 2:.1f}" y2="{y2:.1f}"/>')
    for r in rows:
        x, y = pos[r["step"]]
        parts.append(
            f'<g class="ldr-mark ldr-node" data-step="{r["step"]}">'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{nw:.1f}" height="{NODE_H}" rx="5"/>'
            f'<text x="{x + nw / 2:.1f}" y="{y + NODE_H / 2 + 4:.1f}" text-anchor="middle">'
            f'{esc(label(r))}</text></g>')
    parts.append("</svg>")
    return skip_offscreen("".join(parts))  # drawn when on screen, as tall (drawing/offscreen.py)


def ready_text(rows: list[dict], row: dict) -> str:
    return ", ".join(f'{rows[s]["name"]} ({seq_text(rows[s]["seq"])})' for s in row["ready"])


def render_table(rows: list[dict]) -> str:
    body = "".join(
        f'<tr data-step="{r["step"]}"><td>{r["step"] + 1}</td><td><code>{esc(r["name"])}</code></td>'
        f'<td>{seq_text(r["seq"])}</td><td>{esc(ready_text(rows, r))}</td>'
        f'<td>{", ".join(str(s + 1) for s in r["after"]) or "the start"}</td></tr>' for r in rows)
    return ('<details class="ldr-instrument__table"><summary>Every step: the node run, and the queue it was '
            'picked from</summary><div class="ldr-scroll"><table><thead><tr><th>step</th><th>runs</th>'
            '<th>sequence number</th><th>ready queue (sequence number)</th><th>after steps</th></tr></thead>'
            f'<tbody>{body}</tbody></table></div></details>')


def render_controls(n: int) -> str:
    return ('<div class="ldr-controls" hidden><div class="ldr-buttons" role="group" aria-label="Step the engine">'
            '<button type="button" class="ldr-button" data-step-to="first">Start</button>'
            '<button type="button" class="ldr-button" data-step-to="prev">Back</button>'
            '<button type="button" class="ldr-button" data-step-to="next">Next step</button>'
            '<button type="button" class="ldr-button" data-step-to="last">End</button></div>'
            f'<p class="ldr-walker__hint">Step through {count(n, "node")} with the buttons, or the arrow keys, '
            'Home and End. Orange: runs now; orange dashed: ready, waiting its turn; filled grey: ran; grey dashed: '
            'still waiting for a gradient.</p>'
            '<dl class="ldr-readout" aria-live="polite">'
            '<div><dt>step</dt><dd><output data-key="step"></output></dd></div>'
            '<div><dt>runs</dt><dd><output data-key="name"></output></dd></div>'
            '<div><dt>sequence number</dt><dd><output data-key="seq"></output></dd></div>'
            '<div class="ldr-readout__wide"><dt>ready queue when it was picked</dt>'
            '<dd><output data-key="ready"></output></dd></div></dl></div>')


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    rows = check(record.data, proof_name)
    waited = [r for r in rows if len(r["ready"]) > 1]
    # the rule is stated only when the record shows it at every step
    highest = all(r["seq"] == max(rows[s]["seq"] for s in r["ready"]) for r in rows)
    rule = ('<strong class="ldr-subject-text">the one with the highest sequence number, every time</strong>'
            if highest else 'one of them (the table shows which)')
    lead = (f'<p class="ldr-instrument__lead">The engine ran {count(len(rows), "node")} of this graph in the order '
            f'numbered below. At each step it took, from the nodes whose inputs had all arrived, {rule}; '
            f'{count(len(waited), "step")} had more than one to choose from.</p>')
    body = (lead + f'<figure class="ldr-figure ldr-figure--scroll">{render_svg(rows)}</figure>'
            + render_controls(len(rows)) + render_table(rows))
    return instrument_root("engine-stepper", record, body, title="Engine stepper: the order backward runs in",
                           ctx=ctx, reads=READS)
