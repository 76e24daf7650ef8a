"""Every proof is also a Jupyter notebook: script text + its record -> an nbformat v4 notebook.

The notebook holds, in order:

* the docstring as a Markdown cell (the title as a heading, the rest as text: only
  ``backticks`` are markup, as on the card);
* a short Markdown note on the recorded run (torch, device, date, wall time; stale or failed
  runs say so), which is also in the notebook's metadata under ``ldr``;
* the code, split into cells by jupytext: at ``# %%`` markers when the script has them
  (the percent format), otherwise at blank lines between top-level statements (the light
  format); imports and ``PROOF`` are gathered into one setup cell, and a lone line of code
  joins the cell after it;
* the recorded output (stdout, and stderr when there was any) as the output of the last code
  cell, so a reader sees what it printed without running it; running the notebook replaces it
  with their own machine's, cell by cell.

A cell whose last statement is a bare expression other than ``print(...)`` gets a ``;`` after
it, so that Jupyter does not display its value: run as a notebook, a proof prints exactly what
it prints as a script.

Pure and deterministic: cell ids are numbered, keys sorted, nothing depends on the clock, so a
warm build writes the same bytes. Knows nothing of MkDocs.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from build_hooks.proofs.imports import imports_torch, needs
from build_hooks.proofs.records import ProofData

if TYPE_CHECKING:  # jupytext and nbformat take half a second to import: only when converting
    import nbformat

SETUP = (ast.Import, ast.ImportFrom)
PERCENT = re.compile(r"^# %%", re.MULTILINE)
# What Markdown (and Jupyter's math) would read inside a line, and at the start of one.
MD_INLINE = re.compile(r"([\\`*_\[\]<>&|~$])")
MD_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+(?=[.)]))", re.MULTILINE)


def md_text(text: str) -> str:
    """Plain text for a Markdown cell, escaped with backslashes where Markdown would read it."""
    text = MD_INLINE.sub(r"\\\1", text)
    return MD_LINE_START.sub(lambda m: m.group(1) + (m.group(2) + "\\" if m.group(2)[0].isdigit()
                                                     else "\\" + m.group(2)), text)


def md_inline(text: str) -> str:
    """A docstring line for a Markdown cell: `backticks` stay code, the rest is text."""
    pieces = text.split("`")
    if len(pieces) % 2 == 0:  # an unmatched backtick stays a backtick
        return md_text(text)
    return "".join(f"`{p}`" if i % 2 else md_text(p) for i, p in enumerate(pieces))


def split_docstring(script: str) -> tuple[str, str]:
    """(docstring, the script without it). A script that does not parse keeps everything."""
    try:
        tree = ast.parse(script)
    except SyntaxError:
        return "", script
    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return "", script
    lines = script.splitlines(keepends=True)
    rest = "".join(lines[: first.lineno - 1] + lines[first.end_lineno:])
    return ast.get_docstring(tree) or "", rest.lstrip("\n")


def docstring_cell(docstring: str, name: str) -> str:
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", docstring.strip()) if p.strip()]
    title = " ".join(paragraphs[0].split()).rstrip(".") if paragraphs else name.replace("_", " ").capitalize()
    out = [f"# {md_inline(title)}"]
    for paragraph in paragraphs[1:]:
        out.append("\n".join(md_inline(line.strip()) for line in paragraph.splitlines()))
    return "\n\n".join(out)


def _statements(source: str) -> list[ast.stmt] | None:
    try:
        return ast.parse(source).body
    except SyntaxError:
        return None


def _is_setup(source: str) -> bool:
    body = _statements(source)
    if not body:
        return False
    for node in body:
        if isinstance(node, SETUP):
            continue
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "PROOF"):
            continue
        return False
    return True


def _is_lone_line(source: str) -> bool:
    code = [line for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    body = _statements(source) or []
    return len(code) == 1 and bool(body) and not isinstance(body[0], (ast.FunctionDef, ast.ClassDef))


def code_cells(code: str, cache=None, version: str = "") -> list[tuple[str, str]]:
    """(cell type, source) for the script's code, split by jupytext and tidied. ``cache`` (a
    ``TextCache``) keeps the result by code and ``version`` (what the split depends on), so a
    new record of an unchanged script needs no jupytext (0.4 s to import)."""
    if cache is not None:
        return _cached_cells(code, cache, version)
    merged = _merge_cells(_split_cells(code))
    return [(kind, quiet(source) if kind == "code" else source) for kind, source in merged]


def _cached_cells(code: str, cache, version: str) -> list[tuple[str, str]]:
    import json

    from build_hooks.core.cache import key_of

    key = key_of("cells", version, code)
    hit = cache.get(key)
    if hit is not None:
        try:
            found = json.loads(hit)
            if isinstance(found, list) and all(
                    isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c) for c in found):
                return [(kind, source) for kind, source in found]
        except ValueError:
            pass  # torn or foreign: split again and rewrite it
    cells = code_cells(code)
    cache.put(key, json.dumps(cells))
    return cells


def _split_cells(code: str) -> list[tuple[str, str]]:
    """jupytext's cells of the script (percent or light format), the empty ones left out."""
    import jupytext

    fmt = "py:percent" if PERCENT.search(code) else "py:light"
    cells = []
    for cell in jupytext.reads(code, fmt=fmt).cells:
        source = cell.source
        title = cell.metadata.get("title") if cell.cell_type == "code" else None
        if title:  # `# %% the data line`: the author's title stays a comment on its cell
            source = f"# {title}\n{source}"
        if source.strip():
            cells.append((cell.cell_type, source))
    return cells


