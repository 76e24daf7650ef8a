"""The reading-lines map on the home page: a metro strip map drawn at build time.

``data/reading-lines.yml`` lists the twelve parts (stations) and three reading lines with
their stops. Parts run top to bottom; each line is a vertical track on its own lane; a line stops
where it has a station dot; a part where lines meet is an interchange. Stations link to parts.

Station links use ``xlink:href``: mkdocs-material's instant navigation rewrites every ``[href]``
by assigning ``el.href``, which throws on SVG anchors (their ``href`` is read-only).
"""

from __future__ import annotations

import functools
import html as _html
from pathlib import Path

from build_hooks.core.cache import file_stamp
from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.series.pagetheme import read_data

LINES_FILE = Path("data") / "reading-lines.yml"


@functools.lru_cache(maxsize=4)
def _parse(path: str, stamp: tuple | None):
    """The lines file, parsed once per change (read-only: callers must not modify it)."""
    return read_data(Path(path), LINES_FILE.as_posix())
LANE_X0, LANE_GAP, TOP, ROW, LABEL_GAP = 22, 24, 18, 38, 22
esc = _html.escape


def load_lines(root: Path) -> dict:
    path = Path(root) / LINES_FILE
    try:
        doc = _parse(str(path), file_stamp(path))
    except DirectiveError as exc:
        raise DirectiveError(f"reading-lines: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("parts"), list) or not isinstance(doc.get("lines"), list):
        raise DirectiveError(f"reading-lines: {path} needs 'parts' and 'lines' lists")
    parts = {p["n"]: p for p in doc["parts"] if isinstance(p, dict) and "n" in p}
    for line in doc["lines"]:
        missing = [s for s in line.get("stops") or [] if s not in parts]
        if not line.get("stops") or missing:
            raise DirectiveError(f"reading-lines: line {line.get('id')!r} stops at unknown parts {missing or '(none)'}")
    return doc


def render_map(doc: dict, link) -> str:
    parts = sorted(doc["parts"], key=lambda p: p["n"])
    lines = doc["lines"]
    row_of = {p["n"]: i for i, p in enumerate(parts)}
    lane_x = [LANE_X0 + i * LANE_GAP for i in range(len(lines))]
    label_x = lane_x[-1] + LABEL_GAP
    width, height = label_x + 250, TOP * 2 + ROW * (len(parts) - 1)
    sy = lambda n: TOP + row_of[n] * ROW  # noqa: E731
    out = [f'<svg class="ldr-metro__map" viewBox="0 0 {width} {height}" role="group" '
           f'style="max-width:{width * 1.15:.0f}px" '
           f'aria-label="Reading lines through the {len(parts)} parts">']
    for i, line in enumerate(lines):  # tracks
        ys = [sy(s) for s in line["stops"]]
        out.append(f'<line class="ldr-metro__track ldr-metro--{esc(str(line.get("colour", f"line-{i + 1}")))}" '
                   f'data-line="{esc(str(line["id"]))}" x1="{lane_x[i]}" x2="{lane_x[i]}" y1="{min(ys)}" '
                   f'y2="{max(ys)}"/>')
    for p in parts:
        n, y = p["n"], sy(p["n"])
        serving = [i for i, line in enumerate(lines) if n in line["stops"]]
        marks = ""
        if len(serving) > 1:
            x0, x1 = lane_x[min(serving)], lane_x[max(serving)]
            marks = (f'<rect class="ldr-metro__interchange" x="{x0 - 8}" y="{y - 8}" width="{x1 - x0 + 16}" '
                     'height="16" rx="8"/>')
        marks += "".join(f'<circle class="ldr-metro__stop" cx="{lane_x[i]}" cy="{y}" r="4.5"/>' for i in serving)
        names = ", ".join(str(lines[i]["name"]) for i in serving) or "no reading line"
        out.append(
            f'<a class="ldr-metro__station" xlink:href="{esc(link(p["page"]), quote=True)}" data-part="{n}">'
            f'<title>Part {n}: {esc(str(p["title"]))}. On {esc(names)}.</title>{marks}'
            f'<text x="{label_x}" y="{y + 5}"><tspan class="ldr-metro__num">'
            f'{n:02d}</tspan> {esc(str(p["title"]))}</text></a>')
    out.append("</svg>")
    return "".join(out)


def render_legend(doc: dict) -> str:
    titles = {p["n"]: p["title"] for p in doc["parts"]}
    items = []
    for i, line in enumerate(doc["lines"]):
        stops = " → ".join(f"{s:02d} {titles[s]}" for s in line["stops"])
        items.append(f'<li class="ldr-metro--{esc(str(line.get("colour", f"line-{i + 1}")))}" '
                     f'data-line="{esc(str(line["id"]))}">'
                     '<span class="ldr-metro__swatch" aria-hidden="true"></span><strong>'
                     f'{esc(str(line["name"]))}</strong> '
                     f'<span class="ldr-metro__for">{esc(str(line.get("for", "")))}</span>'
                     f'<span class="ldr-sr-only"> Stops: {esc(stops)}.</span></li>')
    return f'<ul class="ldr-metro__legend">{"".join(items)}</ul>'


def render_fence(options: dict, ctx: Context) -> str:
    if options and set(options) - {"arg"}:
        raise DirectiveError(f"reading-lines takes no options, got {sorted(options)}")
    doc = load_lines(ctx.root)
    return (f'<figure class="ldr-metro">{render_legend(doc)}{render_map(doc, ctx.site_path)}'
            '<figcaption>Three ways through the series. Pick the line that matches why you came; '
            'every station is a part you can open.</figcaption></figure>')
