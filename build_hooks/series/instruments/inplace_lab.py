"""In-place lab: write into an op's input or output and see whether backward still runs.

From the ``version_counter`` proof's ``LAB`` rows: for each op (``exp``, ``sin``, ``a * a``...) the
proof ran ``a = x * 1; out = op(a)``, then wrote in place into ``a``, into ``out`` or into neither,
then called ``out.sum().backward()``. Each row records the node, which slots it saved (holding the
input or the output, and at which version), both tensors' versions before and after the write,
and what backward did: the gradient, or the error text. The reader picks an op and a write; every
state shown is one of those rows. Without JavaScript the first row is drawn and every row is in a
table.
"""

from __future__ import annotations

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.series.instruments._common import attr, esc, fmt, instrument_root, need_rows, primary

DEFAULT_PROOF = "version_counter"
WRITES = {"none": "no write", "input": "a.add_(1), into the input", "output": "out.add_(1), into the output"}
TARGET = {"input": "a", "output": "out"}


# The record's keys theme/assets/js/inplace-lab.js reads (rec.data.KEY); only these are embedded.
READS: tuple[str, ...] = ("LAB",)


def _int(value, proof: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DirectiveError(f"proof {proof!r}: {where} should be a whole number >= 0, got {value!r:.60}")
    return value


def _versions(row: dict, key: str, proof: str, where: str) -> dict:
    value = row.get(key)
    if not isinstance(value, dict):
        raise DirectiveError(f"proof {proof!r}: {where}.{key} should map a and out to versions, got {value!r:.60}")
    return {name: _int(value.get(name), proof, f"{where}.{key}.{name}") for name in ("a", "out")}


def _check_saved(row: dict, proof: str, where: str) -> None:
    """The slots the node saved: each a name, what it holds and the version it saved."""
    saved = row.get("saved")
    if not isinstance(saved, list):
        raise DirectiveError(f"proof {proof!r}: {where}.saved should be a list of slots")
    for k, slot in enumerate(saved):
        if (not isinstance(slot, dict) or not isinstance(slot.get("slot"), str)
                or slot.get("holds") not in ("input", "output")):
            raise DirectiveError(f"proof {proof!r}: {where}.saved[{k}] needs a slot name "
                                 "and holds: input or output")
        _int(slot.get("saved_version"), proof, f"{where}.saved[{k}].saved_version")


def _check_outcome(row: dict, proof: str, where: str) -> None:
    """What backward did: the gradient when it ran, else the error text."""
    if not isinstance(row.get("ran"), bool):
        raise DirectiveError(f"proof {proof!r}: {where}.ran should be true or false")
    if row["ran"]:
        grad = row.get("grad")
        if not isinstance(grad, list) or not grad or not all(
                isinstance(g, (int, float)) and not isinstance(g, bool) for g in grad):
            raise DirectiveError(f"proof {proof!r}: {where} ran, so it needs the gradient as a list of numbers")
    elif not isinstance(row.get("error"), str) or not row["error"].strip():
        raise DirectiveError(f"proof {proof!r}: {where} did not run, so it needs the error text")


def _check_row(row, proof: str, where: str) -> None:
    if not isinstance(row, dict):
        raise DirectiveError(f"proof {proof!r}: {where} should be a mapping")
    for key in ("op", "node"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise DirectiveError(f"proof {proof!r}: {where} needs a non-empty {key!r}")
    if row.get("write") not in WRITES:
        raise DirectiveError(f"proof {proof!r}: {where}.write should be one of {', '.join(WRITES)}, "
                             f"got {row.get('write')!r:.40}")
    _check_saved(row, proof, where)
    _versions(row, "before", proof, where)
    _versions(row, "versions", proof, where)
    _check_outcome(row, proof, where)


def check(data: dict, proof: str) -> list[dict]:
    """The LAB rows, checked: every op with all three writes, or a DirectiveError naming the row."""
    rows = need_rows(data, "LAB", proof)
    seen: dict[str, set] = {}
    for i, row in enumerate(rows):
        _check_row(row, proof, f"LAB[{i}]")
        seen.setdefault(row["op"], set()).add(row["write"])
    short = sorted(op for op, writes in seen.items() if writes != set(WRITES))
    if short:
        raise DirectiveError(f"proof {proof!r}: LAB lacks some writes for {', '.join(short)}; each op needs "
                             f"{', '.join(WRITES)}")
    return rows


def holds(row: dict, tensor: str) -> list[dict]:
    """The slots of the row's node that hold ``tensor`` ('a' is the input, 'out' the output)."""
    return [s for s in row["saved"] if s["holds"] == ("input" if tensor == "a" else "output")]


def verdict(row: dict) -> str:
    if row["ran"]:
        return "backward ran: x.grad = [" + ", ".join(fmt(float(g)) for g in row["grad"]) + "]"
    return "backward raised RuntimeError: " + row["error"]


def slots_text(row: dict) -> str:
    return ", ".join(f'{s["slot"]} = {"a" if s["holds"] == "input" else "out"}, saved at version {s["saved_version"]}'
                     for s in row["saved"]) or "nothing"


def render_tensor(row: dict, tensor: str) -> str:
    kept, written = holds(row, tensor), TARGET.get(row["write"]) == tensor
    cls = ("ldr-lab__tensor" + (" ldr-lab__tensor--saved" if kept else "")
           + (" ldr-lab__tensor--written" if written else ""))
    role = "the op's input" if tensor == "a" else "the op's output"
    return (f'<div class="{cls}" data-tensor="{tensor}"><p><code>{tensor}</code> <span class="ldr-lab__role">'
            f'{role}</span></p>'
            f'<p>version <output data-key="{tensor}_version" data-value="{row["versions"][tensor]}">'
            f'{row["versions"][tensor]}</output></p>'
            f'<p class="ldr-lab__kept"><output data-key="{tensor}_kept" data-value="{str(bool(kept)).lower()}">'
            f'{"saved by the node" if kept else "not saved"}</output></p></div>')


def render_state(row: dict) -> str:
    state = "ran" if row["ran"] else "error"
    return (
        f'<figure class="ldr-figure ldr-lab" data-state="{state}">'
        f'<p class="ldr-lab__code"><code class="ldr-lab__program">{esc(program(row))}</code></p>'
        f'<div class="ldr-lab__row">{render_tensor(row, "a")}'
        f'<div class="ldr-lab__node"><p><output data-key="node" data-value="{attr(row["node"])}">'
        f'{esc(row["node"])}</output></p>'
        f'<p class="ldr-lab__slots">saved: <output data-key="saved" data-value="{len(row["saved"])}">'
        f'{esc(slots_text(row))}</output></p></div>'
        f'{render_tensor(row, "out")}</div>'
        f'<p class="ldr-lab__verdict"><output data-key="verdict" data-value="{state}">{esc(verdict(row))}</output></p>'
        '</figure>')


def program(row: dict) -> str:
    call = row["op"] if "a" in row["op"].split() else f"a.{row['op']}()"
    write = {"none": "", "input": "a.add_(1); ", "output": "out.add_(1); "}[row["write"]]
    return f"a = x * 1; out = {call}; {write}out.sum().backward()"


def render_controls(rows: list[dict]) -> str:
    ops = list(dict.fromkeys(r["op"] for r in rows))
    options = "".join(f'<option value="{attr(op)}">{esc(op)}</option>' for op in ops)
    radios = "".join(
        f'<label class="ldr-lab__write"><input type="radio" name="ldr-lab-write" value="{key}"'
        f'{" checked" if key == "none" else ""}> {esc(text)}</label>' for key, text in WRITES.items())
    return ('<div class="ldr-controls ldr-lab__controls" hidden>'
            f'<label class="ldr-controls__label">Operation <select class="ldr-select">{options}</select></label>'
            f'<fieldset class="ldr-lab__writes"><legend>Write in place</legend>{radios}</fieldset></div>')


def render_table(rows: list[dict]) -> str:
    body = "".join(
        f'<tr data-op="{attr(r["op"])}" data-write="{r["write"]}"><td><code>{esc(r["op"])}</code></td>'
        f'<td>{esc(", ".join(s["slot"] + " (" + s["holds"] + ")" for s in r["saved"]) or "nothing")}</td>'
        f'<td>{esc(WRITES[r["write"]])}</td><td>{r["versions"]["a"]}</td><td>{r["versions"]["out"]}</td>'
        f'<td>{esc(verdict(r))}</td></tr>' for r in rows)
    return ('<details class="ldr-instrument__table"><summary>Every op and write, as the proof ran them</summary>'
            '<div class="ldr-scroll"><table><thead><tr><th>op</th><th>saved</th><th>write</th><th>a version</th>'
            f'<th>out version</th><th>backward</th></tr></thead><tbody>{body}</tbody></table></div></details>')


def render(options: dict, ctx: Context) -> str:
    proof_name = options.get("proof") or DEFAULT_PROOF
    record = primary(ctx, proof_name)
    rows = check(record.data, proof_name)
    broken = sum(not r["ran"] for r in rows)
    # say why they fail only if the record bears it out: a case fails exactly when it wrote a saved tensor
    explained = all(r["ran"] == (r["write"] == "none" or not holds(r, TARGET[r["write"]])) for r in rows)
    why = ", each one a write into a tensor the node saved" if explained else ""
    lead = ('<p class="ldr-instrument__lead"><code>x</code> requires a gradient. Each case makes '
            '<code>a = x * 1</code> and <code>out = op(a)</code>, may write into one of them in place, then calls '
            f'<code>out.sum().backward()</code>. Of {len(rows)} cases, <strong class="ldr-subject-text">{broken} '
            f'fail{why}</strong>.</p>')
    body = lead + render_controls(rows) + render_state(rows[0]) + render_table(rows)
    return instrument_root("inplace-lab", record, body, title="In-place lab: write into a saved tensor", ctx=ctx,
                           reads=READS)
