"""The drift report as HTML: a section for a page (```drift-report) or a standalone file.

Pure functions of a :class:`build_hooks.upgrade.drift.Drift`; every recorded string is escaped.
"""

from __future__ import annotations

import re
from html import escape

from build_hooks.core.errors import DirectiveError, LdrError
from build_hooks.pages.links import page_link
from build_hooks.proofs.datalines import describe
from build_hooks.proofs.discovery import discover
from build_hooks.render.numbers import count, group, sig
from build_hooks.site.index import guess_url, site_pages
from build_hooks.site.publish import plain_uri
from build_hooks.store import noise
from build_hooks.store.store import Store
from build_hooks.upgrade.drift import Drift, compute
from build_hooks.upgrade.leaves import NAMED_BY
from build_hooks.upgrade.proofdrift import ValueDrift
from build_hooks.upgrade.quotedrift import quote_lines
from build_hooks.upgrade.shown import show_value


def ratio_text(value: ValueDrift) -> str:
    if value.ratio is None:
        return "added" if value.old is None else ("removed" if value.new is None else "changed")
    z = getattr(value, "z", None)
    return f"x{sig(value.ratio)}" + ("" if z is None else f", z {z:.1f}")


def value_text(value, among=()) -> str:
    """A recorded value as the report shows it, under the site's one number rule
    (render/numbers.py): an int exact and grouped (``434,184,800``), a float with the digits that
    tell it apart from ``among`` (the value it changed from or to: ``175`` -> ``503``, never
    ``175.29407999999998``), ``true``/``false``, text as it is, an absent value as "—", and a
    named item (a library added or removed) as its fields."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return show_value(value, among=among)
    if isinstance(value, int):
        return group(value)
    if isinstance(value, dict):
        return " · ".join(f"{key} {value_text(item)}" for key, item in value.items() if key not in NAMED_BY)
    if isinstance(value, str):
        return value
    return describe(value)


def broken(text: str) -> str:
    """Escaped, with a break allowed after each dot and slash (``<wbr>``): a key or a path wraps
    between its parts on a phone, never inside a name."""
    return escape(text).replace(".", ".<wbr>").replace("/", "/<wbr>")


def change_html(value: ValueDrift) -> str:
    """The change column: the ratio (×2.09) and, for a value judged against measured noise, its z."""
    if value.ratio is None:
        return "added" if value.old is None else ("removed" if value.new is None else "changed")
    text = f"×{sig(value.ratio)}"
    notes = (["noise"] if value.noise else []) + ([f"z {value.z:.1f}"] if value.z is not None else [])
    return text + (f" ({', '.join(notes)})" if notes else "")


def html_fragment(report: Drift, level: int = 2) -> str:
    """The report as an HTML section (everything escaped), for a page or a standalone file; each
    proof's heading is an ``h{level}`` (2 under a page's title: no level skipped). On a phone the
    tables stack (assets/ldr-proofs.css), one value to a block, so nothing pans sideways."""
    fv, tv = escape(report.from_version), escape(report.to_version)
    h = f"h{min(max(level, 1), 6)}"
    out = [f'<section class="ldr-drift" data-from="{fv}" data-to="{tv}">',
           f'<p class="ldr-drift__summary">{_counts(report)}.</p>']
    for p in report.proofs:
        out.append(f'<section class="ldr-drift__proof" id="{anchor(p)}" data-proof="{escape(p.name)}">'
                   f'<{h} class="ldr-drift__name"><code>{escape(p.name)}</code> '
                   f'<span class="ldr-drift__device">{escape(p.device_class)}</span></{h}>')
        # Values a page quotes, and values that changed, come first; a value only one side has and
        # no page quotes (a library one build has and the other lacks) is folded away below them.
        shown: list[ValueDrift] = []
        folded: list[ValueDrift] = []
        for v in p.values:
            (shown if v.quoted_at or (v.old is not None and v.new is not None) else folded).append(v)
        if shown:
            out.append(_values_table(shown, fv, tv))
        if folded:
            new, gone = sum(v.old is None for v in folded), sum(v.new is None for v in folded)
            said = " and ".join(part for part in (f"{count(new, 'value')} only in {tv}" if new else "",
                                                  f"{count(gone, 'value')} only in {fv}" if gone else "") if part)
            out.append(f'<details class="ldr-drift__diff ldr-drift__onesided"><summary>{said}, quoted on no page'
                       f"</summary>{_values_table(folded, fv, tv)}</details>")
        if p.diff:
            rows = []
            for line in p.diff[2:]:
                kind = {"+": "added", "-": "removed", "@": "hunk"}.get(line[:1], "same")
                rows.append(f'<span class="ldr-drift__line--{kind}">{escape(line)}</span>')
            said = f"{count(len(p.removed), 'line')} removed, {count(len(p.added), 'line')} added"
            out.append(f'<details class="ldr-drift__diff"><summary>What it printed: {said}</summary>'
                       '<pre class="ldr-drift__output"><code>' + "\n".join(rows) + "</code></pre></details>")
        if p.claims:
            out.append('<ul class="ldr-drift__claims">')
            for c in p.claims:
                status = "holds now (the old record lacks a value it reads)" if c.status == "holds-now" and \
                    c.old is None else c.status.replace("-", " ")
                out.append(f'<li class="ldr-drift__claim ldr-drift__claim--{c.status}">'
                           f"<strong>{escape(status)}</strong> <code>{escape(c.check)}</code> "
                           f"({broken(c.page_line)})</li>")
            out.append("</ul>")
        out.append("</section>")
    if not report.proofs:
        out.append('<p class="ldr-drift__none">Nothing changed.</p>')
    out.append("</section>")
    return "\n".join(out)


def _values_table(values: list[ValueDrift], fv: str, tv: str) -> str:
    rows = [f'<table class="ldr-drift__values"><thead><tr><th>value</th><th>{fv}</th>'
            f"<th>{tv}</th><th>change</th></tr></thead><tbody>"]
    for v in values:
        kind = "noise" if v.noise else "changed"
        among = (v.old, v.new)
        quoted = (f'<span class="ldr-drift__quoted">quoted at {escape(", ".join(v.quoted_at))}</span>'
                  if v.quoted_at else "")
        rows.append(f'<tr class="ldr-drift__value ldr-drift__value--{kind}">'
                    f'<td class="ldr-drift__key"><code>{broken(v.key)}</code>{quoted}</td>'
                    f'<td class="ldr-drift__old" data-label="{fv}">{escape(value_text(v.old, among))}</td>'
                    f'<td class="ldr-drift__new" data-label="{tv}">{escape(value_text(v.new, among))}</td>'
                    f'<td class="ldr-drift__change">{escape(change_html(v))}</td></tr>')
    rows.append("</tbody></table>")
    return "".join(rows)


def _counts(report: Drift) -> str:
    """``torch 2.13.0 → 2.14.1: 14 records compared, 13 changed`` (escaped), the report's first line."""
    return (f"torch {escape(report.from_version)} → {escape(report.to_version)}: "
            f'{count(report.compared, "record")} compared, {len(report.proofs)} changed'
            + ("" if report.claims_checked else "; claims not checked"))


