"""Two clocks: Python's clock and the device's, from the ``two_clocks`` proof.

One row per way of reading the result (never, at the end, every step): when Python got control
back and when the device finished. With only a CPU record there is one clock: the instrument then
shows one training step on that clock, phase by phase (``PHASES``), with the read of the loss as
the sliver it is where nothing is queued.
"""

from __future__ import annotations

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.drawing.offscreen import skip_offscreen
from build_hooks.series.instruments._common import attr, count, esc, fmt, instrument_root, need, need_rows, num, primary

DEFAULT_PROOF = "two_clocks"
MODE_LABELS = {"never": "never read", "end": "read once at the end", "every_step": "read every step"}
W, LEFT, RIGHT, TOP = 480, 6, 64, 30


# The record's keys theme/assets/js/two-clocks.js reads (rec.data.KEY); only these are embedded.
READS: tuple[str, ...] = ("READS",)


def _reads(data: dict, proof: str) -> list[dict]:
    reads = need_rows(data, "READS", proof)
    out = []
    for i, row in enumerate(reads):
        if not isinstance(row, dict) or not isinstance(row.get("mode"), str):
            raise DirectiveError(f"proof {proof!r}: READS[{i}] needs a mode")
        out.append({"mode": row["mode"], "python_ms": num(row, "python_ms", proof, f"READS[{i}]"),
                    "done_ms": num(row, "done_ms", proof, f"READS[{i}]")})
    return out


def render_svg(reads: list[dict], two: bool) -> str:
    """One row per way of reading: its label on top, then the Python bar and the device bar."""
    top = max(max(r["python_ms"], r["done_ms"] if two else 0) for r in reads) or 1.0
    span = W - LEFT - RIGHT
    sx = lambda v: LEFT + v / top * span  # noqa: E731
    lane = 14 if two else 18
    row = 24 + lane * (2 if two else 1) + 14
    h = TOP + row * len(reads) + 18
    parts = [f'<svg class="ldr-plot" viewBox="0 0 {W} {h}" role="img" aria-label="'
             + ("When Python got control back and when the device finished, for each way of reading"
                if two else "When Python got control back, for each way of reading: one clock") + '">']
    parts.append(f'<line class="ldr-axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP - 4}" y2="{h - 18}"/>'
                 f'<text class="ldr-tick" x="{LEFT}" y="{h - 4}" text-anchor="start">0 ms</text>'
                 f'<text class="ldr-tick" x="{sx(top):.1f}" y="{h - 4}" text-anchor="end">{esc(fmt(top))} ms</text>')
    if two:
        parts.append(f'<rect class="ldr-bar--python" x="{LEFT}" y="{TOP - 19}" width="10" height="10"/>'
                     f'<text class="ldr-legend ldr-legend--python" x="{LEFT + 14}" y="{TOP - 10}">Python clock</text>'
                     f'<rect class="ldr-bar--device" x="{LEFT + 150}" y="{TOP - 19}" width="10" height="10"/>'
                     f'<text class="ldr-legend ldr-legend--device" x="{LEFT + 164}" y="{TOP - 10}">device clock</text>')
    for i, r in enumerate(reads):
        y0 = TOP + i * row
        label = MODE_LABELS.get(r["mode"], r["mode"].replace("_", " "))
        yp = y0 + 22
        py = (f'<rect class="ldr-bar ldr-bar--python" x="{LEFT}" y="{yp}" '
              f'width="{max(1.5, sx(r["python_ms"]) - LEFT):.1f}" height="{lane}"/>'
              f'<text class="ldr-value" x="{sx(r["python_ms"]) + 5:.1f}" y="{yp + lane * 0.75:.1f}">'
              f'{esc(fmt(r["python_ms"]))} ms</text>')
        dev = ""
        if two:
            yd = yp + lane + 3
            dev = (f'<rect class="ldr-bar ldr-bar--device" x="{LEFT}" y="{yd}" '
                   f'width="{max(1.5, sx(r["done_ms"]) - LEFT):.1f}" height="{lane}"/>'
                   f'<text class="ldr-value" x="{sx(r["done_ms"]) + 5:.1f}" y="{yd + lane * 0.75:.1f}">'
                   f'{esc(fmt(r["done_ms"]))} ms</text>')
            if r["python_ms"] < r["done_ms"]:  # where Python got control back, the device still busy
                dev += (f'<line class="ldr-implied" x1="{sx(r["python_ms"]):.1f}" x2="{sx(r["python_ms"]):.1f}" '
                        f'y1="{yp - 2}" y2="{yd + lane + 2}"/>')
        parts.append(f'<g class="ldr-mark" data-i="{i}" data-mode="{attr(r["mode"])}">'
                     f'<text class="ldr-row-label" x="{LEFT}" y="{y0 + 14}">{esc(label)}</text>{py}{dev}</g>')
    parts.append("</svg>")
    return skip_offscreen("".join(parts))  # drawn when on screen, as tall (drawing/offscreen.py)


