"""Formatting one value quoted in prose: a Python format spec or a named, readable form.

* a Python format spec: ``.2f``, ``,d``, ``.1%``, ``,.0f``
* ``words`` / ``words:N``: 1900000 -> "1.9 million"
* ``bytes`` / ``bytes:N``: decimal units, 206500000 -> "206.5 MB"
* ``ibytes`` / ``ibytes:N``: binary units, 32768 -> "32.0 KiB"

A width or a precision (decimals) above :data:`MAX_FIGURES` is refused, and so is a value
whose text would be longer than :data:`MAX_QUOTED` characters: a value in prose is a few
characters, and ``{{ p.KEY:50000000.2f }}`` must not make an 80 MB page.

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
# The same mini-language, for its width and precision (any type letter)
SIZES = re.compile(r"^(?:.?[<>=^])?[+\- ]?z?#?0?(?P<width>[0-9]*)[,_]?(?:\.(?P<precision>[0-9]+))?[a-zA-Z%]?$",
                   re.DOTALL)
MAX_FIGURES = 50      # the widest width or precision a format may ask for
MAX_QUOTED = 10_000   # characters of one value's text in prose

WORDS = [(1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand")]
DECIMAL = ["bytes", "kB", "MB", "GB", "TB"]
BINARY = ["bytes", "KiB", "MiB", "GiB", "TiB"]


def _digits(fmt: str, default: int) -> int:
    _, _, tail = fmt.partition(":")
    if not tail:
        return default
    if not (tail.isascii() and tail.isdigit()):
        raise DirectiveError(f"format {fmt!r}: the part after ':' must be a number of decimals")
    if len(tail) > 3 or int(tail) > MAX_FIGURES:
        raise DirectiveError(f"format {fmt!r} asks for {tail} decimals, over the bound of "
                             f"{MAX_FIGURES}; fix: ask for fewer (e.g. {fmt.partition(':')[0]}:2)")
    return int(tail)


def _number(value, fmt: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DirectiveError(f"format {fmt!r} needs a number, but the value is {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an integer past a float's range
        number = math.inf
    if not math.isfinite(number):
        raise DirectiveError(f"format {fmt!r}: the value is {value if isinstance(value, float) else 'too large'!r}")
    return number


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
    """The value as text (plain text: the caller escapes it and never reads it as Markdown);
    raises DirectiveError for a format it cannot apply or one that asks for too much."""
    text = _formatted(value, fmt)
    if len(text) > MAX_QUOTED:
        raise DirectiveError(f"the value is {len(text):,} characters long as text, over the bound of "
                             f"{MAX_QUOTED:,} for a value quoted in prose; fix: quote a shorter key "
                             "(an item of it), or show it with a proof-output excerpt")
    return text


def check_sizes(fmt: str) -> None:
    """Refuse a Python format spec whose width or precision is above MAX_FIGURES."""
    match = SIZES.match(fmt)
    if match is None:
        return  # format() itself says what is wrong with it
    for part in ("width", "precision"):
        digits = match[part]
        if digits and (len(digits) > 3 or int(digits) > MAX_FIGURES):
            raise DirectiveError(f"format {fmt!r} asks for a {part} of {digits}, over the bound of "
                                 f"{MAX_FIGURES}; fix: use a smaller {part} (such as .2f or 8,d)")


def _formatted(value, fmt: str) -> str:
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
    check_sizes(fmt)
    fmt = grouped_spec(fmt)
    try:
        if isinstance(value, int) and not isinstance(value, bool) and fmt[-1:] in "eEfFgG%":
            value = float(value)
        return format(value, fmt)
    except (ValueError, TypeError, OverflowError) as exc:
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
