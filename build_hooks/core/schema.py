"""Type checks for result records: every field of a record read from disk has its kind.

Kept apart from the store so that the store stays about files; messages name the field and
what it must be (``field wall_s must be a number, not 'slow'``).
"""

from __future__ import annotations

import math
from dataclasses import fields


def refuse_constant(name: str):
    raise ValueError(f"non-finite number {name} (standard JSON has none)")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# kind -> (check, what it must be); a field not named in _FIELD_KINDS is a string, and
# failure (an object or null) is checked by the store, field by field.
_KINDS = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "int|None": (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)), "an integer or null"),
    "float": (_is_number, "a number"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "list[str]": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
    "dict": (lambda v: isinstance(v, dict), "an object"),
    "dict[str,str]": (lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
                      "an object of strings"),
}
_FIELD_KINDS = {"returncode": "int|None", "signal": "int|None", "wall_s": "float", "format": "int",
                "stdout": "list[str]", "stderr": "list[str]", "stderr_tail": "list[str]",
                "problems": "list[str]", "data": "dict", "helpers": "dict[str,str]"}


def show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_fields(body: dict, cls, prefix: str) -> None:
    for f in fields(cls):
        if f.name not in body or f.name == "failure":
            continue
        check, what = _KINDS[_FIELD_KINDS.get(f.name, "str")]
        if not check(body[f.name]):
            raise ValueError(f"field {prefix}{f.name} must be {what}, not {show(body[f.name])}")


def non_finite(node, path: str = "") -> str | None:
    """The key path of the first NaN or infinity in ``node`` (None: there is none)."""
    if isinstance(node, float) and not math.isfinite(node):
        return path or "the value"
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        found = non_finite(value, f"{path}.{key}" if path else str(key))
        if found:
            return found
    return None