def _phases(data: dict, proof: str) -> dict | None:
    phases = data.get("PHASES")
    if phases is None:
        return None
    if not isinstance(phases, dict):
        raise DirectiveError(f"proof {proof!r}: PHASES must be a mapping with a list of phases")
    rows = need_rows(phases, "phases", proof, "PHASES.phases")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("phase"), str):
            raise DirectiveError(f"proof {proof!r}: PHASES.phases[{i}] needs a phase name")
        out.append({"phase": row["phase"], "ms": num(row, "ms", proof, f"PHASES.phases[{i}]")})
    return {"phases": out, "step_ms": sum(r["ms"] for r in out)}


def us(ms: float) -> str:
    return f"{fmt(ms * 1000)} µs"


def render_step_svg(phases: list[dict]) -> str:
    """One CPU training step as a single timeline: each phase ends before the next begins,
    and the read of the loss is the sliver at the end (the subject)."""
    step = sum(p["ms"] for p in phases) or 1.0
    span = W - LEFT - 8
    y, bar = 16, 22

    def label_y(i: int) -> int:  # phase i's name; its value is a line (13) below
        return y + bar + 22 + 30 * i

    h = label_y(len(phases) - 1) + 13 + 6  # down to the last value's baseline, and its descenders
    parts = [f'<svg class="ldr-plot" viewBox="0 0 {W} {h}" role="img" aria-label="One training step on the CPU, '
             'phase by phase on a single clock: forward, backward, optimizer step and the read of the loss">']
    x = LEFT
    for i, p in enumerate(phases):
        w = max(1.5, p["ms"] / step * span)
        read = i == len(phases) - 1
        cls = "ldr-bar ldr-bar--device" if read else ("ldr-bar ldr-bar--python" if i % 2 else "ldr-bar")
        ly = label_y(i)
        # labels start under their segment; the last one (the read, at the far right) ends there
        late = read or x - LEFT > 0.6 * span  # a label starting late would run off the right edge
        lx, anchor = (x + w - 2, "end") if late else (x + 2, "start")
        parts.append(
            f'<g class="ldr-mark" data-i="{i}"><rect class="{cls}" x="{x:.1f}" y="{y}" width="{max(1.5, w - 2):.1f}" '
            f'height="{bar}"/><line class="ldr-implied" x1="{lx:.1f}" x2="{lx:.1f}" '
            f'y1="{y + bar + 2}" y2="{ly - 12}"/>'
            f'<text class="ldr-row-label" x="{lx:.1f}" y="{ly}" text-anchor="{anchor}">{esc(p["phase"])}</text>'
            f'<text class="ldr-value" x="{lx:.1f}" y="{ly + 13}" text-anchor="{anchor}">{esc(us(p["ms"]))}</text></g>')
        x += w
    parts.append("</svg>")
    return skip_offscreen("".join(parts))  # drawn when on screen, as tall (drawing/offscreen.py)


def render_step_controls(phases: list[dict]) -> str:
    buttons = "".join(
        f'<button type="button" class="ldr-button" data-i="{i}" aria-pressed="{"true" if i == 0 else "false"}">'
        f'{esc(p["phase"])}</button>' for i, p in enumerate(phases))
    return ('<div class="ldr-controls" hidden><div class="ldr-buttons" role="group" aria-label="Phase of the step">'
            f'{buttons}</div>'
            '<dl class="ldr-readout" aria-live="polite">'
            '<div><dt>phase</dt><dd><output data-key="phase"></output></dd></div>'
            '<div><dt>time</dt><dd><output data-key="us"></output> µs</dd></div>'
            '<div><dt>share of the step</dt><dd><output data-key="share"></output></dd></div></dl></div>')


