"""Library sizes: the compiled files that hold PyTorch's code, from ``where_code_lives``.

The point of the chart is the tiny ``_C`` extension Python imports against the libraries it
brings in. Where the proof knows what ``import torch`` mapped (``loaded`` on each file), the
chart shows the extension first, then every loaded library by size, and folds the files that
are shipped but never loaded (test and example libraries) into one grey row. Without that
knowledge it shows one bar per file, as recorded.
"""

from __future__ import annotations

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.drawing.offscreen import skip_offscreen
from build_hooks.series.instruments._common import (
    count,
    esc,
    instrument_root,
    need,
    need_rows,
    num,
    plural,
    primary,
    size,
)

DEFAULT_PROOF = "where_code_lives"
W, ROW, PAD, RIGHT = 480, 38, 4, 80


# The record's keys theme/assets/js/library-sizes.js reads: none (it reads the rows below).
READS: tuple[str, ...] = ()


def human_bytes(n: float) -> str:
    """A file's size as the chart and the lead show it (the site's rule: render/numbers.py)."""
    return size(n)


def _files(data: dict, proof: str) -> tuple[dict, list[dict]]:
    libs = need(data, "LIBRARIES", dict, proof)
    files = need_rows(libs, "files", proof, "LIBRARIES.files")
    out = []
    for i, f in enumerate(files):
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            raise DirectiveError(f"proof {proof!r}: LIBRARIES.files[{i}] needs a name")
        out.append({"name": f["name"], "bytes": num(f, "bytes", proof, f"files[{i}]"),
                    "folder": str(f.get("folder", "")), "loaded": f.get("loaded")})
    return libs, out


def chart_rows(files: list[dict], extension: str | None) -> list[dict]:
    """The rows the chart draws: the extension, the loaded libraries, the rest folded in one."""
    if not any(f["loaded"] is True for f in files):
        return [dict(f, kind="file") for f in files]
    stub = [f for f in files if f["name"] == extension]
    loaded = [f for f in files if f["loaded"] is True and f["name"] != extension]
    rest = [f for f in files if f["loaded"] is not True and f["name"] != extension]
    rows = [dict(f, kind="stub") for f in stub]
    rows += [dict(f, kind="file") for f in sorted(loaded, key=lambda f: -f["bytes"])]
    if rest:
        rows.append({"name": f"{count(len(rest), 'other file')}, not loaded",
                     "folder": "shipped, not loaded by import torch", "loaded": False, "kind": "rest",
                     "bytes": float(sum(f["bytes"] for f in rest)),
                     "members": [f["name"] for f in rest]})
    return rows


def render_svg(files: list[dict]) -> str:
    """One row per file: its name, then a bar as long as its share of the largest, then its size."""
    top = max(f["bytes"] for f in files) or 1.0
    span = W - PAD - RIGHT
    h = PAD * 2 + ROW * len(files)
    # A picture (role img) until the script makes each row a button: then the script turns the
    # svg into a group (a button inside an img is nested interactive), and a row's accessible
    # name is its visible text (name, size). A row's folder and exact bytes are the readout's,
    # from the embedded record (and the card's output), not a hover title repeating them.
    parts = [f'<svg class="ldr-plot" viewBox="0 0 {W} {h}" role="img" aria-label="Size of each compiled library file">']
    for i, f in enumerate(files):
        y = PAD + i * ROW
        bw = max(1.5, f["bytes"] / top * span)
        kind = f.get("kind", "file")
        # the space between the two texts keeps name and size apart in the row's text content; an
        # unseen rectangle makes the whole row the target (24 px tall or more on a phone), not
        # only its ink
        parts.append(
            f'<g class="ldr-mark ldr-mark--{kind}">'
            f'<rect class="ldr-row-target" y="{y}" width="{W}" height="{ROW}" fill="transparent"/>'
            f'<text class="ldr-row-label" x="{PAD}" y="{y + 14}">{esc(f["name"])}</text> '
            f'<rect class="ldr-bar" x="{PAD}" y="{y + 19}" width="{bw:.1f}" height="12"/>'
            f'<text class="ldr-value" x="{PAD + bw + 5:.1f}" y="{y + 29.5:.1f}">{esc(human_bytes(f["bytes"]))}</text>'
            '</g>')
    parts.append("</svg>")
    return skip_offscreen("".join(parts))  # drawn when on screen, as tall (drawing/offscreen.py)


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    libs, files = _files(record.data, proof_name)
    total = libs.get("total_bytes")
    total = float(total) if isinstance(total, (int, float)) else sum(f["bytes"] for f in files)
    system, suffix = str(libs.get("system", "?")), str(libs.get("suffix", ""))
    extension = record.data.get("EXTENSION", {}).get("name") if isinstance(record.data.get("EXTENSION"), dict) else None
    rows = chart_rows(files, extension)
    loaded = [f for f in files if f["loaded"] is True]
    if loaded:
        stub = next((f for f in files if f["name"] == extension), None)
        lead = (f'<p class="ldr-instrument__lead">On {esc(system)}, <code>import torch</code> loads '
                f'{len(loaded)} compiled <code>{esc(suffix)}</code> {plural(len(loaded), "file")}, '
                f'<strong class="ldr-subject-text">{esc(human_bytes(sum(f["bytes"] for f in loaded)))}</strong>. '
                + (f'The extension Python imports, <code>{esc(stub["name"])}</code>, is '
                   f'{esc(human_bytes(stub["bytes"]))} of it: a door into the rest.' if stub else "")
                + '</p>')
    else:
        lead = (f'<p class="ldr-instrument__lead">On {esc(system)}, PyTorch ships {len(files)} compiled '
                f'<code>{esc(suffix)}</code> {plural(len(files), "file")}, <strong class="ldr-subject-text">'
                f'{esc(human_bytes(total))}</strong> in all. '
                f'The Python you import is a thin layer over them.</p>')
    controls = ('<div class="ldr-controls" hidden><p class="ldr-walker__hint">Choose a file (arrow keys move) to read '
                'its exact size.</p>'
                '<dl class="ldr-readout" aria-live="polite">'
                '<div><dt>file</dt><dd><output data-key="name"></output></dd></div>'
                '<div><dt>folder</dt><dd><output data-key="folder"></output></dd></div>'
                '<div><dt>bytes</dt><dd><output data-key="bytes"></output></dd></div>'
                '<div><dt>share of all</dt><dd><output data-key="share"></output></dd></div></dl></div>')
    body = lead + f'<figure class="ldr-figure">{render_svg(rows)}</figure>' + controls
    return instrument_root("library-sizes", record, body, title="Where the code lives: compiled library sizes", ctx=ctx,
                           reads=READS,
                           # a row as the script reads it (the chart drew the rest)
                           extra={"total_bytes": total,
                                  "rows": [{key: row[key] for key in ("name", "folder", "bytes")} for row in rows]})