def anchor(proof) -> str:
    """The id of a proof's section in the full report, its name and device class made safe as an id."""
    return "drift-" + re.sub(r"[^A-Za-z0-9_-]", "-", f"{proof.name}-{proof.device_class}")


def claims_text(claims) -> str:
    """``1 broke · 2 hold now · 1 still holds``: how many of a proof's claims are in each state,
    the verb agreeing with the count, or "—"."""
    said = {"broke": ("broke", "broke"), "holds-now": ("holds now", "hold now"),
            "still-broken": ("still broken", "still broken"), "still-holds": ("still holds", "still hold")}
    counts = [(labels, sum(c.status == status for c in claims)) for status, labels in said.items()]
    return " · ".join(f"{n} {labels[n != 1]}" for labels, n in counts if n) or "—"


def summary_fragment(report: Drift, details: str) -> str:
    """The report in one row per proof (what moved, the largest move, what it printed, its
    claims), each linking to its section of the full report at the page ``details`` (a URL
    relative to this page): the page a reader opens first, small on a phone; the values line
    by line are one click away. Everything recorded is escaped."""
    fv, tv = escape(report.from_version), escape(report.to_version)
    out = [f'<section class="ldr-drift ldr-drift--summary" data-from="{fv}" data-to="{tv}">',
           f'<p class="ldr-drift__summary">{_counts(report)}. '
           f'<a href="{escape(details)}">Every value, output line and claim</a>.</p>']
    if report.proofs:
        out.append('<table class="ldr-drift__sum"><thead><tr><th>proof</th><th>values</th>'
                   "<th>largest move</th><th>what it printed</th><th>claims</th></tr></thead><tbody>")
        for p in report.proofs:
            moved = [v for v in p.changed if v.old is not None and v.new is not None]
            parts = [f"{len(moved)} moved"] if moved else []
            parts += [f"{n} {label}" for n, label in ((sum(v.old is None for v in p.changed), "new"),
                                                      (sum(v.new is None for v in p.changed), "gone")) if n]
            noisy = len(p.values) - len(p.changed)
            counted = (", ".join(parts) or "none beyond noise") + (f" (+{noisy} within noise)" if noisy else "")
            largest = max(moved, key=lambda v: (v.ratio is not None, v.size), default=None)  # numbers first
            biggest = (f"<code>{escape(largest.key)}</code> {escape(change_html(largest))}" if largest else "—")
            printed = ", ".join(f"{count(len(lines), 'line')} {label}" for lines, label in
                                ((p.removed, "removed"), (p.added, "added")) if lines) or "the same"
            out.append(f'<tr><td><a href="{escape(details)}#{anchor(p)}"><code>{escape(p.name)}</code></a> '
                       f'<span class="ldr-drift__device">{escape(p.device_class)}</span></td>'
                       f'<td data-label="values">{counted}</td><td data-label="largest">{biggest}</td>'
                       f'<td data-label="printed">{printed}</td>'
                       f'<td data-label="claims">{claims_text(p.claims)}</td></tr>')
        out.append("</tbody></table>")
    else:
        out.append('<p class="ldr-drift__none">Nothing changed.</p>')
    out.append("</section>")
    return "\n".join(out)


