"""The proof card: title, purpose, output, a link to its source, provenance and downloads."""

from __future__ import annotations

from html import escape

from build_hooks.proofs.datalines import parse_output
from build_hooks.proofs.discovery import Proof
from build_hooks.proofs.imports import needs
from build_hooks.proofs.records import ProofData, Provenance
from build_hooks.render.safe import element_text
from build_hooks.site.sourcepage import inline_code, line_count, page_name

ACCELERATOR_NAMES = {"cuda": "CUDA", "mps": "MPS"}


def provenance_line(item: ProofData) -> str:
    p = item.provenance
    where = f"{p.device_class}: {p.device}" if p.device_class == "cpu" else p.device
    os_name = p.os.split("-", 1)[0]
    parts = [f"torch {escape(p.torch)}"] if p.torch else []  # a proof without torch names none
    parts += [
        f"<span class=\"ldr-proof__device\">{escape(where)}</span>",
        f"Python {escape(p.python)}",
        f"{escape(os_name)} {escape(p.machine)}",
        f"measured <time datetime=\"{escape(p.measured_at)}\">{escape(p.measured_at)}</time>",
        f"{p.wall_s:,.2f} s",  # thousands grouped, as every number (render/numbers.py)
    ]
    return " · ".join(parts)


def output_block(item: ProofData) -> str:
    lines = parse_output(item.stdout.splitlines()).visible
    body = element_text("\n".join(lines)) if lines else "(no output besides its data)"
    return f'<pre class="ldr-proof__output"><code>{body}</code></pre>'


def source_link(proof: Proof, download_href: str) -> str:
    """The way to the script's source: its own page, published beside the script
    (site/sourcepage.py), one click away with or without JavaScript."""
    count = line_count(proof.source)
    folder = download_href.rsplit("/", 1)[0] + "/" if "/" in download_href else ""
    return (f'<p class="ldr-proof__source"><a href="{escape(folder + page_name(proof.name))}">Source: '
            f"<code>proofs/{escape(proof.path.name)}</code> · {count}&nbsp;line{'' if count == 1 else 's'}</a></p>")


RUNNING_NOW = "this page reloads when it finishes"


def running_notice(proof: Proof, item: ProofData | None) -> str:
    """Under a dev server a stale proof re-runs in the background while its page is served."""
    if item is None:
        return ('<div class="ldr-proof__notice ldr-proof__notice--running" role="status">'
                f"<strong>Running now</strong>: <code>proofs/{escape(proof.path.name)}</code> has no "
                f"recorded result yet; {RUNNING_NOW}.</div>")
    reasons = "; ".join(item.provenance.reasons) or "its record is out of date"
    return ('<div class="ldr-proof__notice ldr-proof__notice--running" role="status">'
            f"<strong>Re-running</strong> ({escape(reasons)}). The output below is from the last "
            f"recorded run, {escape(item.provenance.measured_at)}; {RUNNING_NOW}.</div>")


def pending_marker(name: str) -> str:
    """Stands for an excerpt or a value of a proof that has no record yet and runs now."""
    return (f'<span class="ldr-pending" data-proof="{escape(name)}" role="status" '
            f'title="proof {escape(name)} is running now; {RUNNING_NOW}">'
            f"<code>{escape(name)}</code> running now…</span>")


def notices(proof: Proof, item: ProofData | None, accelerator_missing: bool,
            rerunning: bool = False) -> list[str]:
    out = [running_notice(proof, item)] if rerunning else []
    if accelerator_missing:
        fallback = (" The output below was measured on the CPU." if item is not None
                    else " It does not run on a CPU, so there is nothing to show yet.")
        out.append(
            '<div class="ldr-proof__notice ldr-proof__notice--accelerator" role="note">'
            "<strong>Not yet measured on an accelerator.</strong> This proof is meant for a GPU "
            f"(CUDA or MPS), and no run on one is recorded yet.{fallback}</div>"
        )
    if item is None:
        return out
    p = item.provenance
    failure = p.failure
    if not p.ok:
        out.append(
            '<div class="ldr-proof__notice ldr-proof__notice--failed" role="alert">'
            f"<strong>This proof failed</strong>{escape(p.under)} on "
            f"{escape(p.measured_at)}: it {escape(status_phrase(p))}. No good run is recorded yet.</div>"
        )
    elif failure:
        out.append(
            '<div class="ldr-proof__notice ldr-proof__notice--stale" role="note">'
            f"<strong>Stale: failed{escape(failure.under)} on "
            f"{escape(failure.measured_at)}</strong> (it {escape(failure.message)}). "
            f"The output below is the last good run, from {escape(p.measured_at)}.</div>"
        )
    elif p.foreign:
        out.append(
            '<div class="ldr-proof__notice ldr-proof__notice--foreign" role="note">'
            f"<strong>Measured on {escape(p.device)} under torch {escape(p.torch)}</strong> "
            f"(the pin is {escape(p.pin or '?')}): a record from another machine, kept as it is.</div>"
        )
    elif p.stale and not rerunning:
        out.append(
            '<div class="ldr-proof__notice ldr-proof__notice--stale" role="note">'
            f"<strong>Stale:</strong> {escape('; '.join(p.reasons))}. "
            "The output below is from the last recorded run.</div>"
        )
    return out


