"""LdrState: what one build (or one Zensical session) knows while it converts pages: the
library of proofs and records, the page being converted and where its directives are, the
cards and ids seen on it, and the diagnostics it collects. It renders each fence through the
core's renderers and turns any exception into an error naming the page and line."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape
from pathlib import Path

from build_hooks.config import Layout
from build_hooks.core.errors import DirectiveError, LdrError
from build_hooks.directives.context import Context
from build_hooks.directives.memo import Memo
from build_hooks.directives.registry import Registry, registry
from build_hooks.hosts.markdown.cards import PageCards
from build_hooks.hosts.markdown.fences import located
from build_hooks.hosts.markdown.memoglue import MemoGlue
from build_hooks.pages.links import CardLinks, Pages, base_url
from build_hooks.pages.locate import VALUE_KIND, Locations
from build_hooks.pages.spotbook import SpotBook
from build_hooks.proofs.datalines import describe_data, lookup
from build_hooks.proofs.records import ProofData
from build_hooks.proofs.sources import Quote
from build_hooks.render.card import pending_marker, render_card, status_phrase
from build_hooks.render.excerpt import render_excerpt
from build_hooks.render.safe import visible, visible_record
from build_hooks.render.values import format_value
from build_hooks.run.library import Diagnostic, Library
from build_hooks.site.defer import join
from build_hooks.store import quotestore

_VISIBLE: dict[tuple, tuple[dict, dict]] = {}  # (root, proof) -> (lookup, its visible form), across rebuilds


class ProofPending(LdrError):
    """A proof with no record yet is running in the background (the plugin under serve)."""


class LdrState(MemoGlue, PageCards):
    """Shared by every page a build converts; the plugin sets the page fields. Its memo glue
    is memoglue.py's, its cards and ids on the page cards.py's."""

    def __init__(self, root: Path, library: Library | None = None, raise_errors: bool = True,
                 autorun: bool = True, layout: Layout | None = None, widgets: Iterable[str] = (),
                 typed_versions: str = "off"):
        self.root = Path(root).resolve()
        self.typed_versions = check_rule(typed_versions)  # torch versions typed by hand: pinref.py
        self.registry: Registry = registry(widgets)  # the core's fences and the site's widgets
        self._library = library
        self.layout = layout or (library.layout if library is not None else Layout.at(self.root))
        self.raise_errors = raise_errors
        self.autorun = autorun
        self.page: str | None = None
        self.page_url: str | None = None
        self.line_offset = 0
        self.card_urls: Pages | None = None  # the plugin sets it: see links.py
        self.site_pages: list[tuple[str, str, str]] | None = None  # (source, url, text): the plugin
        self.diagnostics: list[Diagnostic] = []
        self.lines: list[str] = []
        self.locations = Locations()
        self.fence_line: int | None = None  # the line of the fence being rendered
        self.cards: dict[str, int | None] = {}  # proof -> line of its card on this page
        self.ids: dict[str, tuple[str, int | None]] = {}  # id -> (fence, line) on this page
        self._cache: dict[str, dict[str, ProofData]] = {}
        self._checked: set[str] = set()
        self.deferred: dict[str, str] | None = None  # the plugin sets a dict: see defer.py
        self.rerunning: set[str] = set()  # proofs the plugin re-runs in the background (serve)
        self.quoted: dict[str, tuple[Quote, set[str]]] = {}  # source quotes of this build, by key
        self.memo = Memo(self.root, self.layout)  # fences' HTML of earlier builds: directives/memo.py
        self.spots = SpotBook(self.root)  # where the pages' directives are, found by earlier builds
        self.told: list[tuple[str, Quote]] | None = None  # the quotes of the fence being rendered
        self.page_told: list[tuple[str, Quote]] | None = None  # the quotes of the page being converted

    def use_widgets(self, widgets: Iterable[str], typed_versions: str = "off") -> None:
        """The widget modules and the typed-versions rule the site's configuration names
        (Zensical tells the state late)."""
        self.registry = registry(widgets)
        self.typed_versions = check_rule(typed_versions)

    @property
    def library(self) -> Library:
        if self._library is None:
            self._library = Library(self.root, layout=self.layout)
        return self._library

    def begin_build(self) -> None:
        self.memo.begin_build()
        self.spots.open()
        self._cache.clear()
        self._checked.clear()
        self.quoted = {}
        if self._library is not None:
            self._library.refresh()

    def begin_page(self, page: str | None, page_url: str | None = None, line_offset: int = 0) -> None:
        self.page, self.page_url, self.line_offset = page, page_url, line_offset
        self.begin_text([])

    def begin_text(self, lines: list[str]) -> None:
        """The Markdown about to be converted: find where its directives are."""
        self.memo.flush()  # the page before, if its conversion did not say it ended
        self.lines = list(lines)
        self.cards, self.ids = {}, {}
        try:
            self.locations = Locations(list(located("\n".join(self.lines), self.registry)))
        except Exception:  # noqa: BLE001 - lines are a courtesy; fall back to searching the text
            self.locations = Locations()

    # -- lookups -------------------------------------------------------------
    def records(self, name: str, pending_ok: bool = False) -> dict[str, ProofData]:
        """A proof's records as pages show them: control characters made visible. A proof
        re-running in the background with no record yet raises ProofPending (unless pending_ok)."""
        if name not in self._cache:
            if self.autorun and name not in self._checked and name in self.library.proofs:
                self._checked.add(name)
                self.library.run([name])
            found = self.library.lookup(name)
            seen = _VISIBLE.get((self.root, name))
            if seen is None or seen[0] != found:  # an equal lookup (C-level compare) reuses its pass
                seen = _VISIBLE[(self.root, name)] = (
                    found, {device: visible_record(item) for device, item in found.items()})
            self._cache[name] = dict(seen[1])
        if not self._cache[name] and name in self.rerunning and not pending_ok:
            raise ProofPending(name)
        return self._cache[name]

    def links(self) -> CardLinks:
        return CardLinks(self.card_urls, self.page, self.page_url)

    def base_url(self) -> str:
        return base_url(self.page_url)

    def card_href(self, name: str) -> str:
        """A browser link (for raw HTML) to a proof's card, or (no card) to its script."""
        return self.links().url(name)

    def source_href(self, name: str) -> str:
        """The same target as a path from this page's source, for MkDocs to resolve and check."""
        return self.links().source(name)

    def context(self) -> Context:
        return Context(root=self.root, page=self.page, base_url=self.base_url(), layout=self.layout,
                       lookup=self.records, library=self.library, pages=self.site_pages,
                       page_url=self.page_url, card_link=self.card_href, reporter=self.report,
                       quoted=self.note_quote, widget_proofs=dict(self.registry.widget_proofs))

    def note_quote(self, options: dict, found: Quote) -> None:
        """A source fence rendered: kept for the build's quotes file (quotestore.py)."""
        self.keep_quote(quotestore.key_of(options), found)

    def keep_quote(self, key: str, found: Quote) -> None:
        _, where = self.quoted.setdefault(key, (found, set()))
        where.add(self.where(None))  # the page, not its line: editing prose must not rewrite the file
        for told in (self.told, self.page_told):
            if told is not None:
                told.append((key, found))

    def keep_quotes(self) -> Path | None:
        """Write what this build quoted of the pinned torch (only what changed; None: nothing)."""
        if not self.quoted:
            return None
        versions = {found.torch for found, _ in self.quoted.values()}
        if len(versions) != 1:
            return None
        kept = {key: quotestore.Kept.of(found, at) for key, (found, at) in self.quoted.items()}
        return quotestore.write(self.layout.results, versions.pop(), kept)

    def report(self, level: str, message: str, needle: str, fence: str | None = None) -> None:
        """A handler's warning (a claim that does not hold), located at its fence's line."""
        self.diagnostics.append(Diagnostic(level, f"{self.where(self.find_line(needle, fence))}: {message}",
                                           page=self.page))

    # -- errors --------------------------------------------------------------
    def where(self, line: int | None) -> str:
        page = self.layout.page(self.page) if self.page else "<markdown>"
        return f"{page}:{line + self.line_offset}" if line else page

    def at(self, line: int | None) -> str:
        return f"line {line + self.line_offset}" if line else "an unknown line"

    def defer(self, parts: tuple[str, ...]) -> str:
        """A directive's HTML, as ``site.defer.split`` cut it: under the plugin, its bulky SVG
        and the chrome every card repeats leave the page (for placeholders) until it is written."""
        if self.deferred is None:
            return "".join(parts)
        return join(parts, self.deferred)

    def warn(self, message: str, line: int | None) -> None:
        """A problem that is the page's, not a directive's: a warning (fails a strict build)."""
        self.diagnostics.append(Diagnostic("warning", visible(f"{self.where(line)}: {message}"), page=self.page))

    def fail(self, exc: Exception, line: int | None, what: str = "this directive") -> str:
        """Any exception while rendering a directive: an error naming the page and line."""
        if isinstance(exc, ProofPending):  # not an error: the page reloads when it has run
            return pending_marker(str(exc))
        if isinstance(exc, LdrError):
            cause = str(exc)
        else:
            cause = (f"{what} could not be rendered: {type(exc).__name__}: {exc} (an unexpected "
                     "error: a record in proofs/_results with a field of the wrong type causes "
                     "this; `ldr status` lists the records, `ldr run NAME --force` rewrites one)")
        message = visible(f"{self.where(line)}: {cause}")
        if self.raise_errors:
            raise DirectiveError(message) from exc
        self.diagnostics.append(Diagnostic("error", message, page=self.page))
        return f'<div class="ldr-error" role="alert">{escape(message)}</div>'

    def find_line(self, needle: str, fence: str | None = None) -> int | None:
        """The line of the fence being rendered (for a handler's report), else the first line
        containing ``needle``."""
        if fence is not None and self.fence_line is not None:
            return self.fence_line
        for number, line in enumerate(self.lines, 1):
            if needle and needle in line:
                return number
        return None

    def value_line(self, text: str) -> int | None:
        spot = self.locations.take(VALUE_KIND, text)
        if spot is not None:
            return spot.line
        for number, line in enumerate(self.lines, 1):  # not located (e.g. an admonition title)
            if text in line:
                return number
        return None

    # -- rendering -----------------------------------------------------------
    def render_fence(self, fence: str, options: dict, line: int | None = None) -> str:
        if fence not in self.registry.directives:
            raise DirectiveError(
                f"no {fence!r} directive is registered on this site; it comes from a widget module "
                "(the series' own are build_hooks.series): name it in the widgets option of the ldr "
                "plugin (or extension) in mkdocs.yml")
        directive = self.registry.get(fence)
        directive.check(options)
        if fence == "proof":
            return self.render_card(options, line)
        if fence == "proof-output":
            name = options.get("proof") or options.get("arg")
            if not name:
                raise DirectiveError("proof-output needs `proof: <name>` and `grep:`, `from:` or `lines:`")
            return render_excerpt(self.pick(str(name), options.get("device")), options,
                                  self.card_href(str(name)))
        if directive.handler is None:  # only proof and proof-output, handled above
            raise DirectiveError(f"the {fence!r} directive has no handler")
        return directive.handler(options, self.context())

    def render_card(self, options: dict, line: int | None) -> str:
        name = options.get("arg") or options.get("name")
        if not name:
            raise DirectiveError("a proof card needs the proof's name as the fence body")
        name = str(name)
        self.take_card(name, None, check_only=True)
        records = self.records(name, pending_ok=True)
        proof = self.library.proofs[name]
        self.report_card(proof, records, line)
        href = self.context().site_path(f"proofs/{proof.path.name}")
        html = render_card(proof, records, href, rerunning=proof.name in self.rerunning)
        self.take_card(name, line)
        return html

    def pick(self, name: str, device: str | None) -> ProofData:
        records = self.records(name)
        if device:
            if device not in records:
                raise DirectiveError(f"proof {name} has no {device} record; recorded: {', '.join(records)}")
            return records[device]
        return self.context().proof(name)

    def value(self, match: re.Match) -> tuple[str, str, ProofData]:
        name, device, key, fmt = match.group("proof", "device", "key", "fmt")
        item = self.pick(name, device)
        try:
            raw = lookup(item.data, key)
        except KeyError as exc:
            raise DirectiveError(
                f"proof {name} has no data key {key!r} (no {exc.args[0]!r}); known keys: "
                + describe_data(item.data, item.stdout.splitlines(),
                                None if item.provenance.ok else status_phrase(item.provenance))
            ) from None
        return format_value(raw, fmt or ""), f"{key} = {raw!r}", item


RULES = ("off", "warn", "error")


def check_rule(value: object) -> str:
    """The ``typed_versions`` option: off, warn or error."""
    if value not in RULES:
        raise LdrError(f"typed_versions is {value!r}; fix: write one of {', '.join(RULES)} (the ldr plugin's "
                       "or extension's option in mkdocs.yml)")
    return str(value)
