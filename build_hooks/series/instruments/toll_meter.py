"""Toll meter: what one operation costs as its size grows, from the ``dispatch_cost`` proof.

Log-log cost per op (microseconds) against elements per op, one mark per sweep point. The
reader moves across sizes and reads the cost, the share that is fixed machinery
(``min(1, small_us / us)``) and operations per second (``1e6 / us``).
"""

from __future__ import annotations

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.drawing.offscreen import skip_offscreen
from build_hooks.series.instruments._common import (
    count,
    esc,
    fmt,
    group,
    instrument_root,
    log_scale,
    need,
    need_rows,
    nice_decades,
    num,
    primary,
)

DEFAULT_PROOF = "dispatch_cost"
W, H = 480, 284
LEFT, RIGHT, TOP, BOTTOM = 48, 14, 34, 44


# The record's keys theme/assets/js/toll-meter.js reads (rec.data.KEY); only these are embedded.
READS: tuple[str, ...] = ("TOLL", "SWEEP")


def size_label(n: int) -> str:
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return f"{n:,}"


def derived(small_us: float, us: float) -> dict:
    """What the readout shows for one point."""
    return {"us": us, "fixed_share": min(1.0, small_us / us), "ops_per_s": 1e6 / us}


def _points(data: dict, proof: str) -> tuple[dict, list[dict]]:
    toll = need(data, "TOLL", dict, proof)
    sweep = need_rows(data, "SWEEP", proof)
    points = []
    for i, row in enumerate(sweep):
        numel, us = num(row, "numel", proof, f"SWEEP[{i}]"), num(row, "us", proof, f"SWEEP[{i}]")
        if numel <= 0 or us <= 0:
            raise DirectiveError(f"proof {proof!r}: SWEEP[{i}] needs positive numel and us")
        points.append({"numel": int(numel), "us": us})
    num(toll, "small_us", proof, "TOLL")
    return toll, points


def render_svg(toll: dict, points: list[dict]) -> str:
    xs = [p["numel"] for p in points]
    ys = [p["us"] for p in points] + [toll["small_us"]]
    decades = nice_decades(min(ys), max(ys))
    x = log_scale(min(xs), max(max(xs), min(xs) * 4), LEFT, W - RIGHT)
    y = log_scale(decades[0], decades[-1], H - BOTTOM, TOP)
    parts = [f'<svg class="ldr-plot" viewBox="0 0 {W} {H}" role="img" '
             f'aria-label="Cost per operation in microseconds against elements per operation, both on log scales">']
    for d in decades:
        yy = y(d)
        # a decade is exact: 1, 10, 1,000
        parts.append(f'<line class="ldr-grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}"/>'
                     f'<text class="ldr-tick" x="{LEFT - 6}" y="{yy + 4:.1f}" text-anchor="end">{esc(group(d))}</text>')
    for n in xs:
        xx = x(n)
        parts.append(f'<line class="ldr-tickmark" x1="{xx:.1f}" x2="{xx:.1f}" '
                     f'y1="{H - BOTTOM}" y2="{H - BOTTOM + 4}"/>')
        if n == xs[0] or n == xs[-1] or n in (16, 256, 4096, 65536, 1 << 20):
            parts.append(f'<text class="ldr-tick" x="{xx:.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">'
                         f'{size_label(n)}</text>')
    parts.append(f'<line class="ldr-axis" x1="{LEFT}" x2="{W - RIGHT}" y1="{H - BOTTOM}" y2="{H - BOTTOM}"/>'
                 f'<line class="ldr-axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{H - BOTTOM}"/>'
                 f'<text class="ldr-axis-label" x="{(LEFT + W - RIGHT) / 2:.0f}" y="{H - 8}" '
                 'text-anchor="middle">elements per operation (log scale)</text>'
                 f'<text class="ldr-axis-label" x="4" y="{TOP - 12}">µs per operation (log scale)</text>')
    fy = y(toll["small_us"])
    parts.append(f'<line class="ldr-implied" x1="{LEFT}" x2="{W - RIGHT}" y1="{fy:.1f}" y2="{fy:.1f}"/>'
                 f'<text class="ldr-note" x="{LEFT + 6}" y="{fy - 6:.1f}">fixed toll '
                 f'{esc(fmt(toll["small_us"]))} µs</text>')
    path = " ".join(f"{'M' if i == 0 else 'L'}{x(p['numel']):.1f},{y(p['us']):.1f}" for i, p in enumerate(points))
    parts.append(f'<path class="ldr-trace" d="{path}"/>')
    for i, p in enumerate(points):
        parts.append(f'<circle class="ldr-mark" data-i="{i}" cx="{x(p["numel"]):.1f}" cy="{y(p["us"]):.1f}" r="4.5">'
                     f'<title>{count(p["numel"], "element")}: {esc(fmt(p["us"]))} µs</title></circle>')
    parts.append(f'<line class="ldr-cursor" x1="0" x2="0" y1="{TOP}" y2="{H - BOTTOM}" visibility="hidden"/></svg>')
    return skip_offscreen("".join(parts))  # drawn when on screen, as tall (drawing/offscreen.py)


def render_table(toll: dict, points: list[dict]) -> str:
    rows = []
    for p in points:
        d = derived(toll["small_us"], p["us"])
        rows.append(f'<tr><td>{p["numel"]:,}</td><td>{esc(fmt(d["us"]))}</td>'
                    f'<td>{esc(fmt(d["fixed_share"] * 100))}%</td><td>{esc(fmt(d["ops_per_s"]))}</td></tr>')
    return ('<details class="ldr-instrument__table"><summary>Every measured size</summary><table>'
            '<thead><tr><th>elements</th><th>µs per op</th><th>fixed machinery</th><th>ops per second</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></details>')


def render_controls(points: list[dict]) -> str:
    last = len(points) - 1
    return (
        '<div class="ldr-controls" hidden>'
        '<label class="ldr-controls__label">Elements per operation <input class="ldr-slider" type="range" min="0" '
        f'max="{last}" step="1" value="0"></label>'
        '<dl class="ldr-readout" aria-live="polite">'
        '<div><dt>elements</dt><dd><output data-key="numel"></output></dd></div>'
        '<div><dt>cost per op</dt><dd><output data-key="us"></output> µs</dd></div>'
        '<div><dt>fixed machinery</dt><dd><output data-key="fixed_share"></output></dd></div>'
        '<div><dt>ops per second</dt><dd><output data-key="ops_per_s"></output></dd></div>'
        '</dl></div>'
    )


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    toll, points = _points(record.data, proof_name)
    small, large = toll["small_us"], num(toll, "large_us", proof_name, "TOLL")
    lead = (f'<p class="ldr-instrument__lead">One <code>{esc(str(toll.get("op", "op")))}</code> on '
            f'{count(int(toll.get("small_numel", 1)), "element")} costs <strong class="ldr-subject-text">'
            f'{esc(fmt(small))} µs</strong>; '
            f'on {count(int(toll.get("large_numel", points[-1]["numel"])), "element")} it costs {esc(fmt(large))} µs. '
            f'Below the knee the price is the toll, not the arithmetic.</p>')
    body = (lead + f'<figure class="ldr-figure">{render_svg(toll, points)}</figure>'
            + render_controls(points) + render_table(toll, points))
    return instrument_root("toll-meter", record, body, title="Toll meter: the fixed price of one operation", ctx=ctx,
                           reads=READS)
