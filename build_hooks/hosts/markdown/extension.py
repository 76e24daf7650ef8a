"""The Python-Markdown extension: proof directives, inline values, instruments and figures.

Fences are pymdownx.superfences custom fences whose body is YAML (a bare scalar is the main
argument). Under MkDocs the ``ldr`` plugin registers everything; elsewhere (Zensical,
ProperDocs, plain Python-Markdown) list the ``ldr`` extension and add :func:`custom_fences`
to superfences' ``custom_fences`` (README, "Other generators"). Under Zensical the extension
also does the plugin's page bookkeeping itself (hosts/zensical/site.py).

Inline values: ``{{ proof.NAME.key | format }}`` (``proof@cuda.NAME...`` picks a device).

Trust rules: whatever a proof printed is text (escaped, control characters made visible, never
read as Markdown); any exception while rendering a directive is an error naming the page and
the line of that directive (located with markdown-it-py before superfences runs: locate.py);
a fence refuses options it does not take; a page shows each proof's card once.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from pathlib import Path

from markdown import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.serializers import to_html_string
from markdown.treeprocessors import Treeprocessor
from markdown.util import HTML_PLACEHOLDER_RE, AtomicString

from build_hooks.config import Layout
from build_hooks.hosts.markdown import pinref

# The extension's public names (mkdocs.yml and the README refer to them here).
from build_hooks.hosts.markdown.fences import (  # noqa: F401
    card_names,
    custom_fences,
    fence_format,
    fence_validator,
    parse_options,
)
from build_hooks.hosts.markdown.state import LdrState, ProofPending  # noqa: F401
from build_hooks.pages.locate import VALUE
from build_hooks.render.claim import mark_claimed
from build_hooks.render.safe import visible
from build_hooks.site.defer import TOKENS
from build_hooks.site.farblocks import CLASS, stand_in
from build_hooks.site.lazyfigures import EARLY_TEXT, text_length


class _SourceLines(Preprocessor):
    """Runs before superfences sees the text: records where every directive is."""

    def __init__(self, md, state: LdrState):
        super().__init__(md)
        self.state = state

    def run(self, lines):
        self.state.begin_text(lines)
        return lines


class _PageEnd(Postprocessor):
    """Runs after the page is converted: the directive memo writes back the page's entries, and
    the paragraphs that claim marks follow are marked for the stylesheet (render/claim.py)."""

    def __init__(self, md, state: LdrState):
        super().__init__(md)
        self.state = state

    def run(self, text):
        self.state.memo.flush()
        return mark_claimed(text)


def _text(value: str) -> str:
    """For etree text and attributes: Python-Markdown's serializer escapes ``<`` and ``>`` but
    leaves ``&`` alone where it starts an entity, so escape every ``&`` first."""
    return visible(value).replace("&", "&amp;")


class _ValuePattern(InlineProcessor):
    """An inline value reads as prose: quiet text, not a link that jumps to its card far down.
    Its provenance (proof, key, exact value, torch, device, date) is its title, shown on hover,
    and on focus (a tap on a phone, Tab on a keyboard) by the stylesheet; the page's excerpts and
    claims link the card itself. ``data-card`` keeps the card's address for tools: ``#proof-x``
    on this page, else from the site's root (``other/#proof-x``, ``./#proof-x`` on the home page,
    ``proofs/x.py`` with no card),
    the same under every host (no generator rewrites an attribute that is not a link)."""

    def __init__(self, state: LdrState, md):
        super().__init__(VALUE.pattern, md)
        self.state = state

    def handleMatch(self, m, data):
        state = self.state
        line = state.value_line(m.group(0))
        try:
            text, detail, item = state.value(m)
            p = item.provenance
            card = state.links().root(item.name)  # from the site's root: the same under every host
            attrs = {name: _text(value) for name, value in {
                "class": "ldr-value", "tabindex": "0", "data-card": card,
                "data-proof": item.name, "data-key": m.group("key"),
                "data-format": (m.group("fmt") or "").strip(),
                "title": f"{item.name}: {detail} ({p.runtime}, {p.device}, {p.measured_at})",
            }.items()}
            text = _text(text)
            el = etree.Element("span", attrs)
            # Atomic: later inline patterns must not read the value as Markdown or HTML.
            el.text = AtomicString(text)
        except Exception as exc:  # noqa: BLE001 - any failure is the page's error, with its line
            html = state.fail(exc, line, what=f"the value {m.group(0)}")
            return self.md.htmlStash.store(html), m.start(0), m.end(0)
        return el, m.start(0), m.end(0)


_HEADING = re.compile(r"h[1-6]")
_HEADING_HTML = re.compile(r"<h[1-6][\s>]", re.I)
FAR = CLASS
"""The class of each run of top-level blocks between two headings past the page's first screens."""


def _stashed(stash: list, m) -> str:
    """The HTML that Python-Markdown's placeholder ``m`` holds ("" for one it does not)."""
    k = int(m.group(1))
    return str(stash[k]) if k < len(stash) else ""


