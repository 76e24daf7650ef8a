"""The claim language: a check's text parsed with :mod:`ast` (evaluation.py walks it by a whitelist).

``check`` is a small expression language over a proof's data paths (``TOLL.small_us``,
``SWEEP.0.us``; ``LIBRARIES.files.*.bytes`` collects one value per list item): numbers,
strings, booleans, ``None``, list literals, arithmetic, chained comparisons (``in`` too),
``and``/``or``/``not``, parentheses and the functions in evaluation.py's ``FUNCTIONS``.
Nothing the author writes is ever compiled or run as Python; sizes, depths and magnitudes are
bounded. Here the text becomes a tree: each data path outside a string literal is replaced by
a placeholder name (:data:`PLACEHOLDER`), and the text's length and the tree's size and depth
are bounded.
"""

from __future__ import annotations

import ast
import re
import tokenize

from build_hooks.core.errors import DirectiveError

MAX_LENGTH, MAX_NODES, MAX_DEPTH = 500, 200, 24
_PATH = re.compile(r"[A-Z][A-Z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|-?\d+|\*(?=\.)))*")
_NUMBER = re.compile(tokenize.Number)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PLACEHOLDER = "ldr_path_{}"


class ClaimError(DirectiveError):
    """A claim that cannot be checked: bad syntax, a refused construct, an unknown path."""


def _string_end(expression: str, i: int) -> int:
    """Where the string literal opening at ``i`` ends (one past its closing quote)."""
    quote, end, n = expression[i], i + 1, len(expression)
    while end < n and expression[end] != quote:
        end += 2 if expression[end] == "\\" else 1
    return end + 1


def _number_end(expression: str, i: int) -> int | None:
    """Where the number literal starting at ``i`` ends, or None when none starts there."""
    char = expression[i]
    starts_number = char.isdigit() or (char == "." and expression[i + 1:i + 2].isdigit())
    number = _NUMBER.match(expression, i) if starts_number else None
    return number.end() if number and number.end() > i else None


def _data_path(expression: str, i: int, after_dot: bool) -> str | None:
    """The data path starting at ``i``: not an attribute after a dot, not the head of a longer name."""
    path = _PATH.match(expression, i)
    if not path or after_dot:
        return None
    end = path.end()
    if end < len(expression) and (expression[end].isalnum() or expression[end] == "_"):
        return None
    text = path.group()
    if any(part.startswith("__") for part in text.split(".")):
        raise ClaimError(f"{text!r}: a data path part cannot start with '__'")
    return text


def _name(expression: str, i: int) -> str:
    name_match = _NAME.match(expression, i)
    assert name_match  # expression[i] is a letter or "_", so a name starts here
    name = name_match.group()
    if name.startswith("_"):
        raise ClaimError(f"names starting with '_' are not allowed ({name!r})")
    return name


def _tokenise(expression: str) -> tuple[str, list[str]]:
    """Replace each data path outside string literals by a placeholder name."""
    out: list[str] = []
    paths: list[str] = []
    i, n = 0, len(expression)
    while i < n:
        char = expression[i]
        end = _string_end(expression, i) if char in "'\"" else _number_end(expression, i)
        if end is not None:  # a string or number literal, kept as written
            out.append(expression[i:end])
            i = end
        elif char.isalpha() or char == "_":
            path = _data_path(expression, i, "".join(out).rstrip().endswith("."))
            if path is None:  # a function name or an attribute
                word = _name(expression, i)
                out.append(word)
            else:
                word = path
                out.append(PLACEHOLDER.format(len(paths)))
                paths.append(path)
            i += len(word)
        else:
            out.append(char)
            i += 1
    return "".join(out), paths


def parse(expression: str) -> tuple[ast.expr, list[str]]:
    if not isinstance(expression, str) or not expression.strip():
        raise ClaimError("a claim needs `check: <expression>`, e.g. `check: TOLL.large_us > 100 * TOLL.small_us`")
    if len(expression) > MAX_LENGTH:
        raise ClaimError(f"the check is {len(expression)} characters long; the limit is {MAX_LENGTH}")
    text, paths = _tokenise(expression.strip())
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        detail = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
        raise ClaimError(f"the check {expression!r} is not a valid expression ({detail})") from None
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree.body, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES or depth > MAX_DEPTH:
            raise ClaimError(f"the check {expression!r} is too complex (at most {MAX_NODES} parts, "
                             f"nested {MAX_DEPTH} deep); split it into several claims")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return tree.body, paths
