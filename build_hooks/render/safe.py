"""Proof output is data: how its text is made safe to show, the same way everywhere.

A proof may print anything: markup, a ``javascript:`` URL, terminal colour codes, a NUL. Pages
show all of it as plain text. Every renderer HTML-escapes what it prints; in addition, control
characters are replaced by visible stand-ins before any renderer sees a record:

* C0 controls other than tab and newline (NUL, ESC, CR, ...) -> their Unicode control pictures
  (U+2400 to U+241F: ``␀``, ``␛``, ``␍``), DEL -> ``␡``;
* C1 controls (U+0080 to U+009F), which have no pictures -> ``\\x80`` ... ``\\x9f`` as text;
* the bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which
  would reorder what a reader sees of the rest of the line (``1.5 µs`` read backwards) ->
  ``\\u202e`` as text, as core/textsafe.py prints them in a terminal.

So an ESC never reaches a page (nor the JSON an instrument embeds), and a terminal colour code
reads ``␛[31m``. Tab and newline are layout, kept as they are.
"""

from __future__ import annotations

import re
from dataclasses import replace
from html import escape

from build_hooks.proofs.records import ProofData

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))


def _stand_in(match: re.Match) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"\\x{code:02x}" if code <= 0x9F else f"\\u{code:04x}"


_CONTROLS = tuple(map(chr, [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), *_BIDI]))


def visible(text: str) -> str:
    """``text`` with every control character but tab and newline made visible."""
    if len(text) < 512:
        return CONTROL.sub(_stand_in, text) if CONTROL.search(text) else text
    # A page-sized text: 62 substring scans are ~15 times faster than the character class.
    return CONTROL.sub(_stand_in, text) if any(c in text for c in _CONTROLS) else text


def element_text(text: str) -> str:
    """Text as the content of an element: ``&``, ``<`` and ``>`` escaped. Quotes stay as they are:
    only an attribute needs them escaped, and ``&#x27;`` costs six bytes a quote."""
    return escape(text, quote=False)


def text_html(text: str) -> str:
    """Plain text as HTML: control characters made visible, then escaped (quotes too)."""
    return escape(visible(str(text)), quote=True)


def visible_data(node):
    """Every string in a JSON-like value (mapping keys too) passed through :func:`visible`."""
    if isinstance(node, str):
        return visible(node)
    if isinstance(node, dict):
        return {visible(str(k)) if isinstance(k, str) else k: visible_data(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return [visible_data(v) for v in node]
    return node


def visible_record(item: ProofData) -> ProofData:
    """A record as pages may show it: its output, data and provenance with visible controls."""
    return replace(item, data=visible_data(item.data), provenance=item.provenance.texts(visible),
                   stdout=visible(item.stdout), stderr=visible(item.stderr))
