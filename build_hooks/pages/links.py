"""Links from a page to a proof's card: on this page first, else on another page, else (no card
anywhere) to the proof's published script.

Two spellings of the same target:

* for raw HTML (excerpts, instruments), which the browser resolves: a URL relative to the page's
  URL (``../other/#proof-x``);
* for links in the Markdown tree (inline values), which MkDocs resolves, checks against its files
  and rewrites into URLs: a path relative to the page's *source file* (``other.md#proof-x``,
  ``../proofs/x.py``). A URL there would be read as a file path: ``../proofs/x.py`` from
  ``part.md`` points outside docs/ and fails ``--strict``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

Pages = dict[str, list[tuple[str, str]]]
"""proof -> [(page source path, page URL), ...] of every page that shows its card."""


def base_url(page_url: str | None) -> str:
    """The relative prefix from a page URL to the site root (``"part/"`` -> ``"../"``)."""
    if not page_url:
        return ""
    depth = page_url.rstrip("/").count("/") + (1 if page_url.endswith("/") else 0)
    return "../" * depth


def page_link(page_url: str | None, target_url: str, fragment: str = "") -> str:
    """A link from the page at ``page_url`` to the page at ``target_url`` (both from the site's
    root), with an optional ``#fragment``. Never empty nor a bare ``#fragment``, which would name
    this page: where the path between them is empty (the home page's card seen from a page that
    Zensical has links made for from its source folder, ``page.md`` -> ``""``: site.py) it is
    ``./`` (``./#proof-x``), which the browser and Zensical resolve to that folder's page."""
    link = f"{base_url(page_url)}{target_url}" or "./"
    return f"{link}#{fragment}" if fragment else link


@dataclass
class CardLinks:
    pages: Pages | None
    """None outside a site build: every card is taken to be on the page itself."""
    page: str | None = None
    page_url: str | None = None

    def card_page(self, name: str) -> tuple[str, str] | None:
        found = (self.pages or {}).get(name) or []
        for source, url in found:
            if source == self.page:
                return source, url
        return found[0] if found else None

    def url(self, name: str) -> str:
        """For raw HTML: relative to the page's URL."""
        return self._link(name, self.page_url)

    def root(self, name: str) -> str:
        """The same target from the site's root (an inline value's ``data-card``): ``#proof-x``
        on this page, else ``other/#proof-x`` (``./#proof-x`` for the home page's card with
        directory URLs), or the published script, ``proofs/x.py``, when no page shows a card."""
        return self._link(name, None)

    def _link(self, name: str, from_url: str | None) -> str:
        """A link to the proof's card from ``from_url`` (None: the site's root)."""
        if self.pages is None:
            return f"#proof-{name}"
        target = self.card_page(name)
        if target is None:
            return f"{base_url(from_url)}proofs/{name}.py"
        if target[0] == self.page:
            return f"#proof-{name}"
        return page_link(from_url, target[1], f"proof-{name}")

    def source(self, name: str) -> str:
        """For the Markdown tree: relative to the page's source file."""
        if self.pages is None or not self.page:
            return f"#proof-{name}"
        target = self.card_page(name)
        if target is not None and target[0] == self.page:
            return f"#proof-{name}"
        here = posixpath.dirname(self.page) or "."
        if target is not None:
            return f"{posixpath.relpath(target[0], here)}#proof-{name}"
        return posixpath.relpath(f"proofs/{name}.py", here)
