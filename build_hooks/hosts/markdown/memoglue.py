"""LdrState's side of the directive memo (directives/memo.py): a fence's key on this page, a
kept fence's HTML recalled (and what it told the build told again), a rendered one kept.
Mixed into :class:`build_hooks.hosts.markdown.state.LdrState`, whose fields it reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from build_hooks.directives.memo import Entry, module_digest, tree_digest
from build_hooks.hosts.markdown.fences import parse_options

PAGE_READS = ("records", "history", "torch", "drawings", "data")
"""What any page may read without a fence: its values read records, its pins the torch."""

if TYPE_CHECKING:
    from build_hooks.config import Layout
    from build_hooks.directives.memo import Memo
    from build_hooks.directives.registry import Registry
    from build_hooks.pages.links import Pages
    from build_hooks.proofs.sources import Quote
    from build_hooks.run.library import Diagnostic, Library


class MemoGlue:
    if TYPE_CHECKING:  # LdrState's (state.py)
        registry: Registry
        memo: Memo
        autorun: bool
        rerunning: set[str]
        card_urls: Pages | None
        site_pages: list[tuple[str, str, str]] | None
        layout: Layout
        typed_versions: str
        page: str | None
        page_url: str | None
        diagnostics: list[Diagnostic]
        told: list[tuple[str, Quote]] | None

        @property
        def library(self) -> Library: ...
        def take_card(self, name: str, line: int | None, check_only: bool = False) -> None: ...
        def keep_quote(self, key: str, found: Quote) -> None: ...

    def memo_key(self, fence: str, source: str) -> str | None:
        """The memo's key for this fence on this page, or None where it must render afresh: a
        build that may run proofs as it reads their records, or one whose proofs are re-running
        in the background."""
        directive = self.registry.directives.get(fence)
        if directive is None or self.autorun or self.rerunning:
            return None
        pin = self.library.pin
        return self.memo.key(fence, directive.reads, source, self._memo_common, self._memo_pages,
                             None if pin is None else str(pin))

    def page_inputs(self, fences: Iterable[str]) -> str | None:
        """A digest of what a whole page's HTML reads besides its Markdown, for the page cache
        (hosts/mkdocs/pagecache.py): what every fence depends on, the inputs its values and
        pins read (records, history, torch, drawings, data), and those of each directive among
        ``fences``, the fence names found on it; None where fences render afresh."""
        if self.autorun or self.rerunning:
            return None
        reads = set(PAGE_READS)
        for name in fences:
            directive = self.registry.directives.get(name)
            if directive is not None:
                reads |= directive.reads
        pin = self.library.pin
        return self.memo.inputs(reads, self._memo_common, self._memo_pages, None if pin is None else str(pin))

    def _memo_common(self) -> str:
        """What every fence's HTML may depend on: the card map, the pin, the layout, the widgets."""
        pin = self.library.pin
        return repr((sorted((k, sorted(v)) for k, v in (self.card_urls or {}).items()),
                     None if pin is None else str(pin), str(self.layout), self.registry.widgets,
                     module_digest(self.registry.widgets), self.typed_versions))

    def _memo_pages(self) -> object:
        return self.site_pages if self.site_pages is not None else tree_digest(self.layout.pages)

    def recall(self, key: str | None, fence: str, source: str, line: int | None) -> tuple[str, ...] | None:
        """A kept fence's HTML, what it told the build told again (its quotes; a card's place on
        the page, which refuses a second card of the proof); None: render it."""
        entry = self.memo.get(key, self.page, self.page_url) if key else None
        if entry is None:
            return None
        if fence == "proof":
            options = parse_options(source, fence)
            self.take_card(str(options.get("arg") or options.get("name")), line)
        for quote_key, found in entry.quotes:
            self.keep_quote(quote_key, found)
        return entry.parts

    def remember(self, key: str | None, parts: tuple[str, ...], warnings_before: int) -> None:
        """Keep a fence's HTML, unless it warned (its warning must come again next build)."""
        if key and len(self.diagnostics) == warnings_before:
            self.memo.put(key, Entry(parts, tuple(self.told or ())), self.page, self.page_url)
