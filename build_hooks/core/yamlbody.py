"""The YAML an author types: a fence's body, a ``data/`` file.

Read with the safe loader (libyaml's when present), and bounded before anything is built: an
alias (``*name``, which YAML expands in place) is refused, so ten lines of anchors cannot make
a value of a billion items that a message or a check then walks for ever, and so is nesting
deeper than :data:`MAX_DEPTH`, which would overflow the stack of whatever walks the value.
Both raise :class:`yaml.YAMLError`, which every caller already reports as bad YAML.
"""

from __future__ import annotations

import copy
from functools import lru_cache

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_DEPTH = 64


class RefusedYaml(yaml.YAMLError):
    """YAML that parses but that the build will not build (an alias, deep nesting)."""


def _where(event) -> str:
    mark = getattr(event, "start_mark", None)
    return f"line {mark.line + 1}: " if mark is not None else ""


def load(text: str):
    """``text`` parsed as YAML; raises yaml.YAMLError (RefusedYaml for an alias or deep nesting).

    A build reads the same fence bodies many times (the page's render, the proofs index, the
    claims on quotes, corrections): each distinct text is parsed once per process and every
    caller gets its own copy, which it may change."""
    found = _parsed(text)
    return copy.deepcopy(found) if isinstance(found, (dict, list)) else found


@lru_cache(maxsize=4096)
def _parsed(text: str):
    depth = 0
    for event in yaml.parse(text, Loader=LOADER):
        if isinstance(event, yaml.AliasEvent):
            raise RefusedYaml(f"{_where(event)}an alias (*{event.anchor}) repeats a value marked "
                              f"&{event.anchor}; write the value out: aliases are not read here")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise RefusedYaml(f"{_where(event)}nested more than {MAX_DEPTH} deep; flatten it")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return yaml.load(text, Loader=LOADER)


__all__ = ["LOADER", "MAX_DEPTH", "RefusedYaml", "load"]
