"""The "Corrections" note of a chapter as HTML (the ``corrections`` fence): what
build_hooks.upgrade.corrections finds changed on the page between recorded versions, newest first,
every recorded string escaped."""

from __future__ import annotations

from html import escape

from build_hooks.core.errors import DirectiveError
from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.pages.locate import Section
from build_hooks.render.values import format_value
from build_hooks.upgrade.corrections import Upgrade, entries, upgrades


def where_html(where: Section | None) -> str:
    """"In <section>: ", linked to the heading the reader sees; the page's opening has none."""
    if where is None:
        return "Opening: "
    return f'In <a href="#{escape(where.anchor)}">{escape(where.title)}</a>: '


def render(items: list[Upgrade]) -> str:
    if not items:
        return '<aside class="ldr-corrections ldr-corrections--none" hidden></aside>'
    parts = ['<aside class="ldr-corrections" aria-label="Corrections">',
             '<p class="ldr-corrections__title">Corrections</p>', '<ul class="ldr-corrections__upgrades">']
    for item in reversed(items):  # the newest upgrade first
        span = f"torch {item.from_version} → {item.to_version}" if item.from_version else f"torch {item.to_version}"
        head = f'<strong>{escape(span)}</strong>'
        if item.date:
            head += f' <time datetime="{escape(item.date)}">{escape(item.date)}</time>'
        if item.note:
            head += f': <span class="ldr-corrections__note">{escape(item.note)}</span>'
        parts.append(f'<li class="ldr-corrections__upgrade" data-torch="{escape(item.to_version)}"><p>{head}</p>')
        rows = [f'<li class="ldr-corrections__value">{where_html(where)}<code>{escape(what)}</code> '
                f'<del>{escape(a)}</del> → <ins>{escape(b)}</ins></li>' for where, what, a, b in item.values]
        rows += [f'<li class="ldr-corrections__quote">{where_html(where)}the quoted lines of '
                 f'<code>{escape(path)}</code> {"changed" if status == "changed" else "no longer match"}</li>'
                 for where, status, path in item.quotes]
        rows += [f'<li class="ldr-corrections__claim ldr-corrections__claim--{escape(status.replace(" ", "-"))}">'
                 f"{where_html(where)}claim {escape(status)}: <code>{escape(check)}</code></li>"
                 for where, status, check in item.claims]
        if rows:
            parts.append('<ul class="ldr-corrections__changes">' + "".join(rows) + "</ul>")
        elif item.recorded:
            parts.append('<p class="ldr-corrections__same">None of the numbers or claims on this page changed.</p>')
        else:
            parts.append('<p class="ldr-corrections__same">No records of this version are in the history yet.</p>')
        parts.append("</li>")
    parts.append("</ul></aside>")
    return "\n".join(parts)


def render_fence(options: dict, ctx) -> str:
    if "arg" in options and not str(options["arg"]).strip():
        options = {}
    if "arg" in options:
        raise DirectiveError("the corrections fence takes a list of `- torch: V` entries (or nothing)")
    notes = entries(options)
    if ctx.page is None:
        raise DirectiveError("the corrections fence must be on a page")
    path = ctx.folders.pages / ctx.page
    try:
        text = read_text(path, inside=ctx.folders.pages)
    except (OSError, UnicodeDecodeError, UnsafeFile) as exc:
        raise DirectiveError(f"cannot read {path} to find its quoted values ({exc})") from None
    return render(upgrades(ctx.root, text, notes, layout=ctx.folders, page=ctx.page, show=format_value))
