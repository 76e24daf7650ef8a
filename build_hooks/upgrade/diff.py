"""What moved: recorded data and output compared with a git revision, and the prose that
quotes each moved value (for the author who upgrades torch or edits a proof)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import LIMITS, is_regular, read_bytes
from build_hooks.pages.quotes import quotes as page_quotes
from build_hooks.proofs.datalines import describe, flatten, natural, parse_output
from build_hooks.run.library import Library
from build_hooks.store.record import Record


@dataclass
class Change:
    key: str
    old: object
    new: object

    @property
    def relative(self) -> float | None:
        if isinstance(self.old, (int, float)) and isinstance(self.new, (int, float)) and self.old:
            if not isinstance(self.old, bool) and not isinstance(self.new, bool):
                return (self.new - self.old) / abs(self.old)
        return None


@dataclass
class ProofDiff:
    proof: str
    device_class: str
    old_torch: str | None
    new_torch: str
    changes: list[Change] = field(default_factory=list)
    output_lines_changed: int = 0
    quoted_at: dict[str, list[str]] = field(default_factory=dict)  # key -> ["docs/x.md:12"]
    excerpted_at: list[str] = field(default_factory=list)
    new: bool = False


def old_record(root: Path, rev: str, relpath: str) -> Record | None:
    """The record at ``relpath`` in commit ``rev``; None when it has none or what it has is no
    record (not UTF-8, over a record's size, not parsed): git's bytes are data like a shard's."""
    shown = subprocess.run(["git", "show", f"{rev}:{relpath}"], cwd=root, capture_output=True)
    if shown.returncode != 0 or len(shown.stdout) > LIMITS["record"]:
        return None
    try:
        return Record.from_text(shown.stdout.decode("utf-8"))
    except (ValueError, TypeError, KeyError, RecursionError):
        return None


def quotes(root: Path, docs: Path | None = None) -> tuple[dict[tuple[str, str], list[str]], dict[str, list[str]]]:
    """Where prose quotes each (proof, key), and where each proof is excerpted (quotes.py finds
    them as the build does: nothing in code spans or code blocks counts); ``docs``: the pages'
    folder (default ``root/docs``)."""
    values: dict[tuple[str, str], list[str]] = {}
    excerpts: dict[str, list[str]] = {}
    docs = Path(docs) if docs is not None else Path(root) / "docs"
    for page in sorted(docs.rglob("*.md")):
        if not is_regular(page, inside=docs):  # a FIFO or a symlink out of the pages' folder is no page
            continue
        text = read_bytes(page, inside=docs).decode("utf-8", errors="replace")
        rel = page.relative_to(root) if page.is_relative_to(root) else page
        for quote in page_quotes(text):
            where = f"{rel}:{quote.line}"
            if quote.kind == "value":  # its detail is KEY, or KEY@device
                values.setdefault((quote.proof, quote.detail.partition("@")[0]), []).append(where)
            elif quote.kind == "excerpt":
                excerpts.setdefault(quote.proof, []).append(where)
    return values, excerpts


def quoted_at(values: dict[tuple[str, str], list[str]], proof: str, key: str) -> list[str]:
    """The page lines (from :func:`quotes`) that quote ``proof``'s ``key`` or a key above it."""
    out = []
    for (quoted_proof, quoted_key), where in values.items():
        if quoted_proof == proof and (quoted_key == key or key.startswith(quoted_key + ".")):
            out.extend(where)
    return out


def check_revision(root: Path, rev: str) -> str:
    """The commit ``rev`` names in the repository at ``root``; an error naming it otherwise (a
    revision that does not exist must not read as "every record is new")."""
    try:
        found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
                               cwd=root, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise LdrError("a diff compares with a git revision, and git is not installed") from None
    if found.returncode == 0:
        return found.stdout.strip()
    inside = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=root, capture_output=True, text=True, timeout=60)
    if inside.returncode != 0:
        raise LdrError(f"{root} is not in a git repository, so there is no revision {rev!r} to compare "
                       "with; fix: run it in a clone of the project")
    raise LdrError(f"no git revision {rev!r} in the repository at {root}; fix: name a commit, "
                   "branch or tag (`git log --oneline` lists them), or leave it out to compare with HEAD")


def diff(library: Library, rev: str = "HEAD") -> list[ProofDiff]:
    root = library.root
    commit = check_revision(root, rev)
    values, excerpts = quotes(root, library.layout.pages)
    out = []
    for proof, device_class in sorted(library.store.known()):
        new = library.store.read(proof, device_class)
        if not isinstance(new, Record):
            continue
        relpath = library.layout.shown(library.store.path(proof, device_class))
        old = old_record(root, commit, relpath)
        result = ProofDiff(proof, device_class, old.torch if old else None, new.torch, new=old is None)
        old_data = flatten(old.data) if old else {}
        new_data = flatten(new.data)
        for key in sorted(set(old_data) | set(new_data), key=natural):
            if old_data.get(key, Ellipsis) != new_data.get(key, Ellipsis):
                result.changes.append(Change(key, old_data.get(key), new_data.get(key)))
        if old:
            before = parse_output(old.stdout).visible
            after = parse_output(new.stdout).visible
            result.output_lines_changed = sum(a != b for a, b in zip(before, after)) + abs(len(before) - len(after))
        for change in result.changes:
            where = quoted_at(values, proof, change.key)
            if where:
                result.quoted_at[change.key] = where
        if result.output_lines_changed:
            result.excerpted_at = excerpts.get(proof, [])
        if result.changes or result.output_lines_changed or result.new:
            out.append(result)
    return out


def report(diffs: list[ProofDiff], rev: str) -> str:
    if not diffs:
        return f"Nothing moved since {rev}: every recorded value and output line is the same."
    lines = []
    for d in diffs:
        moved = d.old_torch and d.new_torch and d.old_torch != d.new_torch
        torch = f", torch {d.old_torch} -> {d.new_torch}" if moved else f", torch {d.new_torch}" if d.new_torch else ""
        head = f"{d.proof} ({d.device_class}{torch})"  # a plain-Python proof's record names no torch
        if d.new:
            lines.append(f"{head}: new record, {len(d.changes)} value(s)")
            continue
        lines.append(f"{head}: {len(d.changes)} value(s) moved, {d.output_lines_changed} output line(s) changed")
        for change in d.changes:
            rel = change.relative
            delta = f" ({rel:+.1%})" if rel is not None else ""
            where = d.quoted_at.get(change.key)
            quoted = f"  quoted at {', '.join(where)}" if where else ""
            lines.append(f"  {change.key}: {describe(change.old)} -> {describe(change.new)}{delta}{quoted}")
        for place in d.excerpted_at:
            lines.append(f"  output excerpted at {place}: re-read that claim")
    return "\n".join(lines)
