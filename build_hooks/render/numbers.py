"""The one rule for numbers shown on the site (prose values, instruments, drift, corrections).

* Thousands are always grouped with commas, from 1,000 up: ``1,780 µs`` next to ``10,000``,
  never ``1780``.
* A measurement (a time, a rate, a share) shows three significant digits and no exponent:
  ``1.21``, ``30.3``, ``1,780``, ``824,943``. Digits left of the point are never dropped.
* A count shows every digit, with its noun in the singular for exactly one: ``1 element``,
  ``2 elements``, ``1,024 elements``.
* A size in bytes uses decimal units with one decimal (``18.7 kB``, ``541.6 MB``); under
  1 kB it is a count of bytes (``512 bytes``, ``1 byte``).
* An exact recorded value quoted without a format keeps all its digits, grouped: ``1,779.53``.
* A value that changed between two torch versions (the drift report, a chapter's corrections):
  an int keeps every digit, grouped (``434,184,800``); a float shows three significant digits,
  more only where they are needed to tell it from the value it changed from or to (``175`` ->
  ``503``, ``175.29`` -> ``175.3``), never the raw float (``175.29407999999998``); see
  build_hooks/upgrade/shown.py.

theme/assets/js/ldr-common.js (``ldr.fmt``, ``ldr.count``, ``ldr.group``) implements the
same rule for the live readouts, so a static label and a readout never disagree.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext

DECIMAL_TEXT = re.compile(r"^(-?)(\d+)((?:\.\d+)?)$")
UNITS = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]


def group(value) -> str:
    """An exact number with its thousands grouped (``1779.53`` -> ``1,779.53``); a number
    recorded as text keeps its digits and its form (``"100001.0"`` -> ``"100,001.0"``)."""
    if isinstance(value, str):
        match = DECIMAL_TEXT.match(value)
        return f"{match[1]}{int(match[2]):,}{match[3]}" if match else value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    text = f"{value:,}"
    if "e" in text and isinstance(value, float) and 1e-4 <= abs(value) < 1e16:
        text = f"{value:,f}".rstrip("0").rstrip(".")
    return text


def sig(value: float, digits: int = 3) -> str:
    """A measurement with ``digits`` significant digits, grouped, without an exponent."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    text = fixed(value, decimals)
    # rounding can carry into a new digit (9.996 -> "10.00"): keep the significant count
    if decimals and len(text.replace(",", "").replace(".", "").lstrip("-0")) > digits:
        text = fixed(value, decimals - 1)
    return text


def fixed(value: float, decimals: int) -> str:
    """``decimals`` places, grouped, rounding the shortest decimal form half away from zero,
    as the browser's ``toLocaleString`` does (``1234.5`` -> ``1,235``; ``1.005`` -> ``1.01``)."""
    shortest = Decimal(repr(float(value)))
    with localcontext() as context:  # every digit of any finite float (1e308, 5e-324) fits
        context.prec = max(28, shortest.adjusted() + decimals + 3)
        exact = shortest.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{exact:,.{decimals}f}"


def plural(n: float, one: str, many: str | None = None) -> str:
    """The noun for ``n`` things: ``one`` for exactly 1, else ``many`` (default ``one + "s"``)."""
    return one if n == 1 else (many or one + "s")


def count(n: float, one: str, many: str | None = None) -> str:
    """``1 element``, ``2 elements``, ``1,024 elements``."""
    return f"{group(n)} {plural(n, one, many)}"


def size(nbytes: float) -> str:
    """Bytes in decimal units, one decimal: ``18.7 kB``, ``541.6 MB``; ``512 bytes`` below 1 kB."""
    for div, unit in UNITS:
        if abs(nbytes) >= div:
            return f"{fixed(nbytes / div, 1)} {unit}"
    return count(int(nbytes), "byte")
