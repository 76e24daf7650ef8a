"""Text from data, made safe to print on a terminal or into a log.

A proof may print anything, and a record, a scene or a file name may hold anything: an ESC
that starts a terminal sequence (``\\x1b[2J`` clears the screen, ``\\x1b]0;...\\x07`` retitles
the window), a C1 control that some terminals read as one (``\\u009b`` is CSI), a carriage
return that overwrites the line it is on, a bidirectional override that reorders what the
reader sees. :func:`printable` writes each of them as an escape that reads as text:

* C0 controls other than newline and tab (NUL, ESC, CR, BEL, ...) -> ``\\x00`` ... ``\\x1f``;
* DEL and the C1 controls (U+007F to U+009F) -> ``\\u007f`` ... ``\\u009f``;
* the bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) -> ``\\u202e``...

Newline and tab are layout and stay. Everything else, pictures of controls (``␛``) included,
prints as it is. The escapes are valid JSON escapes for the characters JSON leaves raw, so a
JSON document printed through :func:`printable` still reads back as the same data.

Pages use their own form (``render/safe.py``: control pictures); this module is for what a
person reads in a terminal or a log: ``ldr``'s output, the MkDocs plugin's messages.
"""

from __future__ import annotations

import re

UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``text`` (made a string) with every control character but newline and tab escaped."""
    text = text if isinstance(text, str) else str(text)
    return UNSAFE.sub(_escape, text) if UNSAFE.search(text) else text


class SafeStream:
    """A text stream that passes everything written to it through :func:`printable`: the
    guard ``ldr`` puts on its standard output and error, so that no message, from any
    module, writes a raw control character. ``raw`` is the stream underneath (rich writes
    its own colour codes there, after escaping what it prints: hosts/cli/console.py)."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(printable(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):  # flush, fileno, isatty, encoding, buffer...
        return getattr(self.raw, name)


def raw_stream(stream):
    """The stream under a :class:`SafeStream` (or ``stream`` itself)."""
    return stream.raw if isinstance(stream, SafeStream) else stream
