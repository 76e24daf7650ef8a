"""Proof output: machine-readable ``NAME=<json>`` lines and the human-readable rest."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

DATA_LINE = re.compile(r"^([A-Z][A-Z0-9_]*)=(.*)$")


@dataclass
class ParsedOutput:
    visible: list[str]
    data: dict
    problems: list[str] = field(default_factory=list)


def parse_output(lines: list[str]) -> ParsedOutput:
    """Split output lines into visible lines and data; a malformed data line is a problem.

    A line ``NAME=<json>`` whose value is valid JSON is data and is hidden from pages.
    A line that looks like data but is not valid JSON stays visible and is reported.
    A NAME printed twice keeps its last value (and is reported).
    """
    visible: list[str] = []
    data: dict = {}
    problems: list[str] = []
    for number, line in enumerate(lines, 1):
        match = DATA_LINE.match(line)
        if not match:
            visible.append(line)
            continue
        name, raw = match.groups()
        try:
            value = json.loads(raw)
        except ValueError as exc:
            problems.append(f"output line {number}: {name}= is not valid JSON ({exc.msg})")
            visible.append(line)
            continue
        if name in data:
            problems.append(f"output line {number}: {name} printed twice; the last value wins")
        data[name] = value
    while visible and not visible[-1].strip():
        visible.pop()
    return ParsedOutput(visible, data, problems)


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
