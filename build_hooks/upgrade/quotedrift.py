"""Which source quotes changed between two torch versions (for ``ldr drift`` and its page).

The older version's quotes come from its kept file (quotestore.py). The newer version's come
from its kept file when a build under it wrote one, else live from the installed torch when
that is the newer version: on upgrade day, with the new wheel installed and the pin moved,
``ldr drift`` says which quotes changed before any page is built. A quote that no longer
matches the new source is listed as "gone" with the reason.
"""

from __future__ import annotations

from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.proofs.sources import installed_torch, quote
from build_hooks.store.quotestore import Kept, QuoteDrift, compare, read, version_name


def _live(old: dict[str, Kept], version: str) -> tuple[dict[str, Kept], list[str]]:
    """The old file's quotes found again in the installed torch (which is ``version``)."""
    found, problems = {}, []
    for key, kept in old.items():
        file, start, end, nth = (key.split(" | ") + ["", "", "", ""])[:4]
        try:
            now = quote(file or kept.file, start, end or None, int(nth) if nth.isdigit() else None)
        except LdrError as exc:
            problems.append(f"quote {key} (at {', '.join(kept.at)}): {exc}")
            continue
        found[key] = Kept.of(now, kept.at)
    return found, problems


def quote_drift(results: Path, from_version: str, to_version: str) -> tuple[list[QuoteDrift], list[str]]:
    """(changes, problems) between the quotes of two versions; no kept quotes: ([], [])."""
    try:
        old = read(results, from_version)
        new = read(results, to_version)
    except LdrError as exc:
        return [], [str(exc)]
    problems: list[str] = []
    if not new and old:
        try:
            here = installed_torch()
        except LdrError:
            here = None
        if here is not None and version_name(here) == version_name(to_version):
            new, problems = _live(old, to_version)
            return compare(old, new), problems
        return [], [f"no quotes are kept for torch {to_version} and the installed torch is "
                    f"{here or 'absent'}: build the site under {to_version} to compare its quotes"]
    return compare(old, new), problems


def quote_lines(changes: list[QuoteDrift]) -> list[str]:
    """The text report's lines for the quotes."""
    if not changes:
        return []
    out = [f"source quotes: {sum(q.status == 'changed' for q in changes)} changed, "
           f"{sum(q.status == 'moved' for q in changes)} moved, {sum(q.status == 'gone' for q in changes)} gone"]
    for q in changes:
        kept = q.new or q.old
        assert kept is not None
        where = kept.repo or kept.file
        out.append(f"  quote {q.status}: {where} (from {q.key.split(' | ')[1]!r}) at {', '.join(q.at)}")
        if q.status == "moved" and q.old and q.new:
            out.append(f"    lines {q.old.first}-{q.old.last} -> {q.new.first}-{q.new.last}, same text")
        if q.status == "changed" and q.old and q.new:
            out.extend(f"    - {line}" for line in q.old.lines if line not in q.new.lines)
            out.extend(f"    + {line}" for line in q.new.lines if line not in q.old.lines)
    return out


__all__ = ["quote_drift", "quote_lines"]
