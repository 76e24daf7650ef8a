"""An output excerpt: chosen lines of a proof's output, shown where the claim is made."""

from __future__ import annotations

from html import escape

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.datalines import parse_output
from build_hooks.proofs.records import ProofData
from build_hooks.render.safe import element_text

# The one list of what a proof-output fence takes (the markdown extension checks it).
EXCERPT_OPTIONS = ("proof", "device", "grep", "from", "to", "lines")


def parse_ranges(spec, count: int) -> list[int]:
    """``"2-4,7"`` -> [2, 3, 4, 7] (1-based), checked against ``count`` visible lines."""
    picked: list[int] = []
    for part in str(spec).split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            lo, hi = int(first), int(last or first)
        except ValueError:
            raise DirectiveError(f"lines: {part!r} is not a line number or a range like 2-4") from None
        if not (1 <= lo <= hi <= count):
            raise DirectiveError(f"lines: {part} is out of range: the output has {count} visible lines")
        picked.extend(range(lo, hi + 1))
    if not picked:
        raise DirectiveError("lines: no line selected; write e.g. lines: \"2-4\"")
    return picked


def _first(visible: list[str], needle: str, start: int, key: str) -> int:
    for index in range(start, len(visible)):
        if needle in visible[index]:
            return index
    after = f" after line {start}" if start else ""
    raise DirectiveError(
        f"{key}: no output line{after} contains {needle!r}; the proof's output changed or the text "
        "is wrong: compare with the card or `ldr status`"
    )


def select_lines(visible: list[str], options: dict) -> list[str]:
    if "lines" in options:
        return [visible[i - 1] for i in parse_ranges(options["lines"], len(visible))]
    if "from" in options:
        first = _first(visible, str(options["from"]), 0, "from")
        last = _first(visible, str(options["to"]), first, "to") if "to" in options else first
        return visible[first: last + 1]
    needles = options.get("grep")
    if needles is None:
        raise DirectiveError('proof-output needs `grep: "text"`, `from: "text"` (with an optional '
                             '`to: "text"`) or `lines: "2-4"` to choose lines')
    needles = [needles] if isinstance(needles, str) else list(needles)
    chosen = [line for line in visible if any(str(n) in line for n in needles)]
    if not chosen:
        raise DirectiveError(
            f"no output line contains {' or '.join(repr(str(n)) for n in needles)}; the proof's output "
            "changed or the text is wrong: check it with `ldr status` and the card"
        )
    return chosen


def render_excerpt(item: ProofData, options: dict, card_href: str) -> str:
    visible = parse_output(item.stdout.splitlines()).visible
    if not item.provenance.ok:
        raise DirectiveError(f"proof {item.name} has no good run recorded to quote")
    lines = select_lines(visible, options)
    p = item.provenance
    stale = ' <span class="ldr-excerpt__stale">stale</span>' if p.stale else ""
    return (
        f'<figure class="ldr-excerpt" data-proof="{escape(item.name)}">'
        f'<pre><code>{element_text(chr(10).join(lines))}</code></pre>'
        f'<figcaption>Output of <a href="{escape(card_href)}">proof <code>{escape(item.name)}</code></a>'
        f" · {escape(p.runtime)} · {escape(p.device)}{stale}</figcaption></figure>"
    )
