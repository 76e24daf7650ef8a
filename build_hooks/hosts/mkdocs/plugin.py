"""The MkDocs plugin: wires build events to the core and nothing more.

* on_startup: note whether this is ``mkdocs serve``;
* on_config: register the fences (setup.py) with superfences and the ``ldr`` Markdown extension; link the
  package's own stylesheets (cards, excerpts, values, figures: site/assets.py) on every page;
* on_pre_build: run the proofs whose records are missing or stale; under ``mkdocs serve``
  hand them to a background scheduler instead (run/scheduler.py, through serve.py), so that no request waits on
  a proof: pages show the last record marked "re-running" (or a "running now" card), and each
  record written triggers a rebuild;
* on_files: publish the downloads (site/downloads.py: ``proofs/*.py``, their helpers, one
  ``proofs/<name>.ipynb`` notebook and one ``proofs/<name>.py.html`` source page per proof,
  ``drawings/*.excalidraw``) at stable URLs (whatever
  the ``proofs_dir`` and ``drawings_dir`` options name), and the package's assets under ``assets/ldr/``;
* on_env: give the theme's jinja environment jinja's own cache of compiled templates
  (site/templates.py);
* on_page_markdown, on_page_content, on_post_page: the page events (pages.py);
* on_serve: watch proofs/ and drawings/ so that saving one rebuilds;
* on_shutdown: stop the background scheduler and the proof host (a running proof is killed).

mkdocs.yml also lists the extension and the fences for Zensical (hosts/zensical/site.py): on_config drops
the listed extension, which this plugin's own instance replaces, and on_files drops the files a
Zensical build wrote into docs/ (site/publish.py), so that MkDocs publishes its own.

(serve.py says how a record written in the background asks for a rebuild.)
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import replace
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from build_hooks.config import cache_dir
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, check_regular
from build_hooks.drawing.subset import cut_faces
from build_hooks.hosts.markdown.extension import LdrState, card_names
from build_hooks.hosts.mkdocs.config import LdrConfig
from build_hooks.hosts.mkdocs.log import check_writable, guard_hooks, log
from build_hooks.hosts.mkdocs.macros import Held, clashes, macros_plugin, order_problem
from build_hooks.hosts.mkdocs.pagecache import PageCache
from build_hooks.hosts.mkdocs.pages import PageEvents, normal_url
from build_hooks.hosts.mkdocs.prestart import plugin_library, prestart
from build_hooks.hosts.mkdocs.serve import ServeLoop
from build_hooks.hosts.mkdocs.setup import add_assets, add_extensions, listed_option, say_site_url_problem
from build_hooks.hosts.mkdocs.shelved import ShelvedFile
from build_hooks.run.progress import Estimate
from build_hooks.run.status import store_diagnostics
from build_hooks.site import assets
from build_hooks.site.downloads import for_library
from build_hooks.site.publish import published
from build_hooks.site.shelf import Shelf
from build_hooks.site.templates import attach as attach_compiled


def project_root(config_file_path: str | None) -> Path:
    """The folder of the site's mkdocs.yml, as MkDocs finds docs_dir from it: a linked mkdocs.yml
    is not followed (the project is where the link is, not where it points), a linked folder is."""
    if not config_file_path:
        return Path(".").resolve().parent
    return Path(config_file_path).absolute().parent.resolve()


class LdrPlugin(PageEvents, BasePlugin[LdrConfig]):
    supports_multiple_instances = False

    def __init__(self):
        super().__init__()
        self.serving = False
        self.loop = ServeLoop(report=_report)  # background proofs and rebuilds under `mkdocs serve`
        self.macros = None  # mkdocs-macros-plugin, when the site lists it (macros.py)
        self.held = Held()
        self.pages: PageCache | None = None  # converted pages kept between builds (pagecache.py)
        self.cut_fonts: dict[str, str] = {}  # shipped face -> the face cut to the drawings' text (subset.py)

    def load_config(self, options, config_file_path=None):
        result = super().load_config(options, config_file_path)
        if not result[0] and self.config.run:
            # MkDocs loads plugins first, then validates the rest of the config: start the
            # proof host now if a proof will run, so that it imports torch while MkDocs reads
            # the theme and extensions. on_pre_build's run waits
            # for it. The check runs here, not on the thread: a thread that reads the proofs
            # and records while MkDocs loads would trade the lock with it hundreds of times.
            root = project_root(config_file_path)
            self._early = prestart(root, self._library_options())
        return result

    def _library_options(self) -> tuple:
        """What the plugin's Library is made of: the interpreter, mode, cores and folders."""
        mode = None if self.config.mode == "auto" else self.config.mode
        return (self.config.python, mode, self.config.jobs, self.config.proofs_dir, self.config.drawings_dir,
                self.config.results_dir, self.config.torch)

    def on_startup(self, *, command, dirty):
        # Defining on_startup also keeps this object across `mkdocs serve` rebuilds.
        self.serving = command == "serve"
        self.command = command

    def on_config(self, config):
        log.begin()
        if not self.serving:  # `mkdocs serve` sets site_url to its own address
            say_site_url_problem(config, getattr(self, "command", "build"), log)
        root = project_root(config.config_file_path)
        early, self._early = getattr(self, "_early", None), None
        try:
            # The Library that load_config made to start the host early, if it is this one.
            made = early[1] if early is not None and early[0] == (root, self._library_options()) else None
            self.library = made or plugin_library(root, self._library_options())
            # the pages' folder is known once MkDocs has validated its own config (docs_dir)
            self.library.layout = replace(self.library.layout, docs=Path(config.docs_dir))
            self.layout = self.library.layout
            self.assets = assets.site_assets()
        except LdrError as exc:
            raise PluginError(str(exc)) from exc
        try:
            self.state = LdrState(root, self.library, raise_errors=False, autorun=False,
                                  widgets=self.config.widgets or listed_option(config, "widgets", []),
                                  typed_versions=self.config.typed_versions
                                  or listed_option(config, "typed_versions", "off"))
        except LdrError as exc:
            raise PluginError(str(exc)) from exc
        self.pages = PageCache(root, self.state) if self.config.page_cache else None
        add_assets(config)
        add_extensions(config, self.state)
        self.macros = macros_plugin(config)
        problem = order_problem(config, self, self.macros)
        if problem:
            raise PluginError(problem)
        return config

    def on_pre_build(self, config):
        check_writable(config.site_dir)  # a read-only tree fails here, with the fix
        try:
            self.state.begin_build()
        except LdrError as exc:  # e.g. a proof imports a helper that does not exist
            raise PluginError(str(exc)) from exc
        if self.pages is not None:
            self.pages.begin_build()
        self.reported: set[str] = set()
        self.page_errors: list[str] = []  # directive errors of every page, raised after the last
        self.broken_pages: list[str] = []  # where those pages were written
        self.warned: set[str] = set()  # data-file problems, said once per build
        self.deferred: dict[str, dict[str, str]] = {}
        library = self.library  # begin_build() has just refreshed it
        for problem in clashes(self.macros, library.proofs):
            log.warning(problem)
        if not self.config.run:
            return
        library.clean_leftovers()  # temporary files of a write killed midway
        todo = library.plan()
        if self.serving and self.config.background:
            self.state.rerunning = self.loop.schedule(self.library, todo)
            return
        if not todo:
            return
        estimate = Estimate.for_run(library, todo)
        log.info(f"running {len(todo)} proof(s): {', '.join(p.name for p in todo)}{estimate.plan_note()}")
        started = time.perf_counter()

        def done(proof, result, record):
            estimate.finished(proof.name)
            outcome = "ok" if result.ok else result.describe()
            log.info(f"[{estimate.done}/{estimate.count}] {proof.name} on {record.device_class}: {outcome} "
                     f"({result.wall_s:.2f} s){estimate.left_note()}")

        try:
            library.run(on_start=lambda proof: estimate.started(proof.name), on_done=done)
        except LdrError as exc:
            raise PluginError(str(exc)) from exc
        log.info(f"proofs done in {time.perf_counter() - started:.2f} s")

    def on_files(self, files, config):
        mirrored = published(Path(config.docs_dir))  # what a Zensical build wrote into docs/
        for file in list(files):
            refused = _refused(file, self.library.root)  # a symlink leaving docs/, a FIFO: neither read nor copied
            if refused:
                log.warning(refused)
            if refused or file.src_uri in mirrored:
                files.remove(file)
        cards: dict[str, list[tuple[str, str]]] = {}
        pages = []
        for file in files.documentation_pages():
            try:
                text = file.content_string
            except UnicodeDecodeError as exc:  # MkDocs would end in a traceback reading it
                shown = os.path.relpath(file.abs_src_path, self.library.root)
                raise PluginError(f"{shown}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
                                  f"offset {exc.start}); fix: save the page as UTF-8") from None
            pages.append((file.src_uri, normal_url(file.url), text))
            for name in card_names(text, self.state.registry):
                cards.setdefault(name, []).append((file.src_uri, normal_url(file.url)))
        self.state.card_urls = cards
        self.state.site_pages = pages  # for the proofs index and the exercises
        # Scripts, the helpers they import, notebooks, source pages (which link back to the
        # cards) and drawings (records never: downloads.py): always these, as Zensical's
        # publish() insists too, since a card's download must be the file the page's numbers
        # came from; the package's own CSS and fonts: a site file wins.
        downloads = for_library(self.library, cards)
        for uri, _source in downloads:
            theirs = files.get_file_from_path(uri)
            if theirs is not None:
                shown = os.path.relpath(theirs.abs_src_path, self.library.root) if theirs.abs_src_path else uri
                log.warning(f"{shown}: the site publishes {uri} for a proof's card to link, and docs/ has "
                            "its own file there; the proof's is published; fix: remove or rename the file")
                files.remove(theirs)
        try:  # the drawing fonts, cut to the characters the drawings use (drawing/subset.py)
            self.cut_fonts, fonts = assets.cut_fonts(cut_faces(self.layout.drawings, self.library.root))
        except LdrError as exc:
            raise PluginError(str(exc)) from exc
        # Published by hard link to one copy of their bytes in the cache (site/shelf.py).
        self.shelf = Shelf(self.library.root, self.config.link_files)
        for uri, source in [*downloads, *self.assets, *fonts]:
            if files.get_file_from_path(uri) is None:
                files.append(ShelvedFile.of(config, uri, source, self.shelf))
        return files

    def on_env(self, env, config, files):
        # MkDocs compiles every theme template again on each build; compile each one once.
        return attach_compiled(env, self.library.root) if self.config.template_cache else env

    def on_post_build(self, config):
        self.state.spots.close()  # where the pages' directives are, for the next build (spotbook.py)
        if self.page_errors:  # one build names every page's problems, not just the first page's
            found, self.page_errors = self.page_errors, []
            for path in self.broken_pages:  # a failed build leaves no page with an error in it
                with contextlib.suppress(OSError):
                    os.remove(path)
            pages = len({message.split(":", 1)[0] for message in found})
            raise PluginError("\n".join(found) + f"\n{len(found)} directive error(s) on {pages} page(s)")
        self.shelf.prune()  # what this build linked stays; an earlier build's other contents go
        # Store problems (corrupt records, bad data lines) come from the records themselves, so
        # every build reports them until they are fixed, not only the build that ran the proof.
        seen: set[str] = set()
        for item in [*self.library.diagnostics, *store_diagnostics(self.library)]:
            if item.message not in seen:
                seen.add(item.message)
                (log.warning if item.level == "warning" else log.info)(item.message)
        self.library.diagnostics.clear()
        for state in self.library.states():
            record = state.record
            # A proof re-running in the background under serve was shown as running: when its run
            # ends, serve builds again and the page that shows it says how it ended, once.
            if state.proof.name in self.reported or state.proof.name in self.state.rerunning or record is None:
                continue
            message = (f"proof {state.proof.name} ({state.device_class}) failed and no page shows it: "
                       "run `ldr status` for details")
            if (record.failure is not None or not record.ok) and self._new(message, state.proof.name):
                log.warning(message)
        if not log.problems:  # a build that reported nothing keeps what its pages quoted of torch
            kept = self.state.keep_quotes()
            if kept is not None:
                log.info(f"source quotes of torch kept in {self.layout.shown(kept)}")
        log.check(config.strict)  # strict at any verbosity: MkDocs counts no warning under -q

    def _new(self, message: str, name: str) -> bool:
        """Say ``message`` about proof ``name``? Always in a build; under serve, once (serve.py)."""
        return not self.serving or self.loop.first_time(message, self.library, name)

    def on_serve(self, server, config, builder):
        self.serving = True  # also under `mkdocs serve --clean`, whose startup says "build"
        self.loop.attach(server, cache_dir(self.library.root), (self.layout.proofs, self.layout.drawings))
        if self.config.run:
            # Import torch once in the background, so that the first proof saved is quick.
            threading.Thread(target=self._warm, name="ldr-warm-host", daemon=True).start()
        return server

    def _warm(self) -> None:
        try:
            self.library.runner().start()
        except Exception as exc:  # the next run reports it where the author looks
            log.debug(f"could not warm the proof host: {exc}")

    def on_shutdown(self):
        self.loop.stop()
        if self.serving and getattr(self, "library", None) is not None:
            self.library.close()

guard_hooks(LdrPlugin)  # an OSError in a hook is one error naming the path and the fix


def _refused(file, root: Path) -> str | None:
    """Why a file of the site's own folders (docs/, the theme's) is neither read nor published
    (core/safefs.py: a symlink leaving its folder, a FIFO, a device, a socket), or None."""
    if not file.src_dir or not file.abs_src_path:
        return None
    try:
        check_regular(Path(file.abs_src_path), inside=Path(file.src_dir))
    except UnsafeFile as exc:
        path = Path(file.abs_src_path)
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        return f"{shown} is {exc.what}: the build neither reads nor publishes it; fix: {exc.fix}"
    except OSError:  # gone meanwhile: MkDocs says so
        return None
    return None


def _report(level: str, message: str) -> None:
    """The scheduler's messages, from its thread, at their own level."""
    {"info": log.info, "warning": log.warning}.get(level, log.error)(message)
