"""The Python-Markdown extension: proof directives, inline values, instruments and figures.

Fences are pymdownx.superfences custom fences whose body is YAML (a bare scalar is the main
argument). Under MkDocs the ``ldr`` plugin registers everything; elsewhere (Zensical,
ProperDocs, plain Python-Markdown) list the ``ldr`` extension and add :func:`custom_fences`
to superfences' ``custom_fences`` (README, "Other generators").

Inline values: ``{{ proof.NAME.key | format }}`` (``proof@cuda.NAME...`` picks a device).
"""

from __future__ import annotations

import importlib
import re
import xml.etree.ElementTree as etree
from html import escape
from pathlib import Path

import pygments
import yaml
from markdown import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor

from .context import Context, ProofData
from .datalines import key_paths, lookup
from .defer import defer
from .errors import DirectiveError, LdrError
from .library import Diagnostic, Library
from .cache import TextCache, key_of
from .render.card import highlight_source, render_card, status_phrase
from .render.excerpt import render_excerpt
from .render.values import format_value

YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present
HANDLERS = {
    "instrument": "build_hooks.instruments:render_fence",
    "figure": "build_hooks.drawing.figure:render_fence",
    "reading-lines": "build_hooks.metro:render_fence",
    "robot": "build_hooks.robot:render_fence",
    "drift-report": "build_hooks.drift:render_fence",
    "corrections": "build_hooks.corrections:render_fence",
}
FENCES = ("proof", "proof-output", *HANDLERS)
VALUE = re.compile(
    r"\{\{\s*(?P<proof>[a-z][a-z0-9_]*)(?:@(?P<device>cpu|cuda|mps))?\.(?P<key>[A-Za-z0-9_.\-]+)"
    r"\s*(?:\|\s*(?P<fmt>[^}|]*?))?\s*\}\}"
)


