"""Library sizes: the compiled files that hold PyTorch's code, from ``where_code_lives``.

One bar per file (sorted by size, as recorded), for the platform the proof measured.
"""

from __future__ import annotations

from ..context import Context
from ..errors import DirectiveError
from ._common import esc, instrument_root, need, need_rows, num, primary

DEFAULT_PROOF = "where_code_lives"
W, ROW, PAD, RIGHT = 480, 38, 4, 64


def human_bytes(n: float) -> str:
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= div:
            v = n / div
            return f"{v:.1f} {unit}" if v < 100 else f"{v:.0f} {unit}"
    return f"{int(n)} B"


def _files(data: dict, proof: str) -> tuple[dict, list[dict]]:
    libs = need(data, "LIBRARIES", dict, proof)
    files = need_rows(libs, "files", proof, "LIBRARIES.files")
    out = []
    for i, f in enumerate(files):
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            raise DirectiveError(f"proof {proof!r}: LIBRARIES.files[{i}] needs a name")
        out.append({"name": f["name"], "bytes": num(f, "bytes", proof, f"files[{i}]"), "folder": str(f.get("folder", ""))})
    return libs, out


def render_svg(files: list[dict]) -> str:
    """One row per file: its name, then a bar as long as its share of the largest, then its size."""
    top = max(f["bytes"] for f in files) or 1.0
    span = W - PAD - RIGHT
    h = PAD * 2 + ROW * len(files)
    parts = [f'<svg class="ldr-plot" viewBox="0 0 {W} {h}" role="img" aria-label="Size of each compiled library file">']
    for i, f in enumerate(files):
        y = PAD + i * ROW
        bw = max(1.5, f["bytes"] / top * span)
        parts.append(
            f'<g class="ldr-mark" data-i="{i}"><title>{esc(f["folder"])}/{esc(f["name"])}: {int(f["bytes"]):,} bytes</title>'
            f'<text class="ldr-row-label" x="{PAD}" y="{y + 14}">{esc(f["name"])}</text>'
            f'<rect class="ldr-bar" x="{PAD}" y="{y + 19}" width="{bw:.1f}" height="12"/>'
            f'<text class="ldr-value" x="{PAD + bw + 5:.1f}" y="{y + 29.5:.1f}">{esc(human_bytes(f["bytes"]))}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    libs, files = _files(record.data, proof_name)
    total = libs.get("total_bytes")
    total = float(total) if isinstance(total, (int, float)) else sum(f["bytes"] for f in files)
    system, suffix = str(libs.get("system", "?")), str(libs.get("suffix", ""))
    lead = (f'<p class="ldr-instrument__lead">On {esc(system)}, PyTorch ships {len(files)} compiled '
            f'<code>{esc(suffix)}</code> files, <strong class="ldr-subject-text">{esc(human_bytes(total))}</strong> in all. '
            f'The Python you import is a thin layer over them.</p>')
    controls = ('<div class="ldr-controls" hidden><p class="ldr-walker__hint">Choose a file (arrow keys move) to read its exact size.</p>'
                '<dl class="ldr-readout" aria-live="polite">'
                '<div><dt>file</dt><dd><output data-key="name"></output></dd></div>'
                '<div><dt>folder</dt><dd><output data-key="folder"></output></dd></div>'
                '<div><dt>bytes</dt><dd><output data-key="bytes"></output></dd></div>'
                '<div><dt>share of all</dt><dd><output data-key="share"></output></dd></div></dl></div>')
    body = lead + f'<figure class="ldr-figure">{render_svg(files)}</figure>' + controls
    return instrument_root("library-sizes", record, body, title="Where the code lives: compiled library sizes", ctx=ctx,
                           extra={"total_bytes": total})
