"""The ``claim`` fence: a quiet mark when the claim holds, a box and a build warning when not.

A claim that holds is a ``<details>`` whose summary is a small "✓ checked" mark; the stylesheet
(assets/ldr-proofs.css) sets it at the end of the paragraph before it, and opening it shows the
author's statement, the check, the values it saw and the torch they were measured under. A
claim that does not hold is a box the reader cannot miss. Everything that comes from a proof's
data, and the author's own text, is escaped.
"""

from __future__ import annotations

import re
from html import escape

import yaml

from build_hooks.core import yamlbody
from build_hooks.pages.locate import locate
from build_hooks.proofs.records import Provenance
from build_hooks.proofs.sources import Quote
from build_hooks.render.safe import element_text
from build_hooks.render.source import resolve
from build_hooks.upgrade.broken import Why, why_broken
from build_hooks.upgrade.claims import ClaimResult, can_fail, describe, evaluate, numbers_shown
from build_hooks.upgrade.expression import ClaimError
from build_hooks.upgrade.shown import show_value

OPTIONS = ("proof", "quote", "check", "say", "device")


def render_fence(options: dict, ctx) -> str:
    unknown = sorted(set(options) - set(OPTIONS))
    if options.get("quote") and not options.get("proof") and options.get("check") and not unknown:
        return render_quote_claim(options, ctx)
    if unknown or not options.get("proof") or not options.get("check"):
        raise ClaimError("a claim takes `proof: <name>`, `check: <expression>` and optionally `say:` "
                         "and `device:` (or, on a source quote, `quote: <its id>` in place of `proof:`)"
                         f"{'; unknown: ' + ', '.join(map(str, unknown)) if unknown else ''}")
    name, check = str(options["proof"]), str(options["check"])
    item = pick_record(name, options.get("device"), ctx)
    if item is None:
        return unmeasured(name, str(options.get("device") or "accelerator"), options, ctx)
    result = _checked(name, check, item.data, ctx)
    p = item.provenance
    under = f"{p.runtime} ({p.device_class})"
    if p.stale:
        under += ", a stale record"
    why = None
    if not result.holds:
        why = broken(ctx, name, check, p.device_class, result.values)
        _warn(ctx, f"claim does not hold: {check} with {describe(result.values, check)} (proof {name}, {under})"
              + (f"; {why.note}" if why.note else ""), check)
    return _claim_html(name, check, options, result, p, under, ctx, why)


def broken(ctx, name: str, check: str, device_class: str, values: dict) -> Why:
    """What changed under a claim that does not hold, as far as the store knows (broken.py):
    torch, or the values between runs of one torch (noise), or nothing known."""
    if ctx.library is None or not hasattr(ctx.library, "store"):
        return Why("This claim does not hold", "")
    return why_broken(ctx.library, name, check, device_class, values)


def _checked(name: str, check: str, data: dict, ctx) -> ClaimResult:
    """The claim evaluated on the record's data; a warning when it holds but could not fail."""
    try:
        result = evaluate(check, data)
    except ClaimError as exc:
        raise ClaimError(f"claim on proof {name}: {exc}") from None
    if result.holds and not can_fail(check, data):
        _warn(ctx, f"claim cannot fail: {check} gives the same answer whatever values proof {name} "
                   "records for it (zero, negated, a thousand times larger or smaller...); fix: compare a "
                   "measured value with a bound it could cross", check)
    return result