def status_phrase(p: Provenance) -> str:
    """How a run that never succeeded ended, as a verb phrase ("timed out")."""
    status = p.status
    return {"timeout": "timed out", "output-limit": "printed more than its output cap",
            "killed": "was killed"}.get(status, "exited with an error")


def needs_phrase(proof: Proof, download_href: str) -> str:
    """The run line's needs: nothing but torch (or Python), or torch and the local helpers (as
    links)."""
    folder = download_href.rsplit("/", 1)[0] + "/" if "/" in download_href else ""
    links = [f'<a class="ldr-proof__helper" href="{escape(folder + name)}" download>'
             f"<code>{escape(name)}</code></a>" for name, _ in proof.helpers]
    return needs(proof.torch, links)


def notebook_link(proof: Proof, download_href: str) -> str:
    """The same proof as a notebook, published beside the script (site/downloads.py)."""
    folder = download_href.rsplit("/", 1)[0] + "/" if "/" in download_href else ""
    name = f"{proof.name}.ipynb"
    return (f'<a class="ldr-proof__notebook" href="{escape(folder + name)}" download>'
            f"or as a notebook, <code>{escape(name)}</code></a>")


def _header(proof: Proof, primary_class: str | None) -> list[str]:
    name = escape(proof.name)
    parts = [
        f'<section class="ldr-proof" id="proof-{name}" data-proof="{name}" '
        f'data-device="{escape(primary_class or "none")}" aria-labelledby="proof-{name}-title">',
        '<header class="ldr-proof__header">',
        '<p class="ldr-proof__label">Proof</p>',
        f'<p class="ldr-proof__title" id="proof-{name}-title">'
        f'<a class="ldr-proof__anchor" href="#proof-{name}">{inline_code(proof.title)}</a></p>',
    ]
    if proof.purpose:
        parts.append(f'<p class="ldr-proof__purpose">{inline_code(proof.purpose)}</p>')
    parts.append("</header>")
    return parts


def _primary_result(primary: ProofData | None) -> list[str]:
    """The main record's output, or what a failed run printed last."""
    if primary is not None and primary.provenance.ok:
        return [output_block(primary)]
    if primary is not None:
        failure = primary.provenance.failure
        tail = list(failure.stderr_tail) if failure is not None else []
        stderr = "\n".join(tail) or "\n".join((primary.stderr or primary.stdout).splitlines()[-12:])
        if stderr:
            return [f'<pre class="ldr-proof__traceback"><code>{escape(stderr)}</code></pre>']
    return []


def _also_measured(records: dict[str, ProofData], primary_class: str | None) -> list[str]:
    """The other devices' successful records, each folded away."""
    parts = []
    for device_class in ("cpu", "cuda", "mps"):
        other = records.get(device_class)
        if other is None or device_class == primary_class or not other.provenance.ok:
            continue
        label = "the CPU" if device_class == "cpu" else ACCELERATOR_NAMES[device_class]
        parts.append(
            f'<details class="ldr-proof__also"><summary>Also measured on {label}</summary>'
            f'{output_block(other)}<p class="ldr-proof__provenance">{provenance_line(other)}</p></details>'
        )
    return parts


def render_card(proof: Proof, records: dict[str, ProofData], download_href: str,
                rerunning: bool = False) -> str:
    accelerators = [d for d in ("cuda", "mps") if d in records]
    primary_class = accelerators[0] if accelerators else ("cpu" if "cpu" in records else None)
    primary = records.get(primary_class) if primary_class else None
    accelerator_missing = proof.accelerator != "none" and not accelerators
    parts = _header(proof, primary_class)
    parts.extend(notices(proof, primary, accelerator_missing, rerunning))
    parts.extend(_primary_result(primary))
    parts.extend(_also_measured(records, primary_class))
    parts.append(source_link(proof, download_href))
    if primary is not None:
        where = "" if primary_class == "cpu" else f"Measured on {escape(primary.provenance.device)}: "
        parts.append(f'<p class="ldr-proof__provenance">{where}{provenance_line(primary)}</p>')
    parts.append(
        f'<p class="ldr-proof__run"><a class="ldr-proof__download" href="{escape(download_href)}" '
        f'download>Download and run it</a> '
        f"<code>python {escape(proof.path.name)}</code> "
        f'<span class="ldr-proof__needs">{needs_phrase(proof, download_href)}</span> · '
        f'{notebook_link(proof, download_href)}</p>'
    )
    parts.append("</section>")
    return "\n".join(parts)