class LdrState:
    """Shared by every page a build converts; the plugin sets the page fields."""

    def __init__(self, root: Path, library: Library | None = None, raise_errors: bool = True,
                 autorun: bool = True):
        self.root = Path(root).resolve()
        self._library = library
        self.raise_errors = raise_errors
        self.autorun = autorun
        self.page: str | None = None
        self.page_url: str | None = None
        self.line_offset = 0
        self.card_urls: dict[str, str] | None = None  # proof -> page URL, set by the plugin
        self.diagnostics: list[Diagnostic] = []
        self.lines: list[str] = []
        self._cache: dict[str, dict[str, ProofData]] = {}
        self._checked: set[str] = set()
        self.highlights = TextCache.for_project(self.root, "highlight", ".html")
        self.deferred: dict[str, str] | None = None  # the plugin sets a dict: see defer.py

    @property
    def library(self) -> Library:
        if self._library is None:
            self._library = Library(self.root)
        return self._library

    def begin_build(self) -> None:
        self._cache.clear()
        self._checked.clear()
        if self._library is not None:
            self._library.refresh()

    def begin_page(self, page: str | None, page_url: str | None = None, line_offset: int = 0) -> None:
        self.page, self.page_url, self.line_offset = page, page_url, line_offset

    # -- lookups -------------------------------------------------------------
    def records(self, name: str) -> dict[str, ProofData]:
        if name not in self._cache:
            if self.autorun and name not in self._checked and name in self.library.proofs:
                self._checked.add(name)
                self.library.run([name])
            self._cache[name] = self.library.lookup(name)
        return self._cache[name]

    def base_url(self) -> str:
        if not self.page_url:
            return ""
        depth = self.page_url.rstrip("/").count("/") + (1 if self.page_url.endswith("/") else 0)
        return "../" * depth

    def card_href(self, name: str) -> str:
        """Where a proof's card is: this page, another page, or (no card) its script."""
        if self.card_urls is None:
            return f"#proof-{name}"
        target = self.card_urls.get(name)
        if target is None:
            return f"{self.base_url()}proofs/{name}.py"
        if target == self.page_url:
            return f"#proof-{name}"
        return f"{self.base_url()}{target}#proof-{name}"

    def context(self) -> Context:
        return Context(root=self.root, page=self.page, base_url=self.base_url(),
                       lookup=self.records, extra={"card_href": self.card_href})

    # -- errors --------------------------------------------------------------
    def where(self, line: int | None) -> str:
        page = f"docs/{self.page}" if self.page else "<markdown>"
        return f"{page}:{line + self.line_offset}" if line else page

    def defer(self, html: str) -> str:
        """Under the plugin, bulky SVG and source leave the page until it is written."""
        if self.deferred is None:
            return html
        return defer(html, stash=self.deferred)[0]

    def fail(self, exc: Exception, line: int | None) -> str:
        message = f"{self.where(line)}: {exc}"
        if self.raise_errors:
            raise DirectiveError(message) from exc
        self.diagnostics.append(Diagnostic("error", message, page=self.page))
        return f'<div class="ldr-error" role="alert">{escape(message)}</div>'

    def find_line(self, needle: str, fence: str | None = None) -> int | None:
        for number, line in enumerate(self.lines, 1):
            if fence is not None:
                stripped = line.lstrip()
                if stripped[:3] in ("```", "~~~") and stripped.lstrip("`~").strip().startswith(fence):
                    following = "\n".join(self.lines[number: number + 3])
                    if not needle.strip() or needle.strip().splitlines()[0].strip() in following:
                        return number
            elif needle in line:
                return number
        return None

    # -- rendering -----------------------------------------------------------
    def render_fence(self, fence: str, options: dict) -> str:
        if fence == "proof":
            name = options.get("arg") or options.get("name")
            if not name:
                raise DirectiveError("a proof card needs the proof's name as the fence body")
            records = self.records(str(name))
            proof = self.library.proofs[str(name)]
            self.report_card(proof.name, proof.accelerator, records)
            href = self.context().site_path(f"proofs/{proof.path.name}")
            code = self.highlights.get_or_make(key_of(proof.sha256, pygments.__version__),
                                               lambda: highlight_source(proof.source))
            return render_card(proof, records, href, code)
        if fence == "proof-output":
            name = options.get("proof") or options.get("arg")
            if not name:
                raise DirectiveError("proof-output needs `proof: <name>` and `grep:`, `from:` or `lines:`")
            return render_excerpt(self.pick(str(name), options.get("device")), options,
                                  self.card_href(str(name)))
        module, _, func = HANDLERS[fence].partition(":")
        try:
            handler = getattr(importlib.import_module(module), func)
        except (ImportError, AttributeError) as exc:
            raise DirectiveError(f"the {fence!r} directive is not available ({exc})") from exc
        return handler(options, self.context())

    def pick(self, name: str, device: str | None) -> ProofData:
        records = self.records(name)
        if device:
            if device not in records:
                raise DirectiveError(f"proof {name} has no {device} record; recorded: {', '.join(records)}")
            return records[device]
        return self.context().proof(name)

    def report_card(self, name: str, accelerator: str, records: dict[str, ProofData]) -> None:
        for item in records.values():
            p = item.provenance
            failure = p.get("failure")
            if p["status"] != "ok" or failure:
                what = failure or {"status": p["status"], "torch": p["torch"],
                                   "measured_at": p["measured_at"], "message": status_phrase(p),
                                   "stderr_tail": (item.stderr or item.stdout).splitlines()[-6:]}
                tail_lines = "\n    ".join(what.get("stderr_tail") or []) or "(no output)"
                self.diagnostics.append(Diagnostic(
                    "warning",
                    f"{self.where(None)}: proof {name} ({p['device_class']}) failed under torch "
                    f"{what['torch']} on {what['measured_at']}: it {what['message']}; last lines:\n    "
                    f"{tail_lines}", page=self.page, proof=name))
        if accelerator != "none" and not {"cuda", "mps"} & set(records):
            level = "info" if "cpu" in records else "warning"
            self.diagnostics.append(Diagnostic(
                level, f"{self.where(None)}: proof {name} is not yet measured on an accelerator"
                + ("; the page shows its CPU result" if level == "info" else ""),
                page=self.page, proof=name))

    def value(self, match: re.Match) -> tuple[str, str, ProofData]:
        name, device, key, fmt = match.group("proof", "device", "key", "fmt")
        item = self.pick(name, device)
        try:
            raw = lookup(item.data, key)
        except KeyError as exc:
            known = ", ".join(key_paths(item.data)) or "(none: the proof printed no NAME=<json> lines)"
            raise DirectiveError(
                f"proof {name} has no data key {key!r} (no {exc.args[0]!r}); known keys: {known}"
            ) from None
        return format_value(raw, fmt or ""), f"{key} = {raw!r}", item