def _claim_html(name: str, check: str, options: dict, result: ClaimResult, p: Provenance, under: str, ctx,
                why: Why | None = None) -> str:
    """The quiet mark of a claim that holds (what it checked folded away), or the box of one that
    does not."""
    href = escape(ctx.card_href(name), quote=True)
    among = numbers_shown(result.values, check)  # each number with the digits that tell it apart
    # one element for all the values, a line each (a list of them cost 1 + 2 elements a value)
    values = "\n".join(f"{element_text(path)} = {element_text(show_value(value, among=among))}"
                        for path, value in result.values.items())
    detail = (f'<p class="ldr-claim__check">Check <code>{element_text(check)}</code> on the data of '
              f'<a href="{href}">proof {element_text(name)}</a>, measured {element_text(p.measured_at[:10])} on '
              f'{element_text(p.device)}:</p><code class="ldr-claim__values">{values}</code>')
    if result.holds:
        return _mark("proof", name, options, f"checked against {under}", detail)
    say = f'<span class="ldr-claim__say">{element_text(str(options["say"]))}</span> ' if options.get("say") else ""
    title = element_text((why or Why("This claim does not hold", "")).title)
    return (f'<div class="ldr-claim ldr-claim--broken" data-proof="{escape(name, quote=True)}" '
            f'data-holds="false" role="note"><p class="ldr-claim__title">'
            f'{title}{": " if say else ""}{say}</p>{detail}</div>')


def _mark(kind: str, ident: str, options: dict, against: str, detail: str) -> str:
    """A claim that holds: a small "✓ checked" mark (the stylesheet draws the ✓) that opens onto
    the author's statement, then what it was checked against with the check and the values it
    read (``detail``, which starts ``<p class="ldr-claim__check">Check ``). The mark has no
    title: what it was checked against is the first thing it says once open, not repeated on
    every mark of the page."""
    say = str(options.get("say") or "").strip()
    against = against[0].upper() + against[1:]
    statement = f'<p class="ldr-claim__say">{element_text(say)}</p>' if say else ""
    detail = detail.replace(">Check ", f">{element_text(against)} on every build: ", 1)
    return (f'<details class="ldr-claim" data-{kind}="{escape(ident, quote=True)}" data-holds="true">'
            f'<summary>checked</summary>{statement}{detail}</details>')


ACCELERATORS = ("cuda", "mps")
DEVICES = ("cpu", *ACCELERATORS, "accelerator")


def pick_record(name: str, device, ctx):
    """The record a claim is checked on, or None when it is about an accelerator that no record
    has measured yet. ``device: cpu|cuda|mps`` names one; ``device: accelerator`` takes any
    accelerator's; without ``device:``, a proof that must run on an accelerator
    (``"accelerator": "require"``) is checked on an accelerator's record only, any other on its
    primary record (an accelerator's when there is one, else the CPU's)."""
    if device is not None and device not in DEVICES:
        raise ClaimError(f"`device: {device}` is not one of {', '.join(DEVICES)}")
    library = ctx.library
    proof = getattr(library, "proofs", {}).get(name) if library is not None else None
    if device is None and getattr(proof, "accelerator", "none") == "require":
        device = "accelerator"
    if device is None:
        return ctx.proof(name)
    records = ctx.records(name) if device == "cpu" else (ctx.lookup(name) if ctx.lookup else {})
    wanted = ACCELERATORS if device == "accelerator" else (device,)
    for device_class in wanted:
        if device_class in records:
            return records[device_class]
    if device == "cpu":
        raise ClaimError(f"proof {name} has no cpu record; recorded: {', '.join(records) or 'none'}")
    return None


def unmeasured(name: str, device: str, options: dict, ctx) -> str:
    """A claim about an accelerator that no record has measured yet: said plainly, never
    checked against another device's numbers."""
    what = "an accelerator" if device == "accelerator" else f"a {device.upper()} device"
    message = (f"claim on proof {name} is not checked: it is about {what}, and no such record exists "
               f"yet; run `ldr run {name}` on such a machine and merge its record")
    ctx.report("info", message, str(options["check"]), "claim")
    say = f'<span class="ldr-claim__say">{element_text(str(options["say"]))}</span> ' if options.get("say") else ""
    return (f'<p class="ldr-claim ldr-claim--unmeasured" data-proof="{escape(name, quote=True)}" '
            f'data-holds="unmeasured">{say}<span class="ldr-claim__badge">not yet checked: this claim is '
            f"about {element_text(what)}, and no measurement on one has been recorded</span></p>")


