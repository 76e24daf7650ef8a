"""Graph walker: the autograd graph behind one loss, from the ``autograd_graph`` proof.

Nodes are laid out by their distance from the loss (BFS layers, loss on top, leaves at the
bottom), one mark per node. The reader steps node by node from the loss to the leaves and sees
what each node saved for the backward pass.
"""

from __future__ import annotations

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.drawing.offscreen import skip_offscreen
from build_hooks.series.instruments._common import count, esc, fmt, instrument_root, need, primary

DEFAULT_PROOF = "autograd_graph"
NODE_H, ROW_GAP, COL_GAP, PAD = 30, 34, 14, 12
CHAR_W = 6.6  # a monospace advance at the labels' 11px (theme/assets/instruments.css)


# The record's keys theme/assets/js/graph-walker.js reads (rec.data.KEY); only these are embedded.
READS: tuple[str, ...] = ("GRAPH",)


def _nodes(data: dict, proof: str) -> tuple[int, list[dict]]:
    graph = need(data, "GRAPH", dict, proof)
    nodes = need(graph, "nodes", list, proof)
    if not nodes:
        raise DirectiveError(f"proof {proof!r}: GRAPH has no nodes")
    ids = set()
    for i, node in enumerate(nodes):
        if not isinstance(node, dict) or not isinstance(node.get("id"), int) or not isinstance(node.get("name"), str):
            raise DirectiveError(f"proof {proof!r}: GRAPH.nodes[{i}] needs an int id and a name")
        ids.add(node["id"])
    for node in nodes:
        bad = [n for n in node.get("next") or [] if n not in ids]
        if bad:
            raise DirectiveError(f"proof {proof!r}: node {node['id']} points at unknown nodes {bad}")
    root = graph.get("root", nodes[0]["id"])
    if root not in ids:
        raise DirectiveError(f"proof {proof!r}: GRAPH.root {root!r} is not a node id")
    return root, nodes


def layers(root: int, nodes: list[dict]) -> dict[int, int]:
    """Distance from the loss for every node (unreached nodes go one below the deepest)."""
    by_id = {n["id"]: n for n in nodes}
    depth, queue = {root: 0}, [root]
    while queue:
        nid = queue.pop(0)
        for nxt in by_id[nid].get("next") or []:
            if nxt not in depth:
                depth[nxt] = depth[nid] + 1
                queue.append(nxt)
    deepest = max(depth.values())
    return {n["id"]: depth.get(n["id"], deepest + 1) for n in nodes}


def layout(root: int, nodes: list[dict]) -> tuple[dict[int, tuple[float, float]], float, float, float]:
    depth = layers(root, nodes)
    rows: dict[int, list[int]] = {}
    for n in nodes:
        rows.setdefault(depth[n["id"]], []).append(n["id"])
    node_w = max(96.0, CHAR_W * max(len(n["name"]) for n in nodes) + 18)
    widest = max(len(r) for r in rows.values())
    width = PAD * 2 + widest * node_w + (widest - 1) * COL_GAP
    pos: dict[int, tuple[float, float]] = {}
    for d, ids in rows.items():
        row_w = len(ids) * node_w + (len(ids) - 1) * COL_GAP
        x0 = (width - row_w) / 2
        for k, nid in enumerate(ids):
            pos[nid] = (x0 + k * (node_w + COL_GAP), PAD + d * (NODE_H + ROW_GAP))
    height = PAD * 2 + (max(rows) + 1) * NODE_H + max(rows) * ROW_GAP
    return pos, node_w, width, height


def shape_text(shape) -> str:
    return "scalar" if shape == [] else ("?" if shape is None else "×".join(str(s) for s in shape))


