"""The ```exercises fence: a chapter's "Try it yourself", generated from the proofs it uses.

The body maps a proof name to the author's words for its exercise (Markdown)::

    ```exercises
    where_code_lives: |
      **Where the code lives.** Predict the largest library in your installation ...
    dispatch_cost: |
      **The toll.** ...
    ```

The list shows, in that order, each exercise with the proof it is built on (its title, a link
to its card, and both downloads: ``.py`` and ``.ipynb``), then every other proof the page uses
(a card, an excerpt, a value, a claim or an instrument) that has no text yet, with its title.
A name that is not a proof is an error naming it and the proofs there are.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from .errors import DirectiveError
from .quotes import quotes
from .safefs import UnsafeFile, read_text

OPTIONS = None  # the body's keys are proof names, checked below


@dataclass
class Exercise:
    name: str
    title: str
    text_html: str
    card_href: str
    py_href: str
    ipynb_href: str


def page_text(ctx) -> str:
    for source, _, text in ctx.extra.get("pages") or ():
        if source == ctx.page:
            return text
    path = Path(ctx.root) / "docs" / (ctx.page or "")
    try:
        return read_text(path, inside=Path(ctx.root) / "docs") if ctx.page else ""
    except (OSError, UnicodeDecodeError, UnsafeFile) as exc:
        raise DirectiveError(f"cannot read {path} to find the proofs it uses ({exc})") from None


def used_proofs(text: str, known) -> list[str]:
    """The proofs a page uses, in the order it first uses them."""
    from .index import instrument_proofs

    seen: dict[str, None] = {}
    for quote in quotes(text, instrument_proofs()):
        if quote.proof in known:
            seen.setdefault(quote.proof)
    return list(seen)


def render_fence(options: dict, ctx) -> str:
    from build_hooks.render.index import author_html, render_exercises

    if "arg" in options or "list" in options:
        raise DirectiveError("the exercises fence maps proof names to the exercise text, e.g. "
                             "`dispatch_cost: Predict how many elements ...`")
    library = ctx.extra.get("library")
    if library is None:
        from .library import Library

        library = Library(ctx.root)
    known = library.proofs
    for name, text in options.items():
        if name not in known:
            close = difflib.get_close_matches(str(name), list(known), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise DirectiveError(f"exercises: {name!r} is not a proof; {hint}proofs: {', '.join(known)}")
        if not isinstance(text, str) or not text.strip():
            raise DirectiveError(f"exercises: the text for {name} must be a non-empty string "
                                 "(use `name: |` and an indented block for several lines)")
    names = list(options) + [n for n in used_proofs(page_text(ctx), known) if n not in options]
    card_href = ctx.extra.get("card_href") or (lambda name: f"#proof-{name}")
    items = []
    for name in names:
        proof = known[name]
        items.append(Exercise(name, proof.title, author_html(options[name]) if name in options else "",
                              card_href(name), ctx.site_path(f"proofs/{proof.path.name}"),
                              ctx.site_path(f"proofs/{name}.ipynb")))
    return render_exercises(items)