def render_quote_claim(options: dict, ctx) -> str:
    """A claim on the text of a source quote: ``quote: ID`` names a source fence's ``id``, and the
    check reads ``QUOTE.text``, ``QUOTE.lines``, ``QUOTE.first``, ``QUOTE.last``."""
    ident, check = str(options["quote"]), str(options["check"])
    if options.get("device"):
        raise ClaimError("a claim on a quote takes no `device:` (quotes read the pinned torch's files)")
    found = quote_by_id(ident, ctx.pages or ())
    data = {"QUOTE": {"text": found.text, "lines": list(found.lines), "first": found.first,
                      "last": found.last, "file": found.repo or found.path}}
    try:
        result = evaluate(check, data)
    except ClaimError as exc:
        raise ClaimError(f"claim on quote {ident}: {exc}") from None
    where = f"{found.repo or found.path} lines {found.first}-{found.last}, torch {found.torch}"
    if result.holds and not can_fail(check, data):
        _warn(ctx, f"claim cannot fail: {check} gives the same answer whatever quote {ident} says; fix: "
                   "test a token of the quoted lines", check)
    if not result.holds:
        _warn(ctx, f"claim does not hold: {check} on quote {ident} ({where})", check)
    detail = (f'<p class="ldr-claim__check">Check <code>{element_text(check)}</code> on the quote '
              f'<code>{element_text(ident)}</code> of <code>{element_text(where)}</code>.</p>')
    if result.holds:
        return _mark("quote", ident, options, f"checked against the source of torch {found.torch}", detail)
    say = f'<span class="ldr-claim__say">{element_text(str(options["say"]))}</span> ' if options.get("say") else ""
    return (f'<div class="ldr-claim ldr-claim--broken" data-quote="{escape(ident, quote=True)}" '
            f'data-holds="false" role="note"><p class="ldr-claim__title">This claim no longer holds for the '
            f'source of torch {element_text(found.torch)}{": " if say else ""}{say}</p>{detail}</div>')


def _warn(ctx, message: str, check: str) -> None:
    ctx.report("warning", message, check, "claim")


def quote_by_id(ident: str, pages) -> Quote:
    """The quote of the source fence whose ``id`` is ``ident``, on any page of the site."""
    for _source, _url, text in pages:
        if "```source" not in text and "~~~source" not in text:
            continue
        for spot in locate(text, ("source",)):
            try:
                options = yamlbody.load(spot.text)
            except yaml.YAMLError:
                continue
            if isinstance(options, dict) and options.get("id") == ident:
                return resolve(options)
    raise ClaimError(f"no source fence has `id: {ident}`; give the quote that id (claims name quotes by id)")


_CLAIM_AFTER = re.compile(r'</p>\s*<details class="ldr-claim"')
_OPENING = re.compile(r"<p(?=[\s>])([^<>]*)>")


def mark_claimed(html: str) -> str:
    """The page with each paragraph that a claim mark follows classed ``ldr-claimed``, so that the
    stylesheet runs the paragraph on into the mark with a plain class rule (a ``:has()`` rule
    is tested again on every change to the page while it loads). Only a ``<p>`` whose end is
    directly followed, whitespace aside, by a holding claim's ``<details>`` is marked."""
    if '<details class="ldr-claim"' not in html:
        return html
    out, done = [], 0
    for m in _CLAIM_AFTER.finditer(html):
        start = max(html.rfind("<p>", done, m.start()), html.rfind("<p ", done, m.start()))
        opening = _OPENING.match(html, start) if start >= 0 else None
        if opening is None or "</p>" in html[opening.end():m.start()]:
            continue
        attrs = opening.group(1)
        if 'class="' in attrs:
            tag = opening.group(0).replace('class="', 'class="ldr-claimed ', 1)
        else:
            tag = f'<p class="ldr-claimed"{attrs}>'
        out += [html[done:start], tag]
        done = opening.end()
    return "".join(out) + html[done:]
