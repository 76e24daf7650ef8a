"""HTML for the proofs index and a chapter's exercises, from jinja2 templates.

The templates live beside this module (``templates/*.html``, shipped as package data) and
are rendered with autoescaping on: every title, device name, reason and quoted detail from a
record or a page is escaped. The markup let through is an exercise's text, which is the
author's Markdown (rendered here with markdown-it-py, as the page's own prose), and a proof
title's `backticks`, which become code (the ``code`` filter: everything else is escaped).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import jinja2
from markupsafe import Markup

from build_hooks.core.errors import DirectiveError
from build_hooks.run.library import Library
from build_hooks.site.exercises import Exercise, page_text, used_proofs
from build_hooks.site.index import collect, guess_url, site_pages
from build_hooks.site.sourcepage import inline_code

TEMPLATES = Path(__file__).resolve().parent / "templates"
_ENV: list[jinja2.Environment] = []


def environment() -> jinja2.Environment:
    if not _ENV:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                                 trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
        env.filters["code"] = lambda text: Markup(inline_code(str(text)))  # a proof's `backticks`
        _ENV.append(env)
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


def render_index(rows, pin: str | None, torch: int | None = None) -> str:
    """The proofs index table (rows: :class:`build_hooks.site.index.ProofRow`); ``torch``: how
    many of the proofs import torch (None: all of them), for what a script needs."""
    torch = len(rows) if torch is None else torch
    needs = ("nothing but torch" if torch == len(rows) else "nothing but Python" if not torch
             else "Python, and torch for those that import it")
    return environment().get_template("proofs_index.html").render(rows=rows, pin=pin, needs=needs, summary=summary)


def author_html(text: str) -> str:
    """An exercise's text, the author's Markdown, as HTML."""
    from markdown_it import MarkdownIt  # here: only a fence that renders again needs it

    return MarkdownIt("commonmark").render(text).strip()


def render_exercises(items) -> str:
    """A chapter's exercises (items: :class:`build_hooks.site.exercises.Exercise`)."""
    return environment().get_template("exercises.html").render(items=items)


# -- the fences ----------------------------------------------------------------------------
def render_fence(options: dict, ctx) -> str:
    if options:
        raise DirectiveError("the proofs-index fence takes no options; leave its body empty")
    library = ctx.library if ctx.library is not None else Library(ctx.root, layout=ctx.folders)
    pages, page_url = ctx.pages, ctx.page_url
    if pages is None:
        pages = site_pages(ctx.folders.pages)
        if page_url is None and ctx.page:
            page_url = guess_url(ctx.page)
    return render_index(collect(library, pages, page_url, ctx.widget_proofs), pin=library.pin,
                        torch=sum(1 for proof in library.proofs.values() if proof.torch))


def render_fence_exercises(options: dict, ctx) -> str:
    if "arg" in options or "list" in options:
        raise DirectiveError("the exercises fence maps proof names to the exercise text, e.g. "
                             "`dispatch_cost: Predict how many elements ...`")
    library = ctx.library if ctx.library is not None else Library(ctx.root, layout=ctx.folders)
    known = library.proofs
    for name, text in options.items():
        if name not in known:
            close = difflib.get_close_matches(str(name), list(known), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise DirectiveError(f"exercises: {name!r} is not a proof; {hint}proofs: {', '.join(known)}")
        if not isinstance(text, str) or not text.strip():
            raise DirectiveError(f"exercises: the text for {name} must be a non-empty string "
                                 "(use `name: |` and an indented block for several lines)")
    used = used_proofs(page_text(ctx), known, ctx.widget_proofs)
    names = list(options) + [n for n in used if n not in options]
    items = []
    for name in names:
        proof = known[name]
        items.append(Exercise(name, proof.title, author_html(options[name]) if name in options else "",
                              ctx.card_href(name), ctx.site_path(f"proofs/{proof.path.name}"),
                              ctx.site_path(f"proofs/{name}.ipynb")))
    return render_exercises(items)
