"""The page cache: each page's converted HTML kept between builds (``.cache/ldr/pages``), so
that a warm build converts no page whose inputs did not change.

MkDocs converts every page's Markdown on every build (``Page.render``), and that is most of
what a warm build of this series costs. The plugin wraps each page's ``render``: a page whose
key is kept gets back what ``render`` left on it, and what the conversion told the build;
any other page is converted, and kept.

The key is everything the conversion reads:

* the page: its Markdown as it reaches the converter, its source path, URL and front matter's
  lines (a line number in a message counts them);
* the site: its Markdown extensions and their options, the versions of the libraries that
  convert (Python-Markdown, pymdownx, Pygments, MkDocs, mkdocs-material), the site's files (a
  link resolves against them, and warns when it does not), the link checks' settings, the
  logger's level, and this package's code (every entry of the text cache is sealed under it);
* what its fences and values read, as the directive memo finds it (directives/memo.py): what
  every fence depends on (the card map, the pin, the layout, the widgets), the records,
  history, torch, drawings and data, and the pages where a fence on it reads them.

Each page has one entry (an edit replaces it, so the cache does not grow as an author edits),
which holds the key it was made under, the HTML, the table of contents, the title and anchors
MkDocs found, the markup the plugin holds out until the page is written (site/defer.py), the
source quotes the page rendered, its info notes and the log lines its conversion wrote; a hit
gives each back. Never
kept: a page whose conversion warned or failed (its message must come on every build), a build
that may run proofs as it reads their records or re-runs them in the background, and a site
with a Markdown extension or option this module does not know to read nothing but the page
(``pymdownx.snippets`` includes other files, mkdocstrings reads Python modules): there every
page is converted, as without the cache.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import markdown
import material  # type: ignore[import-untyped]
import mkdocs
import pygments
import pymdownx
from mkdocs.structure.toc import get_toc

from build_hooks.core.cache import TextCache, key_of
from build_hooks.directives.memo import Entry
from build_hooks.run.library import Diagnostic

if TYPE_CHECKING:
    from build_hooks.hosts.markdown.state import LdrState

NAMESPACE = "pages"
FENCES = (re.compile(r"```+[ \t]*\{?[ \t]*\.?([\w-]+)"), re.compile(r"~~~+[ \t]*\{?[ \t]*\.?([\w-]+)"))
"""A fence's name, wherever a fence may open (indented, in a list, a quote or a tab): a name
found where no fence opens only adds an input to the key. Two patterns, each opening with a
literal character, find the same names as one alternation (neither's match holds the other's
character) in a twentieth of its time: the alternation was tried at every character of a page."""


def fence_names(text: str) -> set[str]:
    """The names of the fences ``text`` may open."""
    return {name for pattern in FENCES for name in pattern.findall(text)}

STOCK = {"abbr", "admonition", "attr_list", "codehilite", "def_list", "extra", "fenced_code", "footnotes",
         "legacy_attrs", "legacy_em", "md_in_html", "meta", "nl2br", "sane_lists", "smarty", "tables",
         "toc", "wikilinks"}
"""Python-Markdown's own extensions, by their short names."""
PURE = ("markdown.extensions.", "pymdownx.", "material.extensions.", "build_hooks.")
"""Where the extensions and option functions come from whose output reads only the page."""
IMPURE = {"pymdownx.snippets", "pymdownx.b64"}
"""Extensions that read other files: a site with one converts every page."""


class Unkeyable(Exception):
    """Part of the site's Markdown setup the cache cannot key."""


def _stable(value: object) -> object:
    """``value`` as JSON that is the same from build to build (functions by name), or Unkeyable."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return [[str(k), _stable(v)] for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    if isinstance(value, (list, tuple)):
        return [_stable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_stable(v) for v in value), key=repr)
    if isinstance(value, functools.partial):  # toc's slugify: pymdownx.slugs.slugify(case="lower")
        return ["partial", _stable(value.func), _stable(list(value.args)), _stable(value.keywords)]
    if callable(value):
        name = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
        if not name.startswith(PURE) or name.startswith(tuple(f"{m}." for m in IMPURE)):
            raise Unkeyable(name)
        return name
    raise Unkeyable(type(value).__name__)


def _extension(item: object) -> object:
    if isinstance(item, str):
        if item in STOCK or (item.startswith(PURE) and item not in IMPURE):
            return item
        raise Unkeyable(item)
    kind = type(item)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if not name.startswith(PURE) or kind.__module__ in IMPURE:
        raise Unkeyable(name)
    return [name, _stable(item.getConfigs())]  # type: ignore[attr-defined]


def site_key(config: Any, files: Any) -> str | None:
    """What every page's conversion reads of the site, or None where the cache cannot key it."""
    try:
        setup = json.dumps([[_extension(e) for e in config["markdown_extensions"]],
                            _stable(config["mdx_configs"] or {})])
        validation = json.dumps(_stable(config["validation"]))
    except Unkeyable:
        return None
    versions = [markdown.__version__, pymdownx.__version__, pygments.__version__, mkdocs.__version__,
                str(getattr(material, "__version__", ""))]
    listed = sorted((f.src_uri, f.dest_uri, f.url, str(getattr(f, "inclusion", ""))) for f in files)
    return key_of(setup, validation, repr(versions), repr(config["use_directory_urls"]), str(config["docs_dir"]),
                  str(logging.getLogger("mkdocs").getEffectiveLevel()), json.dumps(listed))


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.name, record.levelno, record.getMessage()))


