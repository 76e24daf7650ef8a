"""A claim's values as readers see them: ints exactly and grouped; floats with just the digits
that tell them apart from the other numbers the claim shows (the site's one number rule,
render/numbers.py)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext


def scalars(values) -> list[float | int]:
    """The numbers among ``values`` (list items included), the others a value is told apart from."""
    found: list[float | int] = []
    for value in values:
        if isinstance(value, list):
            found.extend(scalars(value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            found.append(value)
    return found


def _rounded(value: float | int, digits: int) -> Decimal:
    with localcontext() as context:
        context.prec, context.rounding = digits, ROUND_HALF_UP
        return (+Decimal(repr(value) if isinstance(value, float) else value)).normalize()


def _float_text(value: float, among: list[float | int]) -> str:
    """The fewest significant digits (3 to 17, and every digit left of the point) that tell
    ``value`` apart from every other number in ``among``; grouped and without an exponent from
    1e-4 up to 1e16, as the site's numbers (render/numbers.py's ``sig``)."""
    if not math.isfinite(value):
        return repr(value)
    others = [other for other in among if other != value and math.isfinite(other)]
    whole = math.floor(math.log10(abs(value))) + 1 if abs(value) >= 1 else 0  # never dropped
    for digits in range(min(max(3, whole), 17), 18):
        shown = _rounded(value, digits)
        if shown == Decimal(repr(value)) or all(shown != _rounded(other, digits) for other in others):
            break
    else:
        shown = Decimal(repr(value))
    if value == 0 or 1e-4 <= abs(value) < 1e16:
        return f"{shown:,f}"
    return format(float(shown), f".{len(shown.as_tuple().digits)}g")


def show_value(value, limit: int = 120, among=()) -> str:
    """A value the way a claim's reader sees it: an int exactly, its thousands grouped (the site's
    rule, render/numbers.py's ``group``); a float with just the digits that tell it apart from the
    other numbers the claim shows (``among``): ``1.0000000000000002`` beside ``1``, not ``1``."""
    if isinstance(value, float):
        text = _float_text(value, scalars(among))
    elif isinstance(value, int) and not isinstance(value, bool):
        text = f"{value:,}"
    elif isinstance(value, list):
        shown = [show_value(item, 40, among) for item in value[:8]]
        text = "[" + ", ".join(shown) + (f", … ({len(value)} items)" if len(value) > 8 else "") + "]"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
