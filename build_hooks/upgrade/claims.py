"""Claims: a pattern a proof's data must satisfy, checked on every build.

A ``claim`` fence sits next to the prose that states a pattern in words::

    ```claim
    proof: dispatch_cost
    check: TOLL.large_us > 100 * TOLL.small_us
    say: A large add costs over a hundred small ones.
    ```

``check`` is the small expression language of expression.py (evaluated by evaluation.py),
over the proof's data paths; values are shown as shown.py says. :func:`evaluate`,
:func:`can_fail` and :func:`find_claims` are pure, for other tools; the fence itself is
rendered by :mod:`build_hooks.render.claim`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import NamedTuple

import yaml

from build_hooks.core import yamlbody
from build_hooks.upgrade.evaluation import evaluate_tree, resolve
from build_hooks.upgrade.expression import PLACEHOLDER, ClaimError, parse
from build_hooks.upgrade.shown import scalars, show_value


@dataclass(frozen=True)
class ClaimResult:
    holds: bool
    values: dict  # data path as written -> the value it resolved to


def evaluate(expression: str, data: dict) -> ClaimResult:
    """Check ``expression`` against one proof's data (NAME -> value); raises ClaimError."""
    tree, paths = parse(expression)
    values = {path: resolve(data, path) for path in paths}
    return ClaimResult(_truth(expression, tree, paths, values), values)


def _truth(expression: str, tree: ast.expr, paths: list[str], values: dict) -> bool:
    env = {PLACEHOLDER.format(i): values[path] for i, path in enumerate(paths)}
    result = evaluate_tree(tree, env)
    if not isinstance(result, bool):
        raise ClaimError(f"the check {expression!r} gives {show_value(result)}, not True or False; "
                         "compare it with something (==, <, >, in)")
    return result


def _variants(value) -> list:
    """Other values a measurement could have taken: what a claim that depends on it must notice."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [0, -value, value + 1, value - 1, value * 1000 + 1, value // 1000]
    if isinstance(value, float):
        return [0.0, -value, value * 1000 + 1, value / 1000, value + 1, value - 1]
    if isinstance(value, str):
        return ["", value + " (changed)", value[::-1]]
    if value is None:
        return [0, "changed"]
    if isinstance(value, list):
        out: list = [[], value[:-1], value + value[-1:] if value else [0]]
        for index in range(len(_variants(0.0))):  # each element moved the same way
            out.append([_variants(item)[index] if isinstance(item, (int, float)) and not isinstance(item, bool)
                        else item for item in value])
        return out
    if isinstance(value, dict):
        return [{}]
    return []


def can_fail(expression: str, data: dict) -> bool:
    """Whether some other value of what the check reads makes it give another answer: each
    value changed alone (zero, negated, a thousand times larger or smaller, one more or less,
    an empty or altered string or list), then all of them together. A check that gives the same
    answer for every one of them does not depend on anything measured (``len(X) >= 0``,
    ``A == A``, a typed constant): it cannot fail, so it shows nothing."""
    tree, paths = parse(expression)
    values = {path: resolve(data, path) for path in paths}
    first = _truth(expression, tree, paths, values)
    trials = [{**values, path: other} for path in paths for other in _variants(values[path])]
    count = max((len(_variants(v)) for v in values.values()), default=0)
    for index in range(count):  # every value moved the same way at once
        trials.append({p: (_variants(v)[index] if index < len(_variants(v)) else v) for p, v in values.items()})
    for trial in trials:
        try:
            if _truth(expression, tree, paths, trial) != first:
                return True
        except (ClaimError, ArithmeticError, TypeError, ValueError):
            return True  # the check breaks on that value: it depends on it
    return False


class FoundClaim(NamedTuple):
    """A claim fence of a page, as :func:`find_claims` reads it without rendering."""

    line: int  # of the opening fence
    proof: str
    check: str
    say: str = ""  # the author's statement in words


def find_claims(markdown_text: str) -> list[FoundClaim]:
    """Every ``claim`` fence of a page: (line of the opening fence, proof, check, say).

    A fence inside another fence (an example in a code block) is not a claim. A claim whose
    body is not valid YAML is listed with an empty proof and check.
    """
    found = []
    lines = markdown_text.splitlines()
    number = 0
    while number < len(lines):
        match = re.match(r"^\s*(`{3,}|~{3,})\s*([\w-]*)", lines[number])
        number += 1
        if not match:
            continue
        start, body = number, []
        while number < len(lines) and not re.fullmatch(rf"\s*{match.group(1)}[`~]*\s*", lines[number]):
            body.append(lines[number])
            number += 1
        number += 1
        if match.group(2) != "claim":
            continue
        try:
            options = yamlbody.load("\n".join(line.strip() for line in body)) or {}
        except yaml.YAMLError:
            options = {}
        options = options if isinstance(options, dict) else {}
        found.append(FoundClaim(start, str(options.get("proof", "")), str(options.get("check", "")),
                                str(options.get("say") or "").strip()))
    return found


def numbers_shown(values: dict, check: str = "") -> list:
    """What a value of a claim is told apart from: the values it saw and the check's numbers
    (``NEAR.sum > 10000`` holding shows ``10,000.001``, not ``10,000``)."""
    try:
        tree, _ = parse(check) if check else (None, [])
    except ClaimError:
        tree = None
    literals = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)] if tree else []
    numbers = scalars(literals)
    return [*values.values(), *numbers, *(-n for n in numbers)]


def describe(values: dict, check: str = "") -> str:
    """``TOLL.large_us = 1,780, TOLL.small_us = 4.1``: what a claim saw, for messages; each number
    with the digits that tell it apart from the others and from the numbers of its ``check``."""
    among = numbers_shown(values, check)
    return (", ".join(f"{path} = {show_value(value, among=among)}" for path, value in values.items())
            or "(no data paths)")
