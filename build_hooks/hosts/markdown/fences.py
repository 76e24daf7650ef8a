"""The ldr fences as superfences sees them: which fences a site has (the directives' registry,
directives/registry.py), where they sit on a page, their YAML bodies, and the formatter
superfences calls for each (it hands the work to the page's LdrState, state.py). Pure functions
and small caches; no Markdown or MkDocs state."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import yaml

from build_hooks.core import yamlbody
from build_hooks.core.errors import DirectiveError
from build_hooks.directives.registry import Registry, registry
from build_hooks.pages.locate import VALUE, locate
from build_hooks.render.safe import visible
from build_hooks.site.defer import split

if TYPE_CHECKING:
    from build_hooks.hosts.markdown.state import LdrState

ID = re.compile(r'id="([^"]+)"')  # preceded by whitespace: see ids()


def located(text: str, fences: Registry) -> tuple:
    """``locate(text, fences, VALUE)``: the page's directives and inline values (pages/locate.py
    parses each distinct page text once per process)."""
    return tuple(locate(text, fences.fences, VALUE)) if text else ()


def ids(html: str) -> list[str]:
    """Every ``id="..."`` attribute (after whitespace); a literal-prefix scan, ten times
    faster than ``\\sid=`` over a page of inline SVG."""
    return [m.group(1) for m in ID.finditer(html) if m.start() and html[m.start() - 1].isspace()]


def card_names(text: str, fences: Registry) -> list[str]:
    """The proofs whose cards a page's Markdown shows (fences in code blocks do not count)."""
    names = []
    for spot in (s for s in located(text, fences) if s.kind == "proof"):
        try:
            options = parse_options(spot.text, "proof")
        except DirectiveError:
            continue  # the page's build reports it
        name = options.get("arg") or options.get("name")
        if name:
            names.append(str(name))
    return names


def parse_options(source: str, fence: str) -> dict:
    """A fence's body as its options (yamlbody parses each distinct body once, and hands every
    caller its own copy: handlers may change theirs)."""
    try:
        body = yamlbody.load(source) if source.strip() else None  # no aliases, bounded depth
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
    """superfences' formatter for every ldr fence.

    superfences turns any exception but its own into a plain code block, silently, so every
    exception is caught here: under the plugin it becomes a collected error (the build fails),
    elsewhere a SuperFencesException naming the page and line.
    """
    from pymdownx.superfences import SuperFencesException

    state: LdrState | None = getattr(md, "ldr_state", None)
    if state is None:
        raise SuperFencesException(
            f"the {language!r} fence needs the ldr Markdown extension; add `- ldr` (or "
            "`build_hooks.hosts.markdown.extension`) to markdown_extensions")
    spot = state.locations.take(language, source)
    line = spot.line if spot is not None else None
    state.fence_line = line
    what = f"the {language} fence"
    try:
        key = state.memo_key(language, source)
        parts = state.recall(key, language, source, line)
        if parts is None:
            options = parse_options(source, language)
            subject = options.get("arg") or options.get("name") or options.get("proof")
            if isinstance(subject, str):
                what = f"the {language} fence for {subject}"
            before, state.told = len(state.diagnostics), []
            try:
                parts = tuple(split(visible(state.render_fence(language, options, line))))
                state.remember(key, parts, before)
            finally:
                state.told = None
        state.claim_ids(tuple(dict.fromkeys(ids("".join(parts)))), language, line)
        return state.defer(parts)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        try:
            return state.fail(exc, line, what=what)
        except DirectiveError as error:
            raise SuperFencesException(str(error)) from error


def custom_fences(widgets: Iterable[str] = ()) -> list[dict]:
    """superfences' ``custom_fences`` entries for the core directives and those of ``widgets``
    (module names, as the extension's ``widgets`` option lists them)."""
    return [{"name": name, "class": f"ldr-{name}", "format": fence_format,
             "validator": fence_validator} for name in registry(widgets).fences]
