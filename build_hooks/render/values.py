"""Formatting one value quoted in prose: a Python format spec or a named, readable form.

* a Python format spec: ``.2f``, ``,d``, ``.1%``, ``,.0f``
* ``words`` / ``words:N``: 1900000 -> "1.9 million"
* ``bytes`` / ``bytes:N``: decimal units, 206500000 -> "206.5 MB"
* ``ibytes`` / ``ibytes:N``: binary units, 32768 -> "32.0 KiB"
"""

from __future__ import annotations

import math

from build_hooks.core.errors import DirectiveError

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
        return f"{int(value):,} {unit}" if float(value).is_integer() else f"{value:,.{digits}f} {unit}"
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
        return f"{value:,}" if isinstance(value, int) else str(value)
    try:
        if isinstance(value, int) and not isinstance(value, bool) and fmt[-1:] in "eEfFgG%":
            value = float(value)
        return format(value, fmt)
    except (ValueError, TypeError) as exc:
        raise DirectiveError(
            f"format {fmt!r} does not apply to {value!r} ({exc}); use a Python format spec "
            "like .2f or ,d, or words, bytes, ibytes"
        ) from exc
