"""HTML for the proofs index and a chapter's exercises, from jinja2 templates.

The templates live beside this module (``templates/*.html``, shipped as package data) and
are rendered with autoescaping on: every title, device name, reason and quoted detail from a
record or a page is escaped. The one piece of markup let through is an exercise's text,
which is the author's Markdown (rendered here with markdown-it-py, as the page's own prose).
"""

from __future__ import annotations

from pathlib import Path

import jinja2
from markdown_it import MarkdownIt

TEMPLATES = Path(__file__).resolve().parent / "templates"
_ENV: list[jinja2.Environment] = []


def environment() -> jinja2.Environment:
    if not _ENV:
        _ENV.append(jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                                       autoescape=True, trim_blocks=True, lstrip_blocks=True,
                                       undefined=jinja2.StrictUndefined))
    return _ENV[0]


def count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def summary(page) -> str:
    """``card · 2 excerpts · 5 values`` for one page's quotes of a proof."""
    kinds: dict[str, int] = {}
    for kind, _, _ in page.items:
        kinds[kind] = kinds.get(kind, 0) + 1
    parts = ["card"] if kinds.pop("card", 0) else []
    parts.extend(count(n, kind) for kind, n in kinds.items())
    return " · ".join(parts)


def render_index(rows, pin: str) -> str:
    """The proofs index table (rows: :class:`build_hooks.core.index.ProofRow`)."""
    return environment().get_template("proofs_index.html").render(rows=rows, pin=pin, summary=summary)


def author_html(text: str) -> str:
    """An exercise's text, the author's Markdown, as HTML."""
    return MarkdownIt("commonmark").render(text).strip()


def render_exercises(items) -> str:
    """A chapter's exercises (items: :class:`build_hooks.core.exercises.Exercise`)."""
    return environment().get_template("exercises.html").render(items=items)