def _merge_cells(cells: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Setup cells in a row become one, and so does a lone line with the cell after it."""
    merged: list[tuple[str, str]] = []
    for kind, source in cells:
        if merged and kind == "code" and merged[-1][0] == "code":
            before = merged[-1][1]
            if (_is_setup(before) and _is_setup(source)) or (_is_lone_line(before) and not _is_setup(before)):
                merged[-1] = ("code", before + "\n\n" + source)
                continue
        merged.append((kind, source))
    return merged


def quiet(source: str) -> str:
    """Add ``;`` after a cell's last statement when it is a bare expression other than a
    print call, so Jupyter shows only what the script prints."""
    body = _statements(source)
    if not body or not isinstance(body[-1], ast.Expr):
        return source
    node = body[-1]
    value = node.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print":
        return source
    if isinstance(value, ast.Constant) and isinstance(value.value, str):  # a stray docstring
        return source
    lines = source.split("\n")
    assert node.end_lineno is not None and node.end_col_offset is not None  # ast.parse sets both
    row = node.end_lineno - 1
    text = lines[row].encode("utf-8")
    col = node.end_col_offset  # ast counts UTF-8 bytes
    lines[row] = (text[:col] + b";" + text[col:]).decode("utf-8")
    return "\n".join(lines)


def provenance(record: ProofData | None) -> dict:
    """The recorded run, as the notebook's metadata keeps it."""
    if record is None:
        return {}
    p = record.provenance
    out = {key: getattr(p, key) for key in ("torch", "device_class", "device", "python", "os",
                                             "measured_at", "wall_s", "status")}
    if p.stale:
        out["stale"] = list(p.reasons)
    if p.failure is not None:
        out["failure"] = {key: getattr(p.failure, key) for key in ("status", "message", "torch", "measured_at")}
    return out


def provenance_note(name: str, record: ProofData | None, helpers: tuple[str, ...], torch: bool = True) -> str:
    lines = [f"This notebook is the proof script `{name}.py`, cut into cells. It "
             f"{needs(torch, [f'`{h}`' for h in helpers])}."]
    if record is None:
        lines.append("No run of it is recorded yet: run the cells to see what it prints.")
        return "\n\n".join(lines)
    p = record.provenance
    where = p.device if p.device_class == "cpu" else f"{p.device} ({p.device_class})"
    ran = (f"{f'torch {p.torch}, ' if p.torch else ''}{where}, Python {p.python}, on {p.measured_at}, "
           f"in {p.wall_s:.2f} s")
    if p.ok:
        lines.append(f"**Recorded output.** The output under the last cell is the whole script's, "
                     f"as recorded: {md_text(ran)}. Run the cells to measure your own machine.")
    else:
        lines.append(f"**No good run recorded.** Its last run ({md_text(ran)}) ended with status "
                     f"{md_text(p.status)}; run the cells to see it for yourself.")
    if p.failure is not None:
        f = p.failure
        lines.append(md_text(f"A later run failed{f.under} on {f.measured_at}: "
                             f"it {f.message}. The output shown is the last good run."))
    elif p.stale:
        lines.append(md_text("The record is stale: " + "; ".join(p.reasons) + "."))
    return "\n\n".join(lines)


def _text(lines: str) -> str:
    return lines if not lines or lines.endswith("\n") else lines + "\n"


def build(name: str, script: str, record: ProofData | None = None,
          helpers: tuple[str, ...] = (), cells_cache=None, version: str = "",
          torch: bool | None = None) -> nbformat.NotebookNode:
    """The notebook of proof ``name`` from its script text and its primary record
    (``cells_cache`` and ``version``: see :func:`code_cells`; ``torch``: whether the proof or
    a helper imports torch, by default whether the script does)."""
    from nbformat import v4

    if torch is None:
        try:
            torch = imports_torch(ast.parse(script))
        except SyntaxError:
            torch = False

    docstring, code = split_docstring(script)
    cells = [v4.new_markdown_cell(docstring_cell(docstring, name)),
             v4.new_markdown_cell(provenance_note(name, record, helpers, torch))]
    for kind, source in code_cells(code, cells_cache, version):
        cells.append(v4.new_code_cell(source) if kind == "code" else v4.new_markdown_cell(source))
    last = next((c for c in reversed(cells) if c.cell_type == "code"), None)
    if last is not None and record is not None and record.provenance.ok:
        outputs = []
        if record.stdout:
            outputs.append(v4.new_output("stream", name="stdout", text=_text(record.stdout)))
        if record.stderr:
            outputs.append(v4.new_output("stream", name="stderr", text=_text(record.stderr)))
        last.outputs = outputs
        last.metadata["ldr"] = {"recorded_output": "the whole script's output, as recorded"}
    for index, cell in enumerate(cells):
        cell.id = f"{name.replace('_', '-')[:50]}-{index}"
    nb = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        "ldr": {"proof": name, "script": f"{name}.py", "helpers": list(helpers),
                "record": provenance(record)},
    })
    nb.nbformat_minor = 5
    return nb


def dumps(nb: nbformat.NotebookNode) -> str:
    """The notebook as the ``.ipynb`` text, validated (same input, same bytes)."""
    import nbformat

    nbformat.validate(nb)
    return nbformat.writes(nb, version=4) + "\n"


def notebook_text(name: str, script: str, record: ProofData | None = None,
                  helpers: tuple[str, ...] = (), cells_cache=None, version: str = "",
                  torch: bool | None = None) -> str:
    return dumps(build(name, script, record, helpers, cells_cache, version, torch))
