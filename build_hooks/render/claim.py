"""The ``claim`` fence: a badge when the claim holds, a box and a build warning when not.

Everything that comes from a proof's data, and the author's own text, is escaped.
"""

from __future__ import annotations

import logging
from html import escape

from build_hooks.core.claims import ClaimError, describe, evaluate, show_value

OPTIONS = ("proof", "check", "say", "device")


def render_fence(options: dict, ctx) -> str:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown or not options.get("proof") or not options.get("check"):
        raise ClaimError("a claim takes `proof: <name>`, `check: <expression>` and optionally `say:` "
                         f"and `device:`{'; unknown: ' + ', '.join(map(str, unknown)) if unknown else ''}")
    name, check = str(options["proof"]), str(options["check"])
    device = options.get("device")
    if device:
        records = ctx.records(name)
        if device not in records:
            raise ClaimError(f"proof {name} has no {device} record; recorded: {', '.join(records)}")
        item = records[device]
    else:
        item = ctx.proof(name)
    try:
        result = evaluate(check, item.data)
    except ClaimError as exc:
        raise ClaimError(f"claim on proof {name}: {exc}") from None
    p = item.provenance
    under = f"torch {p['torch']} ({p['device_class']})"
    if p.get("stale"):
        under += ", a stale record"
    if not result.holds:
        message = f"claim does not hold: {check} with {describe(result.values)} (proof {name}, {under})"
        report = ctx.extra.get("report")
        if report is None:  # plain Python-Markdown, without the ldr state's diagnostics
            logging.getLogger("build_hooks.core.claims").warning(message)
        else:
            report("warning", message, check, "claim")
    href = escape(ctx.extra["card_href"](name) if "card_href" in ctx.extra else f"#proof-{name}", quote=True)
    say = f'<span class="ldr-claim__say">{escape(str(options["say"]))}</span> ' if options.get("say") else ""
    values = "".join(f"<li><code>{escape(path)}</code> = {escape(show_value(value))}</li>"
                     for path, value in result.values.items())
    detail = (f'<p>Check <code>{escape(check)}</code> on the data of <a href="{href}">proof '
              f'<code>{escape(name)}</code></a>, measured {escape(str(p.get("measured_at", ""))[:10])} on '
              f'{escape(str(p.get("device", "")))}:</p><ul class="ldr-claim__values">{values}</ul>')
    if result.holds:
        return (f'<details class="ldr-claim" data-proof="{escape(name, quote=True)}" data-holds="true">'
                f'<summary>{say}<span class="ldr-claim__badge">claim checked against '
                f'{escape(under)}</span></summary>{detail}</details>')
    return (f'<div class="ldr-claim ldr-claim--broken" data-proof="{escape(name, quote=True)}" '
            f'data-holds="false" role="note"><p class="ldr-claim__title">This claim no longer holds under '
            f'{escape(under)}{": " if say else ""}{say}</p>{detail}</div>')
