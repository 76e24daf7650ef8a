"""Type checks for result records: every field read from disk is parsed into a strict type.

Kept apart from the store so that the store stays about files; messages name the field and
what it must be (``field wall_s must be a number, not 'slow'``). A field first has its JSON
kind (a string, a number...), then its strict form: ``torch`` a PEP 440 version,
``measured_at`` an ISO 8601 UTC time, ``proof`` a proof name as discovery accepts it,
``device_class`` and ``status`` one of their fixed sets, hashes 64 hex digits, lines at most
:data:`MAX_LINE` characters (a longer stdout line must be a data line, which pages never
show). Nothing read from a record ever becomes a path as text: a folder named after a torch
version is :func:`version_dir`, the parsed version's normalised public string. Dates compare
as :func:`timestamp` (datetimes), versions as :func:`torch_version`, never as strings.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import sys
from dataclasses import fields

from packaging.version import InvalidVersion, Version

from build_hooks.proofs.datalines import MAX_DEPTH, lone_surrogate, parse_output
from build_hooks.proofs.discovery import NAME

DEVICE_CLASSES = ("cpu", "cuda", "mps")
STATUSES = ("ok", "failed", "timeout", "killed", "output-limit")
MAX_LINE = 10_000  # characters in one line of output (a data line may be longer: pages hide it)
MAX_TEXT = 1_000   # characters in a short field (python, os, machine, device, torch_build)
MAX_NAME = 245     # characters in a proof name: <name>.cuda.json fits a file name (255 bytes)
SHA256 = re.compile(r"^[0-9a-f]{64}$")
DATA_KEY = re.compile(r"^[A-Z][A-Z0-9_]*$")  # as a data line names it (proofs/datalines.py)
STAMP = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?(?:Z|\+00:00)$")
VERSION_HINT = "a PEP 440 version such as 2.14.1"
STAMP_HINT = "an ISO 8601 UTC time such as 2026-12-01T09:48:41Z"


def refuse_constant(name: str):
    raise ValueError(f"non-finite number {name} (standard JSON has none)")


def torch_version(value) -> Version:
    """``value`` as a PEP 440 version (raises ValueError: ``nightly`` or ``../x`` is none)."""
    if not isinstance(value, str) or len(value) > 100 or value != value.strip():
        raise ValueError(f"not {VERSION_HINT}: {show(value)}")
    try:
        return Version(value)
    except InvalidVersion:
        raise ValueError(f"not {VERSION_HINT}: {show(value)}") from None


def version_dir(value) -> str:
    """The folder name for a torch version: the parsed version's normalised public string
    (``2.13.0+cpu`` -> ``2.13.0``); only digits, letters, ``.`` and ``!`` (raises ValueError)."""
    return torch_version(value).public


def timestamp(value) -> dt.datetime:
    """An ISO 8601 UTC time (``2026-12-01T09:48:41Z``) as an aware datetime (raises ValueError)."""
    if not isinstance(value, str) or not STAMP.fullmatch(value):
        raise ValueError(f"not {STAMP_HINT}: {show(value)}")
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"not {STAMP_HINT}: {show(value)}") from None


def _parses(parse):
    def check(value) -> bool:
        try:
            parse(value)
        except ValueError:
            return False
        return True
    return check


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_helper(name) -> bool:
    return isinstance(name, str) and name.startswith("_") and name.endswith(".py") and name[:-3].isidentifier()


def _data_ok(data: dict) -> bool:
    """NAME keys, nested at most MAX_DEPTH deep, every integer one a float can hold (so that
    ratios and formats never overflow); walked without recursion."""
    if not all(isinstance(k, str) and DATA_KEY.fullmatch(k) for k in data):
        return False
    todo = [(data, 0)]
    while todo:
        item, level = todo.pop()
        if level > MAX_DEPTH:
            return False
        if isinstance(item, dict):
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, level + 1) for v in item)
        elif _is_int(item) and abs(item) > sys.float_info.max:
            return False
    return True


# kind -> (check, what it must be). Each field has a JSON kind (the first check) and, in
# _STRICT, a strict form; failure (an object or null) is checked by the store, field by field.
_KINDS = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "int|None": (lambda v: v is None or _is_int(v), "an integer or null"),
    "float": (_is_number, "a number"),
    "int": (_is_int, "an integer"),
    "list[str]": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
    "dict": (lambda v: isinstance(v, dict), "an object"),
    "dict[str,str]": (lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
                      "an object of strings"),
}
_FIELD_KINDS = {"returncode": "int|None", "signal": "int|None", "wall_s": "float", "format": "int",
                "stdout": "list[str]", "stderr": "list[str]", "stderr_tail": "list[str]",
                "problems": "list[str]", "data": "dict", "helpers": "dict[str,str]"}
_SHORT = (lambda v: len(v) <= MAX_TEXT, f"a string of at most {MAX_TEXT:,} characters")
_CODE = (lambda v: v is None or -2**31 <= v < 2**31, "an integer of 32 bits or null")
_STRICT = {
    "proof": (lambda v: len(v) <= MAX_NAME and bool(NAME.fullmatch(v)),
              "a proof name (lowercase letters, digits and underscores, starting with a letter)"),
    "device_class": (lambda v: v in DEVICE_CLASSES, f"one of {', '.join(DEVICE_CLASSES)}"),
    "status": (lambda v: v in STATUSES, f"one of {', '.join(STATUSES)}"),
    "torch": (_parses(torch_version), VERSION_HINT),
    "torch_build": (_parses(torch_version), "a PEP 440 version such as 2.14.1+cpu"),
    "measured_at": (_parses(timestamp), STAMP_HINT),
    "script_sha256": (lambda v: bool(SHA256.fullmatch(v)), "a SHA-256 (64 lowercase hex digits)"),
    "helpers": (lambda v: all(_is_helper(k) and SHA256.fullmatch(h) for k, h in v.items()),
                "an object of helper files (_name.py) to SHA-256s (64 lowercase hex digits)"),
    "wall_s": (lambda v: 0 <= v <= 1e9, "a number of seconds from 0 to 1e9"),
    "returncode": _CODE, "signal": _CODE,
    "data": (_data_ok, f"an object of NAME keys (capitals, digits, _) nested at most {MAX_DEPTH} "
                       "deep, its numbers within a float's range"),
    "python": _SHORT, "os": _SHORT, "machine": _SHORT, "device": _SHORT,
    "message": (lambda v: len(v) <= MAX_LINE, f"a string of at most {MAX_LINE:,} characters"),
}


def show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _too_long(name: str, line: str) -> bool:
    return len(line) > MAX_LINE and not (name == "stdout" and not parse_output([line]).visible)


def long_line(name: str, lines: list[str]) -> str | None:
    """Why a list of output lines breaks the line bound (None: it does not)."""
    for number, line in enumerate(lines, 1):
        if _too_long(name, line):
            return (f"field {name} line {number} is {len(line):,} characters long, over the bound of "
                    f"{MAX_LINE:,} (only a data line NAME=<json> may be longer)")
    return None


def cut_lines(name: str, lines: list[str]) -> tuple[list[str], list[str]]:
    """``lines`` with each line over MAX_LINE characters cut to its first part and marked (a
    data line is kept whole: pages never show it), and a problem sentence for each cut."""
    out, problems = [], []
    for number, line in enumerate(lines, 1):
        if not _too_long(name, line):
            out.append(line)
            continue
        marker = f" … [{len(line):,} characters, cut to {MAX_LINE:,}]"
        out.append(line[: MAX_LINE - len(marker)] + marker)
        problems.append(f"{'output' if name == 'stdout' else name} line {number} is {len(line):,} "
                        f"characters long, over the bound of {MAX_LINE:,}: the record keeps its "
                        "start; fix: print shorter lines (a long value as a NAME=<json> data line)")
    return out, problems


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON text's escape of a surrogate code point (and, harmlessly, ``\\\\ud8..``, an escaped
backslash before the letters): where a record's text has none, no string of it holds one."""


def check_fields(body: dict, cls, prefix: str, surrogates: bool = True) -> None:
    """Each field of ``body`` (named as ``cls``'s) has its type and bounds; raises ValueError
    naming the first that does not. ``surrogates`` False skips the search for a lone surrogate
    (the caller has seen the JSON text: no ``\\uD800``-``\\uDFFF`` escape in it)."""
    for f in fields(cls):
        if f.name not in body or f.name == "failure":
            continue
        value = body[f.name]
        check, what = _KINDS[_FIELD_KINDS.get(f.name, "str")]
        if not check(value):
            raise ValueError(f"field {prefix}{f.name} must be {what}, not {show(value)}")
        check, what = _STRICT.get(f.name, (None, ""))
        if check is not None and not check(value):
            raise ValueError(f"field {prefix}{f.name} must be {what}, not {show(value)}")
        if _FIELD_KINDS.get(f.name) == "list[str]":
            problem = long_line(prefix + f.name, value)
            if problem:
                raise ValueError(problem)
        surrogate = lone_surrogate(value) if surrogates else None
        if surrogate:
            raise ValueError(f"field {prefix}{f.name} holds {surrogate}, a lone surrogate escape that is "
                             "no character (no page or file can hold it)")


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
