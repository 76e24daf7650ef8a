"""Fence options: each fence kind declares the options it takes; anything else is an error.

A misspelt option (``gerp:`` for ``grep:``) must not be ignored: the fence would render
something other than what its author wrote. ``arg`` is the bare-scalar form of a fence body
(``{"arg": "toll-meter"}``) and is accepted wherever a kind names its main option.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from build_hooks.core.errors import DirectiveError


def check_options(kind: str, options: dict, allowed: Iterable[str]) -> None:
    """Raise a DirectiveError naming every unknown option and listing the valid ones."""
    valid = sorted(set(allowed) - {"arg"})
    unknown = [str(key) for key in options if key != "arg" and key not in valid]
    if not unknown:
        return
    if not valid:
        raise DirectiveError(f"{kind}: the {kind} fence takes no options ({', '.join(unknown)} given); "
                             "leave its body empty")
    hints = []
    for key in unknown:
        close = difflib.get_close_matches(key, valid, n=1)
        if close:
            hints.append(f"{close[0]} for {key}")
    listed = ", ".join(valid)
    hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
    raise DirectiveError(f"{kind}: unknown option(s) {', '.join(unknown)}{hint}; "
                         f"the {kind} fence takes: {listed}")
