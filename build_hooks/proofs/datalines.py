"""Proof output: machine-readable ``NAME=<json>`` lines and the human-readable rest."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

DATA_LINE = re.compile(r"^([A-Z][A-Z0-9_]*)=(.*)$")


@dataclass
class ParsedOutput:
    visible: list[str]
    data: dict
    problems: list[str] = field(default_factory=list)


MAX_DEPTH = 64  # levels of nesting in a record's data (schema.py refuses deeper)


def _depth(node) -> int:
    """How deep ``node`` nests (no recursion; stops counting past MAX_DEPTH)."""
    deepest, todo = 0, [(node, 0)]
    while todo:
        item, level = todo.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break
        if isinstance(item, dict):
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, level + 1) for v in item)
    return deepest


def parse_output(lines: list[str]) -> ParsedOutput:
    """Split output lines into visible lines and data; a bad data line is a problem.

    A line ``NAME=<json>`` whose value is valid, finite JSON is data and is hidden from pages.
    A line that looks like data but is not valid JSON, or holds ``NaN`` or an infinity (which
    standard JSON cannot carry), stays visible, is not stored, and is reported in ``problems``
    (one sentence each, starting with its output line). A NAME printed twice keeps its last
    value (and is reported).
    """
    visible: list[str] = []
    data: dict = {}
    problems: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        match = DATA_LINE.match(line)
        if not match:
            visible.append(line)
            continue
        name, raw = match.groups()
        if name in seen:
            problems.append(f"output line {number}: {name} printed twice; the last value wins")
        seen.add(name)
        try:
            value = json.loads(raw)
        except ValueError as exc:
            last = ("; it is the output's last line: a proof stopped by its output cap is cut off "
                    "there" if number == len(lines) else "")
            # a JSONDecodeError has its message alone; a plain ValueError (an integer of more digits than
            # int() converts) has no .msg
            detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            problems.append(f"output line {number}: {name}= is not valid JSON ({detail}){last}")
            visible.append(line)
            continue
        except RecursionError:
            problems.append(f"output line {number}: {name}= nests too deeply to read (at most "
                            f"{MAX_DEPTH} levels); print a flatter value")
            visible.append(line[:200] + " ...")
            continue
        if _depth(value) >= MAX_DEPTH:  # the record nests it one level deeper, under data
            problems.append(f"output line {number}: {name}= nests {MAX_DEPTH} levels or deeper; "
                            "print a flatter value")
            visible.append(line[:200] + " ...")
            continue
        surrogate = lone_surrogate(value)
        if surrogate:
            problems.append(f"output line {number}: {name}= holds {surrogate}, a lone surrogate escape "
                            "that is no character (no page or file can hold it); print text")
            visible.append(line)
            continue
        bad = non_finite(value, name)
        if bad:
            problems.extend(f"output line {number}: {path} is {what}; data must be finite numbers "
                            "(print null or a string instead)" for path, what in bad)
            visible.append(line)
            continue
        data[name] = value
    while visible and not visible[-1].strip():
        visible.pop()
    return ParsedOutput(visible, data, problems)


def lone_surrogate(node) -> str | None:
    """The first lone surrogate in ``node``'s strings, as an escape (``\\ud800``), or None: JSON
    reads one from ``"\\ud800"``, and no UTF-8 text (a page, a cache key, a terminal) can hold it."""
    try:
        json.dumps(node, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"\\u{ord(exc.object[exc.start]):04x}"
    return None


def non_finite(node, path: str) -> list[tuple[str, str]]:
    """(key path, "NaN" | "Infinity" | "-Infinity") for every non-finite number in ``node``."""
    if isinstance(node, float) and not math.isfinite(node):
        return [(path, "NaN" if math.isnan(node) else ("Infinity" if node > 0 else "-Infinity"))]
    if isinstance(node, dict):
        return [bad for key, value in node.items() for bad in non_finite(value, f"{path}.{key}")]
    if isinstance(node, list):
        return [bad for index, value in enumerate(node) for bad in non_finite(value, f"{path}.{index}")]
    return []


def lookup(data: dict, path: str):
    """``lookup(data, "TOLL.small_us")``; list items by index (``"SWEEP.0.us"``).

    Raises KeyError with the part of the path that does not exist.
    """
    node = data
    walked: list[str] = []
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(".".join([*walked, part]))
        walked.append(part)
    return node


def describe_data(data: dict, lines: list[str], failed: str | None = None) -> str:
    """The keys a record's data has or, with none, what its output really holds.

    ``failed``: how its only recorded run ended ("timed out"), when it did not succeed.
    """
    keys = key_paths(data)
    if keys:
        return ", ".join(keys)
    why = []
    if failed:
        why.append(f"its only recorded run {failed}, so it holds no data")
    problems = parse_output(lines).problems
    if problems:
        more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
        why.append(f"its data lines could not be read: {'; '.join(problems[:3])}{more}")
    if not why:
        why.append("the proof printed no NAME=<json> lines")
    return f"(none: {'; '.join(why)})"


def key_paths(data, prefix: str = "", limit: int = 60) -> list[str]:
    """Every addressable scalar path, for "did you mean" messages (lists: first item only)."""
    out: list[str] = []

    def walk(node, path):
        if len(out) >= limit:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else key)
        elif isinstance(node, list) and node:
            walk(node[0], f"{path}.0")
        else:
            out.append(path)

    walk(data, prefix)
    return out


def natural(key: str) -> list:
    """SWEEP.2 before SWEEP.10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in key.split(".")]


def flatten(value, prefix: str = "") -> dict[str, object]:
    """Every leaf of ``value`` by its data path (``SWEEP.0.us``)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}.{index}"))
        return out
    return {prefix: value}


def describe(value) -> str:
    """A value as one short line of a report (floats to 6 significant digits, 40 characters)."""
    text = repr(value) if not isinstance(value, float) else f"{value:.6g}"
    return text if len(text) <= 40 else text[:37] + "..."