STANDALONE_CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
.ldr-drift__quoted{display:block;color:#666;font-size:.9em}
.ldr-drift__value--noise{color:#666;font-style:italic}.ldr-drift__line--added{color:#176f2c}
.ldr-drift__line--removed{color:#a4161a}.ldr-drift__claim--broke{color:#a4161a}
.ldr-drift__claim--holds-now{color:#176f2c}pre{background:#f6f6f6;padding:.5rem;overflow-x:auto}
code{overflow-wrap:anywhere}@media (max-width:45em){table,tbody,tr,td{display:block}thead{display:none}
tr{padding:.4rem 0;border-bottom:1px solid #ccc}td{border:0;padding:0}
td[data-label]::before{content:attr(data-label) ": ";color:#666}pre{white-space:pre-wrap}}"""


def html_document(report: Drift) -> str:
    title = escape(f"Drift: torch {report.from_version} to {report.to_version}")
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{STANDALONE_CSS}</style></head><body><h1>{title}</h1>\n{html_fragment(report)}\n"
            "</body></html>\n")


# -- text, for `ldr drift` ---------------------------------------------------------------
def text_report(report: Drift) -> str:
    head = (f"Drift torch {report.from_version} -> {report.to_version}: {report.compared} record(s) "
            f"compared, {len(report.proofs)} changed (a change is noise when its z, the change in "
            f"standard errors of the measured run-to-run noise, is at most {noise.Z:g}: see noise.py)")
    lines = [head if report.claims_checked else head + " (claims not checked: build_hooks.upgrade.claims is missing)"]
    for p in report.proofs:
        broke = sum(c.status == "broke" for c in p.claims)
        lines.append(f"{p.name} ({p.device_class}): {len(p.changed)} value(s) changed, "
                     f"{len(p.values) - len(p.changed)} within noise, "
                     f"output {len(p.removed)} line(s) removed, {len(p.added)} added, {broke} claim(s) broke")
        for v in p.values:
            mark = "  (noise)" if v.noise else ""
            where = f"  quoted at {', '.join(v.quoted_at)}" if v.quoted_at else ""
            old, new = (value_text(x) if isinstance(x, dict) else describe(x) for x in (v.old, v.new))
            lines.append(f"  {v.key}: {old} -> {new} ({ratio_text(v)}){mark}{where}")
        lines.extend(f"  | {line}" for line in p.diff[2:])
        lines.extend(f"  output excerpted at {where}: re-read it" for where in p.excerpted_at)
        for c in p.claims:
            lines.append(f"  claim {c.status}: {c.page_line}  {c.check}")
    lines.extend(quote_lines(report.quotes))
    lines.extend(f"warning: {problem}" for problem in report.problems)
    for label, items in (("only under", report.only_from), ("new under", report.only_to)):
        if items:
            version = report.from_version if label == "only under" else report.to_version
            lines.append(f"{label} torch {version}: {', '.join(items)}")
    return "\n".join(lines)


# -- the fence -----------------------------------------------------------------------------
def render_fence(options: dict, ctx) -> str:
    """```drift-report with optional ``from:`` and ``to:`` versions, and ``details:``, the page
    (a path under the pages' folder) whose own ```drift-report shows everything: given, this
    fence shows one row per proof, linking there."""
    unknown = set(options) - {"from", "to", "details"}
    if unknown:
        raise DirectiveError("drift-report takes `from:` and `to:` (torch versions) and `details:` (the page "
                             f"with the full report), not {', '.join(sorted(unknown))}")
    details = _details_link(options["details"], ctx) if "details" in options else None
    try:
        folders = ctx.folders  # the proofs_dir and results_dir options
        report = compute(ctx.root, Store(folders.proofs, folders.results), from_version=_version(options.get("from")),
                         to_version=_version(options.get("to")), proofs=discover(folders.proofs),
                         docs=folders.pages)
    except LdrError as exc:
        raise DirectiveError(f"drift-report: {exc}") from None
    return html_fragment(report) if details is None else summary_fragment(report, details)


def _details_link(value, ctx) -> str:
    """The link from this page to the page ``details:`` names (``drift/all.md``: a Markdown page
    of the site, given from the pages' folder as MkDocs' nav gives it)."""
    source = str(value).strip() if isinstance(value, (str, int, float)) else ""
    if not (source.endswith(".md") and plain_uri(source)):
        raise DirectiveError(f"drift-report: `details: {value}` is not a page; fix: give the Markdown page that "
                             "shows the full report, from the pages' folder (`details: drift/full-report.md`)")
    pages = ctx.pages if ctx.pages is not None else site_pages(ctx.folders.pages)
    url = next((url for page, url, _ in pages if page == source), None)
    if url is None:
        raise DirectiveError(f"drift-report: `details: {source}` names no page of the site; fix: add that page, "
                             "holding a ```drift-report fence without `details:`, or name the page that has one")
    page_url = ctx.page_url if ctx.page_url is not None else (guess_url(ctx.page) if ctx.page else None)
    return page_link(page_url, url)


def _version(value) -> str | None:
    return None if value is None else str(value).strip()
