"""Every directive in one place: its fence, the options its body may hold, what it reads besides
its body, and its handler. The MkDocs plugin, the Python-Markdown extension and Zensical all
read this registry; none keeps a list of its own.

A site's own widgets join it by configuration (the plugin's and the extension's ``widgets``
option names modules, e.g. ``build_hooks.series``); such a module lists its directives as
``DIRECTIVES``, and may map each widget to the proof it reads by default as ``WIDGET_PROOFS``.
Nothing below the hosts imports a widget module: :func:`registry` imports it by the name the
site's configuration gives.

``reads`` says what a directive's HTML depends on besides its own body, in these words:

* ``records``: proof records of the pinned torch; ``history``: records of other torch versions;
* ``pages``: the Markdown of the site's pages; ``torch``: the installed torch's files;
* ``drawings``: scene files; ``data``: the site's ``data/`` files.

The list is documentation that tests hold true (``tests/core/test_registry.py``): a directive
that says it reads nothing renders the same whatever the records, pages and torch are.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING

from build_hooks.core.errors import LdrError
from build_hooks.core.options import check_options
from build_hooks.drawing import figure
from build_hooks.render import claim, corrections, drift, excerpt, index, source

if TYPE_CHECKING:
    from build_hooks.directives.context import Context

Handler = Callable[[dict, "Context"], str]
READS = frozenset({"records", "history", "pages", "torch", "drawings", "data"})


@dataclass(frozen=True)
class Directive:
    name: str
    """The fence's language (```` ```claim ````)."""
    summary: str
    """One line for the README's table and error messages."""
    options: tuple[str, ...] | None
    """The options its body may hold (``arg`` is the bare-scalar form of the first); ``None``: the
    body is the directive's own mapping, which its handler checks (exercises)."""
    reads: frozenset[str]
    """What its HTML depends on besides its body (see the module's docstring)."""
    handler: Handler | None
    """``handler(options, ctx) -> html``; ``None`` for the two the host renders itself, because
    they need the page's own state (a card shows once per page; an excerpt links to it)."""

    def check(self, options: dict) -> None:
        if self.options is not None:
            check_options(self.name, options, self.options)


def _make(name: str, summary: str, options: tuple[str, ...] | None, reads: Iterable[str],
          handler: Handler | None) -> Directive:
    unknown = set(reads) - READS
    if unknown:
        raise LdrError(f"directive {name}: unknown `reads` {sorted(unknown)}; use {sorted(READS)}")
    return Directive(name, summary, options, frozenset(reads), handler)


CORE: tuple[Directive, ...] = (
    _make("proof", "a proof's card: question, source, output, data, provenance, downloads",
          ("name",), {"records"}, None),
    _make("proof-output", "an excerpt of a proof's output (grep, from/to or lines)",
          excerpt.EXCERPT_OPTIONS, {"records"}, None),
    _make("claim", "a pattern the data or a source quote must satisfy, checked on every build",
          claim.OPTIONS, {"records", "pages", "torch"}, claim.render_fence),  # torch: claims on quotes
    _make("source", "lines of the pinned torch's own source, found by pattern",
          source.OPTIONS, {"torch"}, source.render_fence),
    _make("figure", "an Excalidraw scene (or one frame of it) as inline SVG",
          figure.OPTIONS, {"drawings"}, figure.render_fence),
    _make("drift-report", "what moved between two recorded torch versions",
          ("from", "to", "details"), {"records", "history", "pages", "torch"}, drift.render_fence),
    _make("corrections", "a chapter's corrections note, one entry per torch upgrade",
          ("list",), {"records", "history", "pages", "torch"}, corrections.render_fence),
    _make("proofs-index", "every proof: its question, where it is quoted, its records",
          (), {"records", "history", "pages"}, index.render_fence),
    _make("exercises", "a chapter's 'Try it yourself', from the proofs it uses",
          None, {"records", "pages"}, index.render_fence_exercises),
)


@dataclass(frozen=True)
class Registry:
    directives: Mapping[str, Directive]
    widget_proofs: Mapping[str, str]
    widgets: tuple[str, ...] = ()
    """The widget modules that joined, as configured (for messages and cache keys)."""

    @property
    def fences(self) -> tuple[str, ...]:
        return tuple(self.directives)

    @property
    def key(self) -> str:
        """Stands for the set of fences in cache keys (a page's located spots depend on it)."""
        return "\0".join(self.fences)

    def get(self, name: str) -> Directive:
        return self.directives[name]


_BUILT: dict[tuple[str, ...], Registry] = {}


def registry(widgets: Iterable[str] = ()) -> Registry:
    """The core directives and those of each widget module named (in that order)."""
    if isinstance(widgets, str):  # `widgets: build_hooks.series` in mkdocs.yml, not a list
        widgets = [widgets]
    names = tuple(str(name).strip() for name in widgets if str(name).strip())
    found = _BUILT.get(names)
    if found is None:
        found = _BUILT[names] = _build(names)
    return found


def _build(names: tuple[str, ...]) -> Registry:
    directives = {d.name: d for d in CORE}
    proofs: dict[str, str] = {}
    for name in names:
        module = _widget_module(name)
        listed = getattr(module, "DIRECTIVES", None)
        if not isinstance(listed, (tuple, list)) or not all(isinstance(d, Directive) for d in listed):
            raise LdrError(f"widgets: the module {name} has no DIRECTIVES (a tuple of "
                           "build_hooks.directives.registry.Directive); fix: define it, or remove "
                           f"{name} from the widgets option")
        for item in listed:
            if item.name in directives:
                raise LdrError(f"widgets: {name} registers the {item.name!r} fence, which is taken; "
                               "fix: give the widget's fence another name")
            directives[item.name] = item
        proofs.update(getattr(module, "WIDGET_PROOFS", {}) or {})
    return Registry(MappingProxyType(directives), MappingProxyType(proofs), names)


def _widget_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise LdrError(f"widgets: cannot import {name} ({exc}); fix: name an installed module in the "
                       "widgets option (mkdocs.yml, under the ldr plugin or the ldr extension)") from None


def make(name: str, summary: str, options: tuple[str, ...] | None, reads: Iterable[str],
         handler: Handler) -> Directive:
    """A widget module's directive (checks ``reads`` the same way as the core's)."""
    return _make(name, summary, options, reads, handler)