def parse_options(source: str, fence: str) -> dict:
    try:
        body = yaml.load(source, Loader=YAML_LOADER) if source.strip() else None
    except yaml.YAMLError as exc:
        raise DirectiveError(f"the {fence} fence body is not valid YAML: {exc}") from exc
    if body is None:
        return {}
    if isinstance(body, dict):
        return body
    if isinstance(body, list):  # e.g. the corrections fence's `- torch: ...` entries
        return {"list": body}
    if isinstance(body, (str, int, float)):
        return {"arg": str(body).strip()}
    raise DirectiveError(f"the {fence} fence body must be a name or a mapping of options")


def fence_validator(language, inputs, options, attrs, md) -> bool:
    return True


def fence_format(source, language, class_name, options, md, **kwargs) -> str:
    state: LdrState | None = getattr(md, "ldr_state", None)
    if state is None:
        from pymdownx.superfences import SuperFencesException

        raise SuperFencesException(
            f"the {language!r} fence needs the ldr Markdown extension; add `- ldr` (or "
            "`build_hooks.markdown`) to markdown_extensions")
    try:
        return state.defer(state.render_fence(language, parse_options(source, language)))
    except LdrError as exc:
        try:
            return state.fail(exc, state.find_line(source, fence=language))
        except DirectiveError as error:
            from pymdownx.superfences import SuperFencesException

            raise SuperFencesException(str(error)) from error


def custom_fences() -> list[dict]:
    return [{"name": name, "class": f"ldr-{name}", "format": fence_format,
             "validator": fence_validator} for name in FENCES]


class _SourceLines(Preprocessor):
    def __init__(self, md, state: LdrState):
        super().__init__(md)
        self.state = state

    def run(self, lines):
        self.state.lines = list(lines)
        return lines


class _ValuePattern(InlineProcessor):
    def __init__(self, state: LdrState, md):
        super().__init__(VALUE.pattern, md)
        self.state = state

    def handleMatch(self, m, data):
        state = self.state
        try:
            text, detail, item = state.value(m)
        except LdrError as exc:
            html = state.fail(exc, state.find_line(m.group(0)))
            return self.md.htmlStash.store(html), m.start(0), m.end(0)
        p = item.provenance
        el = etree.Element("a", {
            "class": "ldr-value", "href": state.card_href(item.name),
            "data-proof": item.name, "data-key": m.group("key"),
            "data-format": (m.group("fmt") or "").strip(),
            "title": f"{item.name}: {detail} (torch {p['torch']}, {p['device']}, {p['measured_at']})",
        })
        el.text = text
        return el, m.start(0), m.end(0)


class LdrExtension(Extension):
    def __init__(self, **kwargs):
        self.config = {
            "root": [".", "the project root (holds proofs/, drawings/, pyproject.toml)"],
            "raise_errors": [True, "raise on bad directives (the MkDocs plugin collects them)"],
        }
        self.state: LdrState | None = kwargs.pop("state", None)
        super().__init__(**kwargs)

    def extendMarkdown(self, md):
        if self.state is None:
            self.state = LdrState(Path(self.getConfig("root")), raise_errors=self.getConfig("raise_errors"))
        md.ldr_state = self.state
        md.preprocessors.register(_SourceLines(md, self.state), "ldr_source_lines", 40)
        md.inlinePatterns.register(_ValuePattern(self.state, md), "ldr_value", 175)


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's entry point name
    return LdrExtension(**kwargs)
