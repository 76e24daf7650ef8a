"""The MkDocs plugin: wires build events to the core and nothing more.

* on_config: register the fences with superfences and the ``ldr`` Markdown extension;
* on_pre_build: run the proofs whose records are missing or stale;
* on_files: publish ``proofs/*.py`` and ``drawings/*.excalidraw`` at stable URLs;
* on_page_markdown / on_page_content: tell the extension which page it renders, then report
  what it found (directive errors abort the build; proof failures are warnings);
* on_serve: watch proofs/ and drawings/ so that saving one rebuilds.
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File

from .defer import restore
from .errors import LdrError
from .library import Library
from .markdown import LdrExtension, LdrState, card_names, custom_fences
from .status import store_diagnostics

log = get_plugin_logger("ldr")
ANCHOR = re.compile(r'\sid="([^"]+)"')


class LdrConfig(Config):
    python = c.Optional(c.Type(str))
    """Interpreter that runs proofs (default: this one; LDR_PYTHON overrides)."""
    mode = c.Choice(("auto", "fork", "spawn"), default="auto")
    jobs = c.Optional(c.Type(int))
    """Cores for proofs marked parallel (default: all)."""
    run = c.Type(bool, default=True)
    """Run missing or stale proofs during the build (off: only use the records)."""


class LdrPlugin(BasePlugin[LdrConfig]):
    supports_multiple_instances = False

    def on_config(self, config):
        root = Path(config.config_file_path or ".").resolve().parent
        mode = None if self.config.mode == "auto" else self.config.mode
        try:
            self.library = Library(root, self.config.python, mode, self.config.jobs)
        except LdrError as exc:
            raise PluginError(str(exc)) from exc
        self.state = LdrState(root, self.library, raise_errors=False, autorun=False)
        extensions = config.markdown_extensions
        for name in ("attr_list", "pymdownx.superfences"):
            if name not in extensions:
                extensions.append(name)
        fences = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        taken = {fence.get("name") for fence in fences}
        fences.extend(f for f in custom_fences() if f["name"] not in taken)
        extensions.append(LdrExtension(state=self.state))
        return config

    def on_pre_build(self, config):
        try:
            self.state.begin_build()
        except LdrError as exc:  # e.g. a proof imports a helper that does not exist
            raise PluginError(str(exc)) from exc
        self.reported: set[str] = set()
        self.deferred: dict[str, dict[str, str]] = {}
        library = self.library  # begin_build() has just refreshed it
        if not self.config.run:
            return
        library.clean_leftovers()  # temporary files of a write killed midway
        todo = library.plan()
        if not todo:
            return
        log.info(f"running {len(todo)} proof(s): {', '.join(p.name for p in todo)}")
        started = time.perf_counter()

        def done(proof, result, record):
            outcome = "ok" if result.ok else result.describe()
            log.info(f"{proof.name} on {record.device_class}: {outcome} ({result.wall_s:.2f} s)")

        try:
            library.run(on_done=done)
        except LdrError as exc:
            raise PluginError(str(exc)) from exc
        log.info(f"proofs done in {time.perf_counter() - started:.2f} s")

    def on_files(self, files, config):
        root = self.library.root
        data = str(root / "theme" / "data") + os.sep
        for file in list(files):  # the theme's YAML data is read at build time, not published
            if file.abs_src_path and os.path.abspath(file.abs_src_path).startswith(data):
                files.remove(file)
        # Local helpers (proofs/_*.py) are published when a proof imports them; records never.
        helpers = {name for proof in self.library.proofs.values() for name, _ in proof.helpers}
        for folder, pattern in (("proofs", "*.py"), ("drawings", "*.excalidraw")):
            for path in sorted((root / folder).glob(pattern)):
                if path.name.startswith("_") and not (folder == "proofs" and path.name in helpers):
                    continue
                uri = f"{folder}/{path.name}"
                if files.get_file_from_path(uri) is None:
                    files.append(File.generated(config, uri, abs_src_path=str(path)))
        cards: dict[str, list[tuple[str, str]]] = {}
        for file in files.documentation_pages():
            for name in card_names(file.content_string):
                cards.setdefault(name, []).append((file.src_uri, _url(file.url)))
        self.state.card_urls = cards
        return files

    def on_page_markdown(self, markdown, page, config, files):
        self.state.deferred = {}
        raw = page.file.content_string.replace("\r\n", "\n")
        # MkDocs has cut the front matter off: count the lines it took.
        if markdown and raw.endswith(markdown):
            offset = raw[: len(raw) - len(markdown)].count("\n")
        else:
            start = raw.find(markdown[:200]) if markdown else -1
            offset = raw[:start].count("\n") if start > 0 else 0
        self.state.begin_page(page.file.src_uri, _url(page.url), offset)
        return markdown

    def on_page_content(self, html, page, config, files):
        diagnostics, self.state.diagnostics = self.state.diagnostics, []
        errors = [d.message for d in diagnostics if d.level == "error"]
        if errors:
            raise PluginError("\n".join(errors))
        self.deferred[page.file.src_uri], self.state.deferred = self.state.deferred or {}, None
        if page.present_anchor_ids is not None:
            # Cards and figures are raw HTML that MkDocs' anchor check cannot see.
            page.present_anchor_ids |= set(ANCHOR.findall(html))
        for item in diagnostics:
            if item.proof:
                self.reported.add(item.proof)
            (log.warning if item.level == "warning" else log.info)(item.message)
        if (self.library.root / "theme" / "data" / "floors.yml").is_file():
            from .pagetheme import decorate_page

            html, extra, warnings = decorate_page(html, root=self.library.root, page_path=page.file.src_uri)
            page.meta.update(extra)
            for message in warnings:
                log.warning(message)
        return html

    def on_post_page(self, output, page, config):
        return restore(output, self.deferred.pop(page.file.src_uri, {}))

    def on_post_build(self, config):
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
            if state.proof.name in self.reported or record is None:
                continue
            if record.failure is not None or not record.ok:
                log.warning(f"proof {state.proof.name} ({state.device_class}) failed and no page shows it: "
                            "run `ldr status` for details")

    def on_serve(self, server, config, builder):
        for folder in ("proofs", "drawings"):
            path = self.library.root / folder
            if path.is_dir():
                # Not recursive: records written to proofs/_results must not trigger a rebuild.
                server.watch(str(path), recursive=False)
        if self.config.run:
            # Import torch once in the background, so that the first proof saved is quick.
            threading.Thread(target=self._warm, name="ldr-warm-host", daemon=True).start()
        return server

    def _warm(self) -> None:
        try:
            self.library.runner().start()
        except LdrError as exc:  # the next build reports it where the author looks
            log.debug(f"could not warm the proof host: {exc}")


def _url(url: str) -> str:
    """MkDocs names the home page both "" and "./"; use one spelling."""
    return "" if url in ("", "./", ".") else url
