"""Zensical: the same site as ``mkdocs build``, without the MkDocs plugin.

Zensical (0.0.73) reads ``mkdocs.yml`` and converts each page with Python-Markdown, but runs
no MkDocs plugin. What the plugin does, and how it is done here instead:

* Before the build (the plugin's ``on_pre_build`` and ``on_files``): ``mkdocs.yml`` sets
  ``watch: !!python/object/apply:build_hooks.hosts.zensical.site.prepare []``. Zensical evaluates
  it while it loads the config, before it lists ``docs/``: :func:`prepare` runs the stale proofs,
  writes the downloads into ``docs/`` (``site/publish.py``, into folders git ignores) and returns
  what Zensical must watch (``proofs/``, ``drawings/``, ``data/``, ``pyproject.toml``): any
  change there re-renders every page, on the next ``zensical build`` and under
  ``zensical serve`` (which loads the config again first, so :func:`prepare` runs again).
  Zensical compares watched files by whole-second times, so :func:`prepare` also leaves a file
  named by a digest of those inputs in ``docs/.ldr-inputs/``: an edit in the same second shows.
  Under MkDocs it does nothing and returns ``[]``: the plugin watches those folders itself.
* Per page (``on_page_markdown``): Zensical makes a new ``Markdown`` for every page, so the ldr
  extension asks ``zensical_hooks.attach`` for the project's one :class:`Session`, which reads the page
  being rendered from Zensical's rendering context (``zensical.extensions.context``).
* After the page (``on_page_content``): the depth meter goes to ``page.meta`` and the page's
  warnings are printed.
* Errors: ``zensical build`` stops at the first page with a directive error, naming each one
  with its line (and under ``--strict`` at a warning too); ``zensical serve`` shows it on the
  page, in place, and prints it, because an exception would end the server.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import posixpath
import sys
from pathlib import Path

from build_hooks.core.errors import DirectiveError, LdrError
from build_hooks.core.textsafe import printable
from build_hooks.drawing.subset import cut_faces
from build_hooks.hosts.siteconfig import layout_for
from build_hooks.hosts.zensical import settings
from build_hooks.hosts.zensical.pages import card_pages, front_matter_lines, site_pages
from build_hooks.hosts.zensical.settings import WATCH_LINE, cli_args, config_root, theme_assets
from build_hooks.pages.links import Pages
from build_hooks.run.library import Diagnostic, Library
from build_hooks.run.status import store_diagnostics
from build_hooks.site import assets
from build_hooks.site.downloads import for_library
from build_hooks.site.publish import Entry, publish

WATCH = ("proofs", "drawings", "data", "pyproject.toml")
"""What the pages are made from, outside docs/ and the theme (which Zensical watches itself)."""
MARKS = ".ldr-inputs"
"""In docs/ (not .cache/, which ``--clean`` empties after the config is read): one empty file
named by a digest of those inputs (:meth:`Session.mark_inputs`). Dot files are not published."""


# -- the host -------------------------------------------------------------------------------
def running() -> bool:
    """True inside a Zensical process (its config loader and renderer)."""
    return "zensical.config" in sys.modules


def _say(level: str, message: str) -> None:
    prefix = {"error": "Error: ldr: ", "warning": "Warning: ldr: "}.get(level, "ldr: ")
    print(prefix + printable(message).replace("\n", "\n  "), file=sys.stderr, flush=True)


# -- publishing -----------------------------------------------------------------------------
def site_files(library: Library, cards: Pages | None = None) -> list[Entry]:
    """Every file the site offers beside its pages, as ``(uri, file or bytes)``, as the plugin's
    ``on_files`` publishes them: the downloads (scripts, the helpers they import, notebooks,
    source pages, which link back to the ``cards``, drawings), the package's own stylesheets,
    script and fonts (those the drawings' text falls in cut to it, drawing/subset.py), and the two
    bundles that pages link (``extra_css`` and ``extra_javascript`` in mkdocs.yml name them for
    Zensical)."""
    cut = cut_faces(library.layout.drawings, library.root)  # the drawing fonts cut to the drawings' text
    return [*for_library(library, cards), *assets.files(*theme_assets(library.root), cut=cut)]


# -- the session: one per project and process ------------------------------------------------
class Session:
    """What the plugin keeps across a build: the library, the extension's state, what was said."""

    def __init__(self, root: Path):
        from build_hooks.hosts.markdown.state import LdrState

        self.root = Path(root).resolve()
        command, options = cli_args()
        self.serving = command == "serve"
        self.strict = bool(options["strict"]) and not self.serving
        # The plugin's folder and pin options, read from mkdocs.yml as `ldr` reads them.
        self.library = Library(self.root, layout=layout_for(self.root))
        self.run = os.environ.get("LDR_RUN", "true").strip().lower() not in ("false", "no", "off", "0")
        # Errors are collected, as under the plugin: end_page() raises them when building.
        # Until prepare() runs, a stale proof runs when a page first quotes it (no `watch:` call).
        self.state = LdrState(self.root, self.library, raise_errors=False, autorun=self.run)
        self.prepared = False
        self.inputs: tuple | None = None  # what begin_build last saw
        self.said: set[str] = set()
        self.built = False  # a build has begun in this process (its spot book is to be kept)
        atexit.register(self.library.close)  # the proof host ends with Zensical
        atexit.register(self.keep_spots)  # Zensical has no end-of-build hook: the book is kept at exit

    # -- before the build ---------------------------------------------------------------
    def prepare(self, docs_dir: Path) -> None:
        """The plugin's on_pre_build and on_files: run what is stale, publish the downloads."""
        self.begin_build()
        library = self.library
        library.clean_leftovers()
        todo = library.plan() if self.run else []  # LDR_RUN=false: the committed records only
        if todo:
            _say("info", f"running {len(todo)} proof(s): {', '.join(p.name for p in todo)}")

            def done(proof, result, record):
                outcome = "ok" if result.ok else result.describe()
                _say("info", f"{proof.name} on {record.device_class}: {outcome} ({result.wall_s:.2f} s)")

            library.run(on_done=done)
            self.begin_build()
        self.publish(docs_dir)  # first: what it refuses to publish joins the diagnostics said next
        for item in [*library.diagnostics, *store_diagnostics(library)]:
            self.say(item)
        library.diagnostics.clear()
        self.inputs = self.fingerprint()
        self.mark_inputs(docs_dir)
        self.prepared, self.state.autorun = True, False

    def mark_inputs(self, docs_dir: Path) -> None:
        """Leave one empty file, named by a digest of the inputs, in :data:`MARKS` (watched).
        Zensical lists watched files with whole-second times, so an edit in the same second as the
        last build would look unchanged to it and re-render nothing; a new name is always seen."""
        assert self.inputs is not None  # prepare() takes the fingerprint just before
        digest = hashlib.sha256(repr([item for item in self.inputs if not item[0].endswith(".md")])
                                .encode()).hexdigest()[:16]
        folder = docs_dir / MARKS
        if os.path.islink(folder) or os.path.lexists(folder) and not folder.is_dir():
            os.unlink(folder)  # a symlink to a folder outside docs/ would have its files removed below
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            if old.name != digest and (old.is_symlink() or not old.is_dir()):
                old.unlink(missing_ok=True)
        if not os.path.lexists(folder / digest):  # as it is: touching it would start another reload
            (folder / digest).touch()

    def publish(self, docs_dir: Path) -> None:
        try:
            publish(self.root, docs_dir, site_files(self.library, self.state.card_urls))
        except LdrError as exc:
            if not self.serving:
                raise
            _say("warning", str(exc))  # an exception would end `zensical serve`

    # -- per build and per page -------------------------------------------------------------
    def fingerprint(self) -> tuple:
        """Sizes and times of what pages are made from: when it moves, a new build began (under
        ``zensical serve`` a page edit re-renders that page alone, with no config load)."""
        layout = self.library.layout
        seen: list[tuple[str, int, int] | tuple[str, int]] = []  # (path, mtime, size); the pin file's has no size
        for folder, pattern in ((layout.proofs, "*.py"), (layout.results, "*.json"),
                                (layout.drawings, "*"), (settings.docs_dir(self.root), "**/*.md")):
            for path in sorted(folder.glob(pattern)):
                stat = path.stat()
                seen.append((str(path), stat.st_mtime_ns, stat.st_size))
        pin = self.root / "pyproject.toml"
        if pin.is_file():
            seen.append((str(pin), pin.stat().st_mtime_ns))
        return tuple(seen)

    def keep_spots(self) -> None:
        """Keep where the last build's pages have their directives, for the next process
        (pages/spotbook.py; the MkDocs plugin does it in on_post_build). A book that cannot be
        written is only a slower next build, so nothing is said."""
        if self.built:
            try:
                self.state.spots.close()
            except OSError:
                pass

    def begin_build(self) -> None:
        self.keep_spots()  # under `zensical serve`, the build before this one
        self.built = True
        self.state.begin_build()
        pages = site_pages(settings.docs_dir(self.root), settings.directory_urls(self.root))
        self.state.card_urls = card_pages(pages, self.state.registry)
        self.state.site_pages = pages  # as the plugin sets them (the proofs index reads them)
        self.said.clear()

    def begin_page(self, page, lines: list[str]) -> None:
        inputs = self.fingerprint()
        if inputs != self.inputs:
            self.begin_build()
            self.inputs = inputs
        if not self.prepared:  # the config has no `watch:` call: Zensical has listed docs/ already
            self.prepared = True
            fix = (f"{settings.config_file(self.root)}: Zensical runs no MkDocs plugin, and this file "
                   f"has no `watch:` call to prepare its build (run the proofs, publish the downloads "
                   f"the cards link to); fix: add the line `{WATCH_LINE}` (README, Zensical)")
            if not self.serving:
                _say("error", fix)
                raise LdrError(fix)
            self.publish(settings.docs_dir(self.root))  # for the next build
            _say("warning", fix)
        state = self.state
        state.diagnostics = []
        state.deferred = None  # no post-page step: bulky HTML stays where it is
        source = page.path.replace(os.sep, "/")
        # Zensical reads every relative link in a page, raw HTML too, as relative to the page's
        # source file and rewrites it for the page's URL; so links are made from the source's
        # folder, as if it were the page's URL ("drift/x.md" -> "drift/"), and Zensical does the rest.
        folder = posixpath.dirname(source)
        state.begin_page(source, f"{folder}/" if folder else "",
                         front_matter_lines(settings.docs_dir(self.root) / source, lines))

    def end_page(self, html: str, page) -> str:
        state = self.state
        floors = self.root / _floors_file()
        if floors.is_file():
            from build_hooks.series.pagetheme import decorate_page

            try:
                html, extra, warnings = decorate_page(html, root=self.root, page_path=state.page or "")
            except DirectiveError as exc:
                html, extra, warnings = html, {}, [str(exc)]
            page.meta.update(extra)
            state.diagnostics += [Diagnostic("warning", message, page=state.page) for message in warnings]
        found, state.diagnostics = state.diagnostics, []
        errors = [item.message for item in found if item.level == "error"]
        if errors and not self.serving:  # the build stops here, as `mkdocs build` does
            for message in errors:  # plainly, before Zensical's traceback
                _say("error", message)
            raise LdrError("\n".join(errors))
        for item in found:
            self.say(item)
        warnings = [item.message for item in found if item.level == "warning"]
        if self.strict and warnings:
            raise LdrError("aborted by --strict:\n" + "\n".join(warnings))
        return html

    def say(self, item: Diagnostic) -> None:
        if item.message in self.said:
            return
        self.said.add(item.message)
        # Under serve a directive error is on the page; the log says it as a warning.
        _say("warning" if item.level == "error" else item.level, item.message)


_SESSIONS: dict[Path, Session] = {}


def session_for(root: Path) -> Session:
    root = Path(root).resolve()
    if root not in _SESSIONS:
        _SESSIONS[root] = Session(root)
    return _SESSIONS[root]


def prepare(root: str | None = None, docs_dir: str = "docs") -> list[str]:
    """``watch:`` in mkdocs.yml: under Zensical, prepare the build and return what to watch;
    under MkDocs, ``[]`` (the plugin does both). ``root`` defaults to the config file's folder;
    give ``docs_dir`` (``{kwds: {docs_dir: ...}}``) when the config's is not ``docs``."""
    if not running():
        return []
    base = config_root()
    project = (base / root).resolve() if root else base
    try:
        config = settings.config_file(base)
        if not settings.lists_extension(config):  # the pages would keep their fences as code
            raise LdrError(f"{config}: Zensical runs no MkDocs plugin, and this file does not list "
                           "the ldr Markdown extension, so its fences and values would stay as they "
                           "are written; fix: add `- ldr` under `markdown_extensions:` (README, Zensical)")
        session_for(project).prepare(project / docs_dir)
    except LdrError as exc:
        if cli_args()[0] != "serve":
            _say("error", str(exc))  # plainly, before Zensical's traceback
            raise
        _say("warning", str(exc))  # an exception here would end `zensical serve`
    return watched(project, docs_dir)


def watched(project: Path, docs_dir: str = "docs") -> list[str]:
    """What Zensical must watch, relative to the project: the proofs with their records, the
    drawings (wherever the plugin's folder options put them), data/, pyproject.toml and the
    theme's files that the bundles join (``theme.ldr_assets``)."""
    session = _SESSIONS.get(Path(project).resolve())
    found = []
    if session is not None:
        layout = session.library.layout
        found = [layout.proofs, layout.results, layout.drawings]
    found += [Path(project) / name for name in WATCH] + [Path(project) / docs_dir / MARKS]
    try:  # the theme's files in the bundles: an edit publishes them again (prepare runs first)
        theme_dir, listed = theme_assets(Path(project))
        found += [theme_dir / name for name in listed if theme_dir is not None and isinstance(name, str)]
    except LdrError:
        pass  # prepare() has said why
    out: list[str] = []
    for path in found:
        if path.exists() and path.is_relative_to(project):
            name = path.relative_to(project).as_posix()
            if name not in out and not any(name.startswith(f"{other}/") for other in out):
                out.append(name)
    return out


# -- small helpers ------------------------------------------------------------------------------
def _floors_file() -> Path:
    from build_hooks.series.pagetheme import FLOORS_FILE

    return FLOORS_FILE