def render_svg(root: int, nodes: list[dict]) -> str:
    pos, nw, width, height = layout(root, nodes)
    # natural size where it fits, scaled down to 70% at most, then the figure scrolls
    parts = [f'<svg class="ldr-plot ldr-graph" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
             f'style="max-width:{width:.0f}px;min-width:{0.7 * width:.0f}px" '
             f'aria-label="Autograd graph of {len(nodes)} nodes, '
             'from the loss at the top to the leaves at the bottom">']
    for n in nodes:
        x, y = pos[n["id"]]
        for nxt in n.get("next") or []:
            x2, y2 = pos[nxt]
            parts.append(f'<line class="ldr-edge" data-from="{n["id"]}" data-to="{nxt}" x1="{x + nw / 2:.1f}" '
                         f'y1="{y + NODE_H:.1f}" x2="{x2 + nw / 2:.1f}" y2="{y2:.1f}"/>')
    for i, n in enumerate(nodes):
        x, y = pos[n["id"]]
        kind = " ldr-node--leaf" if n.get("variable") else ""
        saved = len(kept(n))
        parts.append(
            f'<g class="ldr-mark ldr-node{kind}" data-i="{i}" data-id="{n["id"]}">'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{nw:.1f}" height="{NODE_H}" rx="5"/>'
            f'<text x="{x + nw / 2:.1f}" y="{y + NODE_H / 2 + 4:.1f}" text-anchor="middle">{esc(n["name"])}</text>'
            + (f'<circle class="ldr-node__saved" cx="{x + nw - 6:.1f}" cy="{y + 6:.1f}" r="3.5"><title>'
               f'{saved} saved</title></circle>' if saved else "")
            + '</g>')
    parts.append("</svg>")
    return skip_offscreen("".join(parts))  # drawn when on screen, as tall (drawing/offscreen.py)


def is_empty(slot: dict) -> bool:
    """A saved slot autograd left empty (e.g. a weight's input when no gradient needs it)."""
    return bool(slot.get("empty")) or slot.get("shape") is None


def kept(node: dict) -> list[dict]:
    return [s for s in node.get("saved") or [] if not is_empty(s)]


def describe(node: dict, names: dict[int, str]) -> str:
    saved = kept(node)
    items = "".join(
        f'<li><code>{esc(str(s.get("name", "?")))}</code> '
        + ("empty, not saved here" if is_empty(s) else
           f'{esc(shape_text(s.get("shape")))}{" " + esc(str(s["dtype"])) if s.get("dtype") else ""}')
        + "</li>" for s in node.get("saved") or [])
    var = node.get("variable")
    leaf = (f'<p>Accumulates into leaf <code>{esc(str(var.get("name", "?")))}</code> '
            f'({esc(shape_text(var.get("shape")))}).</p>') if isinstance(var, dict) else ""
    nxt = ", ".join(esc(names[n]) for n in node.get("next") or []) or "nothing: a leaf"
    return (f'{leaf}<p>Saved for backward: {count(len(saved), "tensor")}</p>'
            f'{"<ul>" + items + "</ul>" if items else ""}<p>Passes gradients to: {nxt}</p>')


def render_list(nodes: list[dict]) -> str:
    names = {n["id"]: n["name"] for n in nodes}
    rows = "".join(f'<li><strong>{esc(n["name"])}</strong>{describe(n, names)}</li>' for n in nodes)
    return (f'<details class="ldr-instrument__table"><summary>Every node, from the loss down</summary>'
            f'<ol class="ldr-walker__list">{rows}</ol></details>')


def render_controls(nodes: int) -> str:
    return ('<div class="ldr-controls" hidden><div class="ldr-buttons" role="group" aria-label="Walk the graph">'
            '<button type="button" class="ldr-button" data-step="first">Loss</button>'
            '<button type="button" class="ldr-button" data-step="prev">Back</button>'
            '<button type="button" class="ldr-button" data-step="next">Next node</button>'
            '<button type="button" class="ldr-button" data-step="last">Leaves</button></div>'
            f'<p class="ldr-walker__hint">Step through {count(nodes, "node")} with the buttons, or the arrow keys, '
            'Home and End.</p>'
            '<div class="ldr-readout ldr-walker__node" aria-live="polite">'
            '<p class="ldr-walker__where"><output data-key="step"></output> · <output data-key="name"></output></p>'
            '<div class="ldr-walker__detail"></div></div></div>')


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    root, nodes = _nodes(record.data, proof_name)
    loss = record.data.get("LOSS")
    if not isinstance(loss, dict):
        loss = {}
    lead = ('<p class="ldr-instrument__lead">The loss '
            f'({esc(fmt(float(loss["value"]), 4)) if isinstance(loss.get("value"), (int, float)) else "?"}) '
            f'hangs from <code>{esc(str(loss.get("grad_fn", nodes[0]["name"])))}</code>: {count(len(nodes), "node")}, '
            f'{count(sum(len(kept(n)) for n in nodes), "saved tensor")}. Backward walks them top to bottom.</p>')
    body = (lead + f'<figure class="ldr-figure ldr-figure--scroll">{render_svg(root, nodes)}</figure>'
            + render_controls(len(nodes)) + render_list(nodes))
    return instrument_root("graph-walker", record, body, title="Graph walker: what backward will visit", ctx=ctx,
                           reads=READS)