def render_controls(reads: list[dict], two: bool) -> str:
    buttons = "".join(
        f'<button type="button" class="ldr-button" data-i="{i}" aria-pressed="{"true" if i == 0 else "false"}">'
        f'{esc(MODE_LABELS.get(r["mode"], r["mode"]))}</button>' for i, r in enumerate(reads))
    device = ('<div><dt>device finished</dt><dd><output data-key="done_ms"></output> ms</dd></div>'
              '<div><dt>Python free</dt><dd><output data-key="free_ms"></output> ms</dd></div>') if two else ""
    return ('<div class="ldr-controls" hidden><div class="ldr-buttons" role="group" '
            f'aria-label="How the result is read">{buttons}</div>'
            '<dl class="ldr-readout" aria-live="polite">'
            '<div><dt>Python got control back</dt><dd><output data-key="python_ms"></output> ms</dd></div>'
            f'{device}</dl></div>')


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    records = ctx.records(proof_name)
    two = any(k in records for k in ("cuda", "mps")) and record.provenance.device_class != "cpu"
    clocks = need(record.data, "CLOCKS", dict, proof_name)
    reads = _reads(record.data, proof_name)
    steps = record.data.get("STEPS")
    if two:
        lead = ('<p class="ldr-instrument__lead">Python queued '
                f'{count(int(num(clocks, "ops", proof_name, "CLOCKS")), "operation")} in '
                f'{esc(fmt(num(clocks, "queued_ms", proof_name, "CLOCKS")))} ms; the '
                f'{esc(str(clocks.get("device", "device")))} '
                'finished them at <strong class="ldr-subject-text">'
                f'{esc(fmt(num(clocks, "done_ms", proof_name, "CLOCKS")))} ms</strong>. '
                f'Python was free {esc(fmt(num(clocks, "python_free_pct", proof_name, "CLOCKS")))}% of the time, '
                'until it read a result.</p>')
    step = None if two else _phases(record.data, proof_name)
    if two:
        figure = render_svg(reads, two)
        controls = render_controls(reads, two)
    elif step is not None:
        read = step["phases"][-1]
        lead = ('<p class="ldr-instrument__lead ldr-instrument__note">Only a CPU record exists for this proof, '
                'and a CPU has one clock: each call returns when its work is done. '
                'So here is one training step on that single '
                f'clock, phase by phase. Reading the loss (<code>{esc(read["phase"])}</code>) costs '
                f'<strong class="ldr-subject-text">{esc(us(read["ms"]))}</strong> of a '
                f'{esc(us(step["step_ms"]))} step, '
                'because there is no queue to wait for. On a GPU the same read waits until every kernel queued before '
                'it has run; a record from a GPU machine turns this panel into two clocks.</p>')
        figure = render_step_svg(step["phases"])
        controls = render_step_controls(step["phases"])
    else:
        lead = ('<p class="ldr-instrument__lead ldr-instrument__note">Only a CPU record exists for this proof. '
                'On the CPU, Python and the kernels share one clock: each call returns when its work is done, '
                'so there is a single timeline below. A record from a GPU machine shows the two clocks apart.</p>')
        figure = render_svg(reads, two)
        controls = render_controls(reads, two)
    if isinstance(steps, int) and (two or step is None):
        lead += f'<p class="ldr-instrument__sub">{count(steps, "training step")} per run.</p>'
    body = lead + f'<figure class="ldr-figure">{figure}</figure>' + controls
    extra = {"clocks": 2 if two else 1, "view": "step" if step is not None else "reads"}
    if step is not None:
        extra["phases"] = step["phases"]
        extra["step_ms"] = step["step_ms"]
    return instrument_root("two-clocks", record, body,
                           title="Two clocks: when Python is free and when the work is done", ctx=ctx,
                           reads=READS, extra=extra)
