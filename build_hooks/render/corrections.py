"""The "Corrections" note of a chapter as HTML (the ``corrections`` fence), newest upgrade first.

Each upgrade reads as prose: which torch versions, the author's note, then what changed on the
page in words (how many values, claims and source quotes, and in which sections, linked to
their headings), from :meth:`build_hooks.upgrade.corrections.Upgrade.summary`. The detailed
list (each key with its old and new value as the page shows them, each claim in its author's
words, or its check where it has none, each quoted file) is one click away, folded in a
``<details>``. Every recorded string is escaped.
"""

from __future__ import annotations

from html import escape

from build_hooks.core.errors import DirectiveError
from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.pages.sections import Section
from build_hooks.render.numbers import count
from build_hooks.render.values import format_value
from build_hooks.upgrade.corrections import Change, Upgrade, entries, upgrades


def section_link(where: Section | None) -> str:
    """A section named as the reader sees it, linked to its heading; the page's opening has none."""
    if where is None:
        return "the opening"
    return f'<a href="#{escape(where.anchor, quote=True)}">{escape(where.title)}</a>'


def listed(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def where_html(where: Section | None) -> str:
    """"In <section>: ", linked to the heading the reader sees; the page's opening has none."""
    if where is None:
        return "In the opening: "
    return f"In {section_link(where)}: "


def broken(key: str, at: str = ".") -> str:
    """A data key that wraps at its dots (a path: at its slashes), never inside a name."""
    return escape(key).replace(at, at + "<wbr>")


def sentence(change: Change, before: str) -> str:
    """One kind of change as a sentence: how many, what happened, and in which sections."""
    n, where = change.count, listed([section_link(s) for s in change.sections])
    one = n == 1
    if change.kind == "values":
        return f"{count(n, 'value')} quoted on this page changed, in {where}."  # a name is one too
    if change.kind == "claims broke":
        return f"{count(n, 'claim')} no longer {'holds' if one else 'hold'}, in {where}."
    if change.kind == "claims holds now":
        return (f"{count(n, 'claim')} that did not hold under torch {escape(before)} "
                f"{'holds' if one else 'hold'} now, in {where}.")
    if change.kind == "claims new":
        return (f"{count(n, 'claim')} {'is' if one else 'are'} checked for the first time, in {where}: "
                f"{'it reads' if one else 'they read'} values the torch {escape(before)} records did not have.")
    if change.kind == "quotes gone":
        return f"The quoted lines of {count(n, 'source file')} no longer match the source, in {where}."
    return f"The quoted lines of {count(n, 'source file')} changed, in {where}."


def details_html(item: Upgrade) -> str:
    """Every change of one upgrade, by section: keys with old -> new, checks, quoted files."""
    groups: dict[Section | None, list[str]] = {}
    for where, what, a, b in item.changed_values():
        groups.setdefault(where, []).append(
            f'<li class="ldr-corrections__value"><code>{broken(what)}</code>: {escape(a)} → '
            f'<strong>{escape(b)}</strong></li>')
    for where, status, path in item.quotes:
        groups.setdefault(where, []).append(
            f'<li class="ldr-corrections__quote">the quoted lines of <code>{broken(path, "/")}</code> '
            f'{"changed" if status == "changed" else "no longer match"}</li>')
    for where, status, check, say in item.claims:
        said = {"broke": "no longer holds", "holds now": "holds now",
                "new": "is checked for the first time, and holds"}.get(status, status)
        # the author's statement in words where there is one (the mark on the page shows the check)
        stated = escape(say) if say else f"<code>{escape(check)}</code>"
        groups.setdefault(where, []).append(
            f'<li class="ldr-corrections__claim ldr-corrections__claim--{escape(status.replace(" ", "-"))}">'
            f"claim {escape(said)}: {stated}</li>")
    order = sorted(groups, key=lambda s: -1 if s is None else s.line)
    rows = "".join(f"<li>{where_html(where)}<ul>{''.join(groups[where])}</ul></li>" for where in order)
    return (f'<details class="ldr-corrections__details"><summary>Every change, in detail</summary>'
            f'<ul class="ldr-corrections__changes">{rows}</ul></details>')


def upgrade_html(item: Upgrade) -> str:
    """One upgrade: the versions and date, the author's note, what changed in words, the list folded."""
    span = (f"torch {item.from_version} → {item.to_version}" if item.from_version
            else f"torch {item.to_version}")
    head = f"<strong>{escape(span)}</strong>"
    if item.date:
        head += f' (<time datetime="{escape(item.date, quote=True)}">{escape(item.date)}</time>)'
    parts = [f'<div class="ldr-corrections__upgrade" data-torch="{escape(item.to_version, quote=True)}">']
    note = f' <span class="ldr-corrections__note">{escape(item.note)}</span>' if item.note else ""
    parts.append(f"<p>{head}.{note}</p>")
    changes = item.summary()
    if changes:
        said = " ".join(sentence(change, item.from_version or "") for change in changes)
        parts.append(f'<p class="ldr-corrections__summary">{said}</p>')
        parts.append(details_html(item))
    elif item.recorded:
        parts.append('<p class="ldr-corrections__same">None of the numbers or claims on this page changed.</p>')
    else:
        parts.append('<p class="ldr-corrections__same">No records of this version are in the history yet.</p>')
    parts.append("</div>")
    return "".join(parts)


def render(items: list[Upgrade]) -> str:
    if not items:
        return '<aside class="ldr-corrections ldr-corrections--none" hidden></aside>'
    body = "\n".join(upgrade_html(item) for item in reversed(items))  # the newest upgrade first
    return f'<aside class="ldr-corrections" aria-label="Corrections">\n{body}\n</aside>'


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
