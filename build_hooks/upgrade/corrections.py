"""The generated "Corrections" note of a chapter.

A chapter places the note with a fence; the author adds a dated note per torch upgrade,
and the list of what changed is generated from the recorded history (history.py)::

    ```corrections
    - torch: 2.14.1
      date: 2026-12-01
      note: "The toll fell after the dispatcher rewrite; the prose now says so."
    ```

(an empty body lists the upgrades without notes). For every upgrade between two recorded
versions, the note finds the numbers this page quotes (``{{ proof.KEY | fmt }}``) whose
value changed beyond noise, old -> new in the page's own format (a value quoted without one
under the site's number rule, render/numbers.py), the page's claims that broke, newly hold,
or are checked for the first time (the old record lacks a value they read), and the page's
source quotes whose lines changed or no longer match (quotedrift.py), each at the section
of the page it sits in. :meth:`Upgrade.summary` counts them per kind with their sections, for
the sentences render/corrections.py writes. A page without the fence is not affected.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import yaml

from build_hooks.config import Layout
from build_hooks.core.errors import DirectiveError, LdrError
from build_hooks.pages.locate import locate
from build_hooks.pages.quotes import values
from build_hooks.pages.sections import Section, section_at, sections
from build_hooks.proofs.datalines import describe, lookup
from build_hooks.proofs.discovery import discover
from build_hooks.store import noise, noisestore, quotestore
from build_hooks.store.history import all_versions, records_at
from build_hooks.store.schema import version_dir
from build_hooks.store.store import Store
from build_hooks.upgrade.drift import claims_api, found_claims, holds
from build_hooks.upgrade.proofdrift import ratio
from build_hooks.upgrade.quotedrift import quote_drift
from build_hooks.upgrade.shown import show_value

KEYS = {"torch", "date", "note"}


class ValueChange(NamedTuple):
    """A value the page quotes that moved: ``what`` is ``proof.KEY``, ``old`` and ``new`` as shown."""
    where: Section | None  # the section of the page it sits in (None: the opening)
    what: str
    old: str
    new: str


class ClaimChange(NamedTuple):
    """A claim whose truth moved: ``status`` is "broke", "holds now" or "new" (the old record
    lacks a value the check reads)."""
    where: Section | None
    status: str
    check: str
    say: str


class QuoteChange(NamedTuple):
    """A source quote of the page that changed (``status`` "changed") or no longer matches ("gone")."""
    where: Section | None
    status: str
    file: str


@dataclass
class Upgrade:
    from_version: str | None
    to_version: str
    date: str = ""
    note: str = ""
    # Where each change sits is the section of the page (a heading the reader can see), not a line.
    values: list[ValueChange] = field(default_factory=list)
    claims: list[ClaimChange] = field(default_factory=list)
    quotes: list[QuoteChange] = field(default_factory=list)
    recorded: bool = True

    def changed_values(self) -> list[ValueChange]:
        """The values, each (section, key) once: a page may quote one number twice in a section."""
        seen, out = set(), []
        for item in self.values:
            if (item.where, item.what) not in seen:
                seen.add((item.where, item.what))
                out.append(item)
        return out

    def summary(self) -> list[Change]:
        """What changed on the page, one :class:`Change` per kind (values, then claims that broke,
        hold now or are new, then quotes that changed or no longer match), in the order of the
        page, each with the sections it sits in; kinds with nothing to say are left out."""
        kinds: dict[str, list[tuple[Section | None, str]]] = {}
        for where, what, _old, _new in self.changed_values():
            kinds.setdefault("values", []).append((where, what))
        for where, status, check, _say in self.claims:
            kinds.setdefault(f"claims {status}", []).append((where, check))
        for where, status, path in self.quotes:
            kinds.setdefault(f"quotes {status}", []).append((where, path))
        order = ["values", "claims broke", "claims holds now", "claims new", "quotes changed", "quotes gone"]
        out = []
        for kind in sorted(kinds, key=lambda k: order.index(k) if k in order else len(order)):
            items = kinds[kind]
            sections_in: list[Section | None] = []
            for where, _ in items:
                if where not in sections_in:
                    sections_in.append(where)
            sections_in.sort(key=lambda s: -1 if s is None else s.line)
            out.append(Change(kind, len({what for _, what in items}), sections_in))
        return out


@dataclass
class Change:
    """One kind of change on a page (``values``, ``claims broke|holds now|new``, ``quotes
    changed|gone``): how many distinct things changed, and in which sections (None: the opening)."""

    kind: str
    count: int
    sections: list[Section | None]


def entries(options: dict) -> dict[str, dict]:
    """The author's notes by torch version, validated."""
    items = options.get("list", options.get("upgrades", []))
    unknown = set(options) - {"list", "upgrades"}
    if unknown or not isinstance(items, list):
        raise DirectiveError("the corrections fence takes a list of `- torch: V` entries with optional "
                             "`date:` and `note:`, e.g. `- torch: 2.14.1` / `  note: \"...\"`")
    out = {}
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict) or "torch" not in item:
            raise DirectiveError(f"corrections entry {number} needs `torch: <version>`, not {item!r}")
        extra = set(item) - KEYS
        if extra:
            raise DirectiveError(f"corrections entry {number} has unknown field(s) "
                                 f"{', '.join(sorted(map(str, extra)))}; "
                                 "use torch, date and note")
        try:
            version = version_dir(str(item["torch"]).strip())
        except ValueError:
            raise DirectiveError(f"corrections entry {number}: `torch: {item['torch']}` is not a torch version "
                                 "(PEP 440, such as 2.14.1)") from None
        date = item.get("date", "")
        out[version] = {
            "date": date.isoformat() if isinstance(date, (dt.date, dt.datetime)) else str(date or ""),
            "note": str(item.get("note") or ""),
        }
    return out


