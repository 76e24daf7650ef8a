"""A page's headings: where each starts, what it says and the anchor Python-Markdown's toc gives
it, so that a line of the page can be named by its section (the corrections note says which
sections an upgrade touched). Parsed with the same markdown-it tokens as locate.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

from build_hooks.pages.locate import block_tokens, markdown_parser, unfold_containers


@dataclass(frozen=True)
class Section:
    """A heading of a page: where it starts, what it says and the anchor the toc gives it."""

    line: int
    title: str
    anchor: str


# A trailing attr_list block, `{: #id .class key=value}`; the toc uses its #id when it has one.
_ATTRS = re.compile(r"\s*\{:?([^}]*)\}\s*$")
_ID = re.compile(r"(?:^|\s)#([\w-]+)")


def _slug(title: str) -> str:
    """The anchor Python-Markdown's toc extension makes of a heading's text (its default slugify)."""
    import unicodedata

    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def sections(text: str) -> list[Section]:
    """Every heading of a page in order, so that a line can be named by the section it is in."""
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":  # front matter: blank it out, keeping line numbers
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "...")), 0)
        lines[: end + 1] = [""] * (end + 1)
    tokens = block_tokens("\n".join(unfold_containers(lines)))
    out: list[Section] = []
    seen: dict[str, int] = {}
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type != "heading_open" or opening.map is None or inline.type != "inline":
            continue
        raw = inline.content
        attrs = _ATTRS.search(raw)
        explicit = _ID.search(attrs.group(1)) if attrs else None
        raw = _ATTRS.sub("", raw)
        parsed = markdown_parser(inline=True).parseInline(raw)
        children = parsed[0].children if parsed else None
        title = "".join(child.content for child in children or [] if child.type in ("text", "code_inline"))
        title = _ATTRS.sub("", title).strip() or raw.strip()
        anchor = explicit.group(1) if explicit else _slug(title)
        if not explicit:
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            if count:
                anchor = f"{anchor}_{count}"
        out.append(Section(opening.map[0] + 1, title, anchor))
    return out


def section_at(found: list[Section], line: int) -> Section | None:
    """The section a line of the page belongs to (the last heading at or above it)."""
    best = None
    for section in found:
        if section.line > line:
            break
        best = section
    return best
