import pytest

from build_hooks.core.errors import DirectiveError
from build_hooks.render.values import format_value


@pytest.mark.parametrize("value, fmt, expected", [
    (0.54123, ".2f", "0.54"),
    (1912345.6, "words", "1.9 million"),
    (1912345.6, "words:2", "1.91 million"),
    (3677, ",d", "3,677"),
    (3677, "", "3,677"),
    (0.9812, ".1%", "98.1%"),
    (206_500_000, "bytes", "206.5 MB"),
    (32768, "ibytes:1", "32.0 KiB"),
    (512, "bytes", "512 bytes"),
    (2_500_000_000, "words:1", "2.5 billion"),
    (750, "words", "750"),
    (True, "", "true"),
    ("SumBackward0", "", "SumBackward0"),
    (7, ".1f", "7.0"),
])
def test_formats(value, fmt, expected):
    assert format_value(value, fmt) == expected


@pytest.mark.parametrize("value, fmt, fragment", [
    ("abc", "words", "needs a number"),
    ("abc", ".2f", "does not apply"),
    ([1, 2], "", "not a single value"),
    (1.0, "bytes:x", "number of decimals"),
    (float("nan"), "words", "nan"),
    (float("nan"), "", "finite"),
    (float("-inf"), ".2f", "finite"),
])
def test_bad_formats_say_why(value, fmt, fragment):
    with pytest.raises(DirectiveError, match=fragment):
        format_value(value, fmt)
