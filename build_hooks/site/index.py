"""The ```proofs-index fence: one site-wide list of every proof.

For each proof: the question it answers (its title), where it is quoted (each page, linked to
the proof's card there when the page shows it, with what the page quotes: its card, excerpts,
values, claims, instruments), its records (device class, torch, device, date, wall time and
state: fresh, stale, failed, foreign...), the torch versions kept in history, and its two
downloads (``.py`` and ``.ipynb``). The fence takes no options.

The pages come from the MkDocs plugin (every documentation page with its URL); elsewhere the
Markdown files under ``docs/`` are read, with MkDocs' directory URLs. HTML comes from a jinja2
template through :func:`build_hooks.render.index.render_index`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from build_hooks.core.safefs import is_regular, read_bytes
from build_hooks.pages.links import base_url, page_link
from build_hooks.pages.quotes import Quote, page_title, quotes
from build_hooks.proofs.pin import public_version
from build_hooks.store.history import version_key, version_store, versions
from build_hooks.store.record import Record
from build_hooks.store.schema import DEVICE_CLASSES

OPTIONS: tuple[str, ...] = ()


@dataclass
class PageUse:
    title: str
    href: str
    source: str  # docs/x.md, for authors (a tooltip)
    card: bool
    items: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, detail, line)


@dataclass
class RecordRow:
    device_class: str
    torch: str
    device: str
    date: str
    wall_s: float | None
    state: str
    reasons: list[str] = field(default_factory=list)


@dataclass
class ProofRow:
    name: str
    title: str
    purpose: str
    href: str  # its card (first page showing it), else its script
    py_href: str
    ipynb_href: str
    pages: list[PageUse] = field(default_factory=list)
    records: list[RecordRow] = field(default_factory=list)
    history: list[RecordRow] = field(default_factory=list)


def guess_url(source: str) -> str:
    """MkDocs' directory URL of a page: ``a/b.md`` -> ``a/b/``, ``index.md`` -> ``""``."""
    stem = source[: -len(".md")] if source.endswith(".md") else source
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def site_pages(docs: Path) -> list[tuple[str, str, str]]:
    """(source, url, text) of every page in the pages' folder ``docs`` (outside the MkDocs plugin)."""
    docs = Path(docs)
    out = []
    for path in sorted(docs.rglob("*.md")) if docs.is_dir() else ():
        if not is_regular(path, inside=docs):  # a FIFO or a symlink out of docs/ is no page (safefs.py)
            continue
        source = path.relative_to(docs).as_posix()
        out.append((source, guess_url(source), read_bytes(path, inside=docs).decode("utf-8", errors="replace")))
    return out


def page_uses(pages, known: set[str], defaults: dict[str, str] | None = None
              ) -> dict[str, list[tuple[str, str, str, list[Quote]]]]:
    """proof -> [(source, url, title, its quotes on that page)], pages in site order; ``defaults``
    maps an instrument to the proof it reads when its fence names none (the host's widgets)."""
    found: dict[str, list] = {}
    for source, url, text in pages:
        by_proof: dict[str, list[Quote]] = {}
        for quote in quotes(text, defaults):
            if quote.proof in known:
                by_proof.setdefault(quote.proof, []).append(quote)
        title = page_title(text, source)
        for name, items in by_proof.items():
            found.setdefault(name, []).append((source, url, title, items))
    return found


def _row(state) -> RecordRow:
    record = state.record
    if record is None:
        return RecordRow(state.device_class, "", "", "", None, state.state, list(state.reasons))
    reasons = [] if state.state == "fresh" else list(state.reasons)
    torch = state.proof.torch  # a proof without torch shows none, whatever an older record says
    if record.failure is not None:
        under = f" under torch {record.failure.torch}" if torch and record.failure.torch else ""
        reasons.append(f"failed{under} on {record.failure.measured_at[:10]}: "
                       f"it {record.failure.message}; shown: the last good run")
    elif not record.ok:
        reasons.append(f"its only run ended with status {record.status}")
    return RecordRow(state.device_class, public_version(record.torch) if torch else "", record.device,
                     record.measured_at[:10], record.wall_s, state.state, reasons)


def history_rows(store, name: str) -> list[RecordRow]:
    out = []
    for version in sorted(versions(store), key=version_key, reverse=True):
        archived = version_store(store, version)
        for device_class in DEVICE_CLASSES:
            item = archived.read(name, device_class)
            if isinstance(item, Record):
                out.append(RecordRow(device_class, public_version(item.torch), item.device,
                                     item.measured_at[:10], item.wall_s, "history"))
    return out


def collect(library, pages, page_url: str | None, instrument_proofs: dict[str, str] | None = None
            ) -> list[ProofRow]:
    """Every proof's row, as seen from the page at ``page_url``."""
    prefix = base_url(page_url)
    uses = page_uses(pages, set(library.proofs), instrument_proofs)
    states: dict[str, list] = {}
    for state in library.states():
        states.setdefault(state.proof.name, []).append(state)
    rows = []
    for name, proof in library.proofs.items():
        py, ipynb = f"{prefix}proofs/{proof.path.name}", f"{prefix}proofs/{name}.ipynb"
        row = ProofRow(name, proof.title, proof.purpose, py, py, ipynb)
        for source, url, title, items in uses.get(name, []):
            card = any(q.kind == "card" for q in items)
            href = page_link(page_url, url, f"proof-{name}" if card else "")
            use = PageUse(title, href, library.layout.page(source), card)
            for quote in items:
                use.items.append((quote.kind, quote.detail, quote.line))
            row.pages.append(use)
        first_card = next((p for p in row.pages if p.card), None)
        if first_card is not None:
            row.href = first_card.href
        row.records = [_row(s) for s in states.get(name, [])]
        row.history = history_rows(library.store, name)
        rows.append(row)
    return rows


__all__ = ["PageUse", "ProofRow", "RecordRow", "collect", "guess_url", "site_pages"]
