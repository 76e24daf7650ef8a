"""The MkDocs plugin's page events (mixed into :class:`build_hooks.hosts.mkdocs.plugin.LdrPlugin`):

* on_page_markdown (early: hold the values out of mkdocs-macros-plugin's jinja, macros.py; late:
  put them back) / on_page_content: tell the extension which page it renders, then report
  what it found (directive errors abort the build, but under ``mkdocs serve`` they are shown
  on the page and logged as warnings, so that the server keeps answering; proof failures are
  warnings, and under ``mkdocs serve`` each is said once while the proof's script and records stay
  as they are, not on every rebuild);
  drawings past the page's first screens become files of their own (site/lazyfigures.py);
* on_post_page: put back the markup the page held out (site/defer.py); declare and preload the
  fonts its drawings name (drawing/fonts.py page_fonts).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.utils import get_relative_url

from build_hooks.core.errors import LdrError
from build_hooks.drawing.fonts import page_fonts
from build_hooks.hosts.mkdocs.log import guard_hooks, log
from build_hooks.hosts.mkdocs.macros import HOLD_PRIORITY, RESTORE_PRIORITY
from build_hooks.site import assets
from build_hooks.site.defer import as_text, restore
from build_hooks.site.lazyfigures import lazy_figures

ANCHOR = re.compile(r'\sid="([^"]+)"')


def normal_url(url: str) -> str:
    """MkDocs names the home page both "" and "./"; use one spelling."""
    return "" if url in ("", "./", ".") else url


class PageEvents:
    """LdrPlugin's page events; the plugin's other events set the fields they use."""

    @event_priority(HOLD_PRIORITY)
    def _page_source(self, markdown, page, config, files):
        """Early, on the page as written: count the front matter's lines, and hold our values out
        of mkdocs-macros-plugin's jinja when the site lists it (macros.py)."""
        raw = page.file.content_string.replace("\r\n", "\n")
        # MkDocs has cut the front matter off: count the lines it took.
        if markdown and raw.endswith(markdown):
            self.offset = raw[: len(raw) - len(markdown)].count("\n")
        else:
            start = raw.find(markdown[:200]) if markdown else -1
            self.offset = raw[:start].count("\n") if start > 0 else 0
        return self.held.hold(markdown, self.library.proofs) if self.macros is not None else markdown

    @event_priority(RESTORE_PRIORITY)
    def _page_converting(self, markdown, page, config, files):
        """Late, after every other plugin's on_page_markdown: our values back, then tell the
        extension which page it converts."""
        self.state.deferred = {}
        markdown = self.held.restore(markdown)
        self.state.begin_page(page.file.src_uri, normal_url(page.url), getattr(self, "offset", 0))
        if self.pages is not None:  # a page whose inputs are unchanged is not converted again (pagecache.py)
            self.pages.attach(page)
        return markdown

    on_page_markdown = CombinedEvent(_page_source, _page_converting)

    def on_page_content(self, html, page, config, files):
        diagnostics, self.state.diagnostics = self.state.diagnostics, []
        errors = [d.message for d in diagnostics if d.level == "error"]
        if errors and not self.serving:  # every page's errors, reported together after the last page
            self.page_errors += errors
            self.broken_pages.append(page.file.abs_dest_path)  # never left in site/ (on_post_build)
            diagnostics = [d for d in diagnostics if d.level != "error"]
        # Under serve the page shows each error in its place (LdrState.fail) and the log warns.
        self.deferred[page.file.src_uri], self.state.deferred = self.state.deferred or {}, None
        if self.config.lazy_figures:  # drawings past the first screens: files that come when needed
            for uri, body in lazy_figures(html, self.deferred[page.file.src_uri],
                                          lambda uri: get_relative_url(uri, page.url)):
                self.shelf.place(body, Path(config.site_dir) / uri)
        if page.present_anchor_ids is not None:
            # Cards and figures are raw HTML that MkDocs' anchor check cannot see.
            page.present_anchor_ids |= set(ANCHOR.findall(html))
        for item in diagnostics:
            if item.proof:
                self.reported.add(item.proof)
                if not self._new(item.message, item.proof):
                    continue
            (log.info if item.level == "info" else log.warning)(item.message)
        from build_hooks.series.pagetheme import FLOORS_FILE, decorate_page

        if os.path.lexists(self.library.root / FLOORS_FILE):  # a FIFO or a bad symlink there is reported
            try:
                html, extra, warnings = decorate_page(html, root=self.library.root, page_path=page.file.src_uri)
            except LdrError as exc:  # data/floors.yml cannot be used: no depth meter on this page
                extra, warnings = {}, [str(exc)] if str(exc) not in self.warned else []
                self.warned.add(str(exc))
            page.meta.update(extra)
            for message in warnings:
                log.warning(message)
        # what the search plugin reads of our elements: their text (site/defer.py, as_text)
        return as_text(html, self.deferred[page.file.src_uri])

    def on_post_page(self, output, page, config):
        html = restore(output, self.deferred.pop(page.file.src_uri, {}))
        fonts = get_relative_url(assets.PREFIX + "fonts/", page.url)
        return page_fonts(html, fonts if fonts.endswith("/") else fonts + "/", self.cut_fonts)


guard_hooks(PageEvents)  # an OSError in a hook is one error naming the path and the fix