def page_quotes(text: str) -> list[tuple[int, str, str | None, str, str]]:
    """(line, proof, device or None, key, format) for every inline value on the page."""
    return [(line, m.group("proof"), m.group("device"), m.group("key"), (m.group("fmt") or "").strip())
            for line, m in values(text)]


def pick(records: dict, proof: str, device: str | None):
    for device_class in ([device] if device else ["cuda", "mps", "cpu"]):
        if (proof, device_class) in records:
            return device_class, records[(proof, device_class)]
    return None, None


def shown(value, fmt: str, show=None, among=()) -> str:
    """A value as the page prints it: ``show(value, fmt)`` (the host's formatter for inline
    values), or :func:`describe` where there is none or the format does not apply. A float the
    page quotes without a format shows the digits that tell it apart from ``among`` (the value
    it changed from or to), under the site's one number rule, never a raw float."""
    if isinstance(value, float) and not fmt.strip():
        return show_value(value, among=among)
    if show is None:
        return describe(value)
    try:
        return show(value, fmt)
    except LdrError:
        return describe(value)


def quote_changes(layout: Layout, page_text: str, page: str | None, before: str, after: str,
                  headings) -> list[QuoteChange]:
    """The source quotes of this page whose lines changed (or that no longer match) between two
    versions, each at the section of its fence (quotedrift.py finds them)."""
    if page is None or "source" not in page_text:
        return []
    lines = {quotestore.key_of(options): line for line, options in source_fences(page_text)}
    changes, _ = quote_drift(layout.results, before, after)
    out = []
    for change in changes:
        if change.status in ("changed", "gone") and layout.page(page) in change.at and change.key in lines:
            kept = change.old or change.new
            where = kept.repo or kept.file if kept else change.key
            out.append(QuoteChange(section_at(headings, lines[change.key]), change.status, where))
    return out


def source_fences(text: str) -> list[tuple[int, dict]]:
    """(line, options) of every ``source`` fence of a page whose body is a mapping."""
    found = []
    for spot in locate(text, ("source",)):
        try:
            options = yaml.safe_load(spot.text)
        except yaml.YAMLError:
            continue
        if isinstance(options, dict):
            found.append((spot.line, options))
    return found


def _moved_value(store, proofs: dict, span: tuple[str, str], old: dict, new: dict, quote: tuple,
                 show) -> tuple[str, str] | None:
    """(then, now) as the page shows them, when a value the page quotes moved between the two
    versions by more than its noise and its shown text changed; else None."""
    _line, proof, device, key, fmt = quote
    device_class, now = pick(new, proof, device)
    then = old.get((proof, device_class)) if device_class else None
    if then is None:
        return None
    try:
        a, b = lookup(then.data, key), lookup(now.data, key)
    except (KeyError, IndexError, TypeError):
        return None
    if a == b:
        return None
    r = ratio(a, b)
    proof_file = proofs.get(proof)
    tolerance = noise.declared(proof_file.path) if proof_file else 0.0
    spreads = [noisestore.read(store, v, proof, device_class) for v in span]
    if r is not None and noise.within_noise(a, b, key, tolerance, *spreads)[0]:
        return None
    then_text, now_text = shown(a, fmt, show, (a, b)), shown(b, fmt, show, (a, b))
    return (then_text, now_text) if then_text != now_text else None  # a move the format hides is none


def _claim_turn(api, old: dict, new: dict, proof, check) -> str | None:
    """How a claim of the page turned on the new record: "broke", "holds now" (it did not hold
    on the old one), "new" (it holds, and the old record lacks a value it reads, so it could not
    be checked there), or None (the same)."""
    device_class, now = pick(new, str(proof), None)
    then = old.get((str(proof), device_class)) if device_class else None
    if then is None:
        return None
    was, now_holds = holds(api, check, then.data), holds(api, check, now.data)
    if was and not now_holds:
        return "broke"
    if now_holds and was is None:
        return "new"
    if now_holds and not was:
        return "holds now"
    return None


def upgrades(root: Path, page_text: str, notes: dict[str, dict], api="auto", layout=None,
             page: str | None = None, show=None) -> list[Upgrade]:
    """Every upgrade between two recorded versions, with what changed on this page; ``show``
    formats a value as the page does (render/values.py's format_value)."""
    layout = layout if layout is not None else Layout.at(root)  # the proofs_dir and results_dir options
    store, proofs = Store(layout.proofs, layout.results), discover(layout.proofs)
    api = claims_api() if api == "auto" else api
    versions = all_versions(store)
    quoted = page_quotes(page_text)
    claims = found_claims(api, page_text)
    headings = sections(page_text)
    out = []
    for before, after in zip(versions, versions[1:]):
        old, new = records_at(store, before), records_at(store, after)
        if not set(old) & set(new) and after not in notes:
            continue  # no proof recorded under both (e.g. a foreign accelerator record's version)
        upgrade = Upgrade(before, after, **notes.get(after, {}))
        for quote in quoted:
            moved = _moved_value(store, proofs, (before, after), old, new, quote, show)
            if moved is not None:
                line, proof, _device, key, _fmt = quote
                upgrade.values.append(ValueChange(section_at(headings, line), f"{proof}.{key}", *moved))
        for claim in claims:
            turn = _claim_turn(api, old, new, claim.proof, claim.check)
            if turn is not None:
                upgrade.claims.append(ClaimChange(section_at(headings, claim.line), turn, claim.check, claim.say))
        upgrade.quotes = quote_changes(layout, page_text, page, before, after, headings)
        out.append(upgrade)
    for version, note in notes.items():
        if version not in versions[1:]:
            out.append(Upgrade(None, version, recorded=False, **note))
    return out
