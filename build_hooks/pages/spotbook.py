"""Where the pages' directives are, kept between builds (pages/locate.py finds them).

Every build asks where each page's fences and inline values are: the host, for the cards each
page shows, and each page's own conversion, for the line of a fence that fails. locate.py finds
them with markdown-it, a few milliseconds a page plus the parser's import; a warm build of
unchanged pages need not pay either. The book is one entry of the text cache (namespace
``spots``): digest of a page's text -> what it holds. It is read when a build begins
(:meth:`SpotBook.open`) and written when it ends (:meth:`SpotBook.close`) with the texts this
build asked for, only when that differs from what was read. Anything of another shape reads as
an empty book; the text cache seals entries under this package's code, so a change to how pages
are located starts a new book.
"""

from __future__ import annotations

import json
from pathlib import Path

from build_hooks.core.cache import TextCache
from build_hooks.pages import locate
from build_hooks.pages.locate import Found, Spot

NAMESPACE = "spots"
KEY = "book"


class SpotBook:
    def __init__(self, root: Path):
        self.cache = TextCache.for_project(root, NAMESPACE, ".json")
        self._read: dict[str, Found] = {}

    def open(self) -> None:
        """Hand locate.py what earlier builds found."""
        self._read = _book(self.cache.get(KEY))
        locate.recall(dict(self._read))

    def close(self) -> None:
        """Keep what this build asked for, if it is not what the book held."""
        found = locate.looked()
        if found != self._read:
            self.cache.put(KEY, json.dumps({digest: [[v, s.kind, s.line, s.text] for v, s in spots]
                                            for digest, spots in sorted(found.items())}))
            self._read = found


def _book(text: str | None) -> dict[str, Found]:
    """The book :meth:`SpotBook.close` wrote; empty for none or anything of another shape."""
    try:
        body = json.loads(text) if text else {}
        book = {}
        for digest, spots in body.items():
            found = []
            for is_value, kind, line, said in spots:
                if not (isinstance(digest, str) and type(is_value) is bool and isinstance(kind, str)
                        and type(line) is int and isinstance(said, str)):
                    return {}
                found.append((is_value, Spot(kind, line, said)))
            book[digest] = tuple(found)
        return book
    except (ValueError, TypeError, AttributeError):
        return {}