@contextmanager
def _logged() -> Iterator[_Lines]:
    """The log lines written meanwhile under MkDocs' logger (its link checks', the plugins')."""
    handler, logger = _Lines(), logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _toc(items: Any) -> list:
    return [{"level": i.level, "id": i.id, "name": i.title, "children": _toc(i.children)} for i in items]


class PageCache:
    """The plugin's page cache for one site; :meth:`begin_build` before each build's pages."""

    def __init__(self, root: Path, state: LdrState):
        self.cache = TextCache.for_project(root, NAMESPACE, ".json")
        self.state = state
        self._site: tuple[str | None] | None = None  # (the site's key, or None: not keyable) once known

    def begin_build(self) -> None:
        self._site = None

    def attach(self, page: Any) -> None:
        """Wrap ``page.render`` (MkDocs calls it right after the page events' on_page_markdown)."""
        convert = page.render

        def render(config: Any, files: Any) -> None:
            self.render(page, convert, config, files)

        page.render = render

    def _key(self, page: Any, config: Any, files: Any) -> str | None:
        if self._site is None:
            self._site = (site_key(config, files),)
        site = self._site[0]
        if site is None:
            return None
        text = page.markdown or ""
        inputs = self.state.page_inputs(fence_names(text))
        if inputs is None:
            return None
        return key_of(site, inputs, page.file.src_uri, page.url, str(self.state.line_offset), text)

    def render(self, page: Any, convert: Callable[[Any, Any], None], config: Any, files: Any) -> None:
        key = self._key(page, config, files)
        entry = key_of("page", page.file.src_uri, page.url)  # one per page: an edit replaces it
        kept = _Kept.of(self.cache.get(entry), key) if key is not None else None
        if kept is not None and kept.give_back(page, files, self.state):
            return
        state = self.state
        before = len(state.diagnostics)
        state.page_told = []
        try:
            with _logged() as logged:
                convert(config, files)
        finally:
            told, state.page_told = state.page_told, None
        notes = state.diagnostics[before:]
        if key is None or any(d.level != "info" for d in notes) or any(
                level >= logging.WARNING for _, level, _ in logged.lines):
            return
        self.cache.put(entry, json.dumps({
            "key": key, "html": page.content, "toc": _toc(page.toc), "title": page._title_from_render,
            "anchors": None if page.present_anchor_ids is None else sorted(page.present_anchor_ids),
            "links": None if page.links_to_anchors is None else {
                f.src_uri: dict(links) for f, links in page.links_to_anchors.items()},
            "deferred": dict(state.deferred or {}), "quotes": Entry((), tuple(told)).to_json(),
            "notes": [[d.message, d.proof] for d in notes],
            "logs": [list(line) for line in logged.lines if line[1] >= logging.INFO]}))


def _strings(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


class _Kept:
    """A page's entry, its shape checked: anything else reads as a miss."""

    def __init__(self, body: dict, quotes: Entry):
        self.body, self.quotes = body, quotes

    @classmethod
    def of(cls, text: str | None, key: str) -> _Kept | None:
        """The page's entry if it was kept under ``key``."""
        try:
            body = json.loads(text) if text else None
            if not isinstance(body, dict) or body["key"] != key or not isinstance(body["html"], str):
                return None
            if not (isinstance(body["title"], (str, type(None))) and isinstance(body["toc"], list)
                    and (body["anchors"] is None or all(isinstance(a, str) for a in body["anchors"]))
                    and (body["links"] is None or (isinstance(body["links"], dict)
                                                   and all(_strings(v) for v in body["links"].values())))
                    and _strings(body["deferred"])
                    and all(isinstance(m, str) and isinstance(p, (str, type(None))) for m, p in body["notes"])
                    and all(isinstance(n, str) and type(lv) is int and isinstance(m, str)
                            for n, lv, m in body["logs"])):
                return None
            quotes = Entry.of(body["quotes"])
        except (ValueError, TypeError, KeyError):
            return None
        return None if quotes is None else cls(body, quotes)

    def give_back(self, page: Any, files: Any, state: LdrState) -> bool:
        """Leave on ``page`` and tell ``state`` what converting it did; False: convert it."""
        body = self.body
        links = None
        if body["links"] is not None:
            links = {}
            for uri, found in body["links"].items():
                target = files.get_file_from_path(uri)
                if target is None:
                    return False
                links[target] = found
        try:
            toc = get_toc(body["toc"])
        except (KeyError, TypeError):
            return False
        page.content, page.toc, page._title_from_render = body["html"], toc, body["title"]
        page.present_anchor_ids = None if body["anchors"] is None else set(body["anchors"])
        if links is not None:
            page.links_to_anchors = links
        text = page.markdown or ""
        if text.strip():
            state.begin_text(text.split("\n"))  # where its directives are: the spot book keeps the page
        if state.deferred is not None:
            state.deferred.update(body["deferred"])
        for key, found in self.quotes.quotes:
            state.keep_quote(key, found)
        state.diagnostics += [Diagnostic("info", message, page=state.page, proof=proof)
                              for message, proof in body["notes"]]
        for name, level, message in body["logs"]:
            logging.getLogger(name).log(level, "%s", message)
        return True
