"""The ldr fences as superfences sees them: which fences a site has (the directives' registry,
directives/registry.py), where they sit on a page, their YAML bodies, and the formatter
superfences calls for each (it hands the work to the page's LdrState, state.py). Pure functions
and small caches; no Markdown or MkDocs state."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from build_hooks.core import yamlbody
from build_hooks.core.cache import TextCache, key_of
from build_hooks.core.errors import DirectiveError
from build_hooks.directives.registry import Registry, registry
from build_hooks.pages.locate import VALUE, Spot, locate
from build_hooks.render.safe import visible
from build_hooks.site.defer import split

if TYPE_CHECKING:
    from build_hooks.hosts.markdown.state import LdrState

ID = re.compile(r'id="([^"]+)"')  # preceded by whitespace: see ids()


_LOCATED: dict[tuple[str, str], tuple] = {}  # (page text, fences) -> its spots: on_files and the render share one
_LOCATE_DISK: list[TextCache] = []  # .cache/ldr/locate of the project being built (set by LdrState)


def located(text: str, fences: Registry) -> tuple:
    """``locate(text, fences, VALUE)``, parsed once per distinct text and set of fences: in this
    process, and across processes through the project's cache, keyed by both and locate.py itself."""
    spots = _LOCATED.get((text, fences.key))
    if spots is None:
        if len(_LOCATED) >= 512:
            _LOCATED.clear()
        spots = _LOCATED[(text, fences.key)] = _located_on_disk(text, fences) if text else ()
    return spots


def _located_on_disk(text: str, fences: Registry) -> tuple:
    from build_hooks.pages import locate as module

    disk = _LOCATE_DISK[-1] if _LOCATE_DISK else None
    parser = importlib.util.find_spec("markdown_it")  # its __init__ names its version
    key = key_of(text, fences.key, VALUE.pattern, _source_hash(module.__file__),
                 _source_hash(parser.origin if parser and parser.origin else module.__file__))
    hit = disk.get(key) if disk else None
    if hit is not None:
        try:
            found = json.loads(hit)
        except ValueError:
            found = None
        if isinstance(found, list) and all(
                isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and type(item[1]) is int and isinstance(item[2], str) for item in found):
            return tuple(Spot(kind, line, body) for kind, line, body in found)
        # anything else is foreign: locate again and rewrite it
    spots = tuple(locate(text, fences.fences, VALUE))
    if disk is not None:
        disk.put(key, json.dumps([[s.kind, s.line, s.text] for s in spots]))
    return spots


@functools.lru_cache(maxsize=4)
def _source_hash(path: str) -> str:
    return key_of(Path(path).read_bytes())


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
        options = parse_options(source, language)
        subject = options.get("arg") or options.get("name") or options.get("proof")
        if isinstance(subject, str):
            what = f"the {language} fence for {subject}"
        html = visible(state.render_fence(language, options, line))
        state.claim_ids(tuple(dict.fromkeys(ids(html))), language, line)
        return state.defer(tuple(split(html)))
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
