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

from dataclasses import dataclass

from build_hooks.core.errors import DirectiveError
from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.pages.quotes import quotes

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
    for source, _, text in ctx.pages or ():
        if source == ctx.page:
            return text
    docs = ctx.folders.pages
    path = docs / (ctx.page or "")
    try:
        return read_text(path, inside=docs) if ctx.page else ""
    except (OSError, UnicodeDecodeError, UnsafeFile) as exc:
        raise DirectiveError(f"cannot read {path} to find the proofs it uses ({exc})") from None


def used_proofs(text: str, known, instrument_proofs: dict[str, str] | None = None) -> list[str]:
    """The proofs a page uses, in the order it first uses them (``instrument_proofs``: the proof
    each instrument reads when its fence names none)."""
    seen: dict[str, None] = {}
    for quote in quotes(text, instrument_proofs):
        if quote.proof in known:
            seen.setdefault(quote.proof)
    return list(seen)
