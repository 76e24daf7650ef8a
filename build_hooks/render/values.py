"""Formatting one value quoted in prose: a Python format spec or a named, readable form.

* a Python format spec: ``.2f``, ``,d``, ``.1%``, ``,.0f``
* ``words`` / ``words:N``: 1900000 -> "1.9 million"
* ``bytes`` / ``bytes:N``: decimal units, 206500000 -> "206.5 MB"
* ``ibytes`` / ``ibytes:N``: binary units, 32768 -> "32.0 KiB"

Numbers follow the site's one rule (build_hooks/render/numbers.py): thousands are grouped
with commas, so ``d``, ``.0f`` and ``.1%`` group as ``,d``, ``,.0f`` and ``,.1%`` do.
"""

from __future__ import annotations

import math
import re

from build_hooks.core.errors import DirectiveError
from build_hooks.render.numbers import count, group

# [[fill]align][sign][z][#][0][width][grouping][.precision][type]: where a grouping option goes
SPEC = re.compile(r"^(?P<head>(?:.?[<>=^])?[+\- ]?z?#?0?\d*)(?P<group>[,_]?)(?P<tail>(?:\.\d+)?[dfF%]?)$")

WORDS = [(1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand")]
DECIMAL = ["bytes", "kB", "MB", "GB", "TB"]
BINARY = ["bytes", "KiB", "MiB", "GiB", "TiB"]


def _digits(fmt: str, default: int) -> int:
    _, _, tail = fmt.partition(":")
    if not tail:
        return default
    if not tail.isdigit():
        raise DirectiveError(f"format {fmt!r}: the part after ':' must be a number of decimals")
    return int(tail)


def _number(value, fmt: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DirectiveError(f"format {fmt!r} needs a number, but the value is {value!r}")
    if not math.isfinite(value):
        raise DirectiveError(f"format {fmt!r}: the value is {value!r}")
    return float(value)


def _scaled(value: float, base: float, units: list[str], digits: int) -> str:
    size, unit = value, units[0]
    for candidate in units[1:]:
        if abs(size) < base:
            break
        size /= base
        unit = candidate
    if unit == units[0]:
        if float(value).is_integer():
            return count(int(value), "byte") if unit == "bytes" else f"{int(value):,} {unit}"
        return f"{value:,.{digits}f} {unit}"
    return f"{size:,.{digits}f} {unit}"


def format_value(value, fmt: str = "") -> str:
    """The value as text (plain text: the caller escapes it and never reads it as Markdown)."""
    fmt = fmt.strip()
    if isinstance(value, float) and not math.isfinite(value):
        raise DirectiveError(f"the value is {value!r}; data must be finite numbers (a record written "
                             "before NaN was refused: run the proof again with `ldr run NAME --force`)")
    name = fmt.partition(":")[0]
    if name == "words":
        number = _number(value, fmt)
        digits = _digits(fmt, 1)
        for scale, word in WORDS:
            if abs(number) >= scale:
                return f"{number / scale:,.{digits}f} {word}"
        return f"{number:,.0f}" if number.is_integer() else f"{number:,.{digits}f}"
    if name == "bytes":
        return _scaled(_number(value, fmt), 1000.0, DECIMAL, _digits(fmt, 1))
    if name == "ibytes":
        return _scaled(_number(value, fmt), 1024.0, BINARY, _digits(fmt, 1))
    if not fmt:
        if isinstance(value, (dict, list)):
            raise DirectiveError(f"the value is a {type(value).__name__}, not a single value; "
                                 "quote one of its items with a longer key")
        if isinstance(value, bool):
            return "true" if value else "false"
        return group(value) if isinstance(value, (int, float)) else str(value)
    fmt = grouped_spec(fmt)
    try:
        if isinstance(value, int) and not isinstance(value, bool) and fmt[-1:] in "eEfFgG%":
            value = float(value)
        return format(value, fmt)
    except (ValueError, TypeError) as exc:
        raise DirectiveError(
            f"format {fmt!r} does not apply to {value!r} ({exc}); use a Python format spec "
            "like .2f or ,d, or words, bytes, ibytes"
        ) from exc


def grouped_spec(fmt: str) -> str:
    """A decimal, fixed-point or percent spec without a grouping option gets ``,`` added."""
    match = SPEC.match(fmt)
    if not match or match["group"] or not match["tail"] or match["tail"][-1:] not in "dfF%":
        return fmt
    if re.search(r"(?:^|\D)0\d*$", match["head"]):  # zero-padded ("05d"): the author wants digits
        return fmt
    return match["head"] + "," + match["tail"]