class _MarkFar(Treeprocessor):
    """Puts each run of top-level blocks between two headings, from the first block past the
    page's first :data:`EARLY_TEXT` characters of text (about two screens of a laptop, four of a
    phone: lazyfigures.py) on, in a ``<div class="ldr-far">``. The package's stylesheet lets the
    browser skip such a run while it is off screen (``content-visibility: auto``), with a stand-in
    height guessed from what it holds (site/farblocks.py), never above: Chromium works out whether
    a block is on screen only after the first frames, and one on the first screen would be blank
    and too tall until then.

    Headings stay outside, so that the table of contents, the depth meter and a link to a section
    find them without laying out a skipped run; so does a block that holds one (a directive's
    HTML with a heading in it), which ends the run before it.

    A directive's HTML (held in Python-Markdown's stash) counts by its text. Under MkDocs the
    plugin holds a card's output, a quote's lines and an instrument out of that HTML until the
    page is written (site/defer.py), so there the first run starts further down than under
    Zensical: it errs towards drawing more, never towards a blank first screen."""

    def run(self, root):
        stash = self.md.htmlStash.rawHtmlBlocks
        seen = 0
        blocks = list(root)
        for i, block in enumerate(blocks):
            text = "".join(block.itertext())
            # a directive's place (a claim's, say) never starts the first run: a claim that
            # follows a paragraph must stay beside it (render/claim.py, mark_claimed)
            held = HTML_PLACEHOLDER_RE.fullmatch(text.strip()) is not None
            if seen >= EARLY_TEXT and not held:
                self._wrap(root, blocks[i:], stash)
                return
            seen += len(HTML_PLACEHOLDER_RE.sub("", text))
            for m in HTML_PLACEHOLDER_RE.finditer(text):
                seen += text_length(_stashed(stash, m))

    def _wrap(self, root, blocks, stash):
        """Put each run of ``blocks`` (the root's, from the first far one on) between headings in
        a ``<div class="ldr-far">`` whose style holds its stand-in heights."""
        state = getattr(self.md, "ldr_state", None)
        deferred = state.deferred if state is not None else None

        def holds_heading(block) -> bool:
            places = HTML_PLACEHOLDER_RE.finditer("".join(block.itertext()))
            return any(_HEADING.fullmatch(str(e.tag)) for e in block.iter()) or any(
                _HEADING_HTML.search(_stashed(stash, m)) for m in places)

        def close(run):
            if not run:
                return
            html = HTML_PLACEHOLDER_RE.sub(lambda m: _stashed(stash, m), "".join(to_html_string(b) for b in run))
            if deferred:  # what the plugin holds out until the page is written is measured too
                html = TOKENS.sub(lambda m: deferred.get(m.group(0), ""), html)
            box = etree.Element("div", {"class": FAR, "style": stand_in(html)})
            root.insert(list(root).index(run[0]), box)
            for b in run:
                root.remove(b)
                box.append(b)

        run: list = []
        for block in blocks:
            if holds_heading(block):
                close(run)
                run = []
            else:
                run.append(block)
        close(run)


class LdrExtension(Extension):
    def __init__(self, **kwargs):
        self.config = {
            "root": [".", "the project root (holds proofs/, drawings/, pyproject.toml)"],
            "raise_errors": [True, "raise on bad directives (the MkDocs plugin collects them)"],
            "proofs_dir": ["proofs", "the proof scripts' folder, relative to root"],
            "drawings_dir": ["drawings", "the Excalidraw scenes' folder, relative to root"],
            "results_dir": ["", "the records' folder (default: <proofs_dir>/_results)"],
            "torch": ["", "the torch pin (default: pyproject.toml, then requirements.txt)"],
            "docs_dir": ["docs", "the pages' folder, relative to root (MkDocs' docs_dir)"],
            "widgets": [[], "modules whose DIRECTIVES join the core's (the series': build_hooks.series)"],
            "typed_versions": ["off", "torch versions typed by hand in prose: off, warn or error (pinref.py)"],
        }
        self.state: LdrState | None = kwargs.pop("state", None)
        super().__init__(**kwargs)

    def extendMarkdown(self, md):
        if self.state is None:
            from build_hooks.hosts.zensical.hooks import attach  # under Zensical's renderer: one state per project

            self.state = attach(md, self)
        if self.state is None:
            root = Path(self.getConfig("root"))
            layout = Layout.at(root, self.getConfig("proofs_dir"), self.getConfig("drawings_dir"),
                               self.getConfig("results_dir") or None, self.getConfig("torch") or None,
                               docs_dir=self.getConfig("docs_dir") or None)
            self.state = LdrState(root, raise_errors=self.getConfig("raise_errors"), layout=layout,
                                  widgets=self.getConfig("widgets") or (),
                                  typed_versions=self.getConfig("typed_versions") or "off")
        md.ldr_state = self.state
        md.preprocessors.register(_SourceLines(md, self.state), "ldr_source_lines", 40)
        md.inlinePatterns.register(_ValuePattern(self.state, md), "ldr_value", 175)
        md.treeprocessors.register(_MarkFar(md), "ldr_mark_far", 15)
        md.postprocessors.register(_PageEnd(md, self.state), "ldr_page_end", 0)
        # {{ torch.version }}, pytorch: links, no hand-typed pins
        pinref.register(md, self.state, self.state.registry)


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's entry point name
    return LdrExtension(**kwargs)
