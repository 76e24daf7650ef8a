"""The claim language's meaning: a parsed check (expression.py) walked by a whitelist.

Each allowed node type has its evaluator; every other node is refused, naming what it is. A
data path resolves against the proof's data (:func:`resolve`), only the functions in
:data:`FUNCTIONS` can be called, and list literals, strings, exponents and magnitudes are
bounded. What cannot be checked raises :class:`~build_hooks.upgrade.expression.ClaimError`.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from build_hooks.proofs.datalines import describe_data, lookup
from build_hooks.upgrade.expression import ClaimError
from build_hooks.upgrade.shown import show_value

MAX_ITEMS = 32
MAX_EXPONENT, MAX_MAGNITUDE, MAX_STRING = 64, 1e300, 200
FUNCTIONS = {
    "min": (1, None), "max": (1, None), "abs": (1, 1), "len": (1, 1), "sum": (1, 1),
    "all": (1, 1), "any": (1, 1), "round": (1, 2),
}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in"}
_REFUSED = {
    ast.Attribute: "attribute access (a data path starts with an upper-case data line NAME)",
    ast.Subscript: "subscripts (index a list inside the path: SWEEP.0.us)",
    ast.Lambda: "lambdas", ast.ListComp: "comprehensions", ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions", ast.GeneratorExp: "comprehensions",
    ast.JoinedStr: "f-strings", ast.FormattedValue: "f-strings", ast.NamedExpr: "the walrus operator",
    ast.Starred: "starred arguments", ast.IfExp: "conditional expressions", ast.Dict: "dict literals",
    ast.Set: "set literals", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
}


def resolve(data: dict, path: str):
    head, star, rest = path.partition(".*.")
    try:
        node = lookup(data, head)
    except KeyError as exc:
        raise ClaimError(f"unknown data path {path!r} (no {exc.args[0]!r}); known keys: "
                         f"{describe_data(data, [])}") from None
    if not star:
        return node
    items = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else None
    if items is None:
        raise ClaimError(f"{head!r} is not a list, so {path!r} cannot take one value per item")
    return [resolve({"ITEM": item}, f"ITEM.{rest}") for item in items]


def _number(value, where: str):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ClaimError(f"{where} needs numbers, got {show_value(value)}")
    return value


def _bounded(value, where: str):
    if isinstance(value, complex) or (isinstance(value, float) and not math.isfinite(value)):
        raise ClaimError(f"{where} gives {value!r}, which is not a finite real number")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_MAGNITUDE:
        raise ClaimError(f"{where} gives a number beyond {MAX_MAGNITUDE:g}")
    return value


def _binary(op: ast.operator, left, right):
    symbol = _BINARY[type(op)]
    left, right = _number(left, f"'{symbol}'"), _number(right, f"'{symbol}'")
    if symbol == "**":
        if abs(right) > MAX_EXPONENT:
            raise ClaimError(f"'**' with exponent {right!r}: the limit is {MAX_EXPONENT}")
        if isinstance(left, int) and isinstance(right, int) and right > 0 and left.bit_length() * right > 1000:
            raise ClaimError(f"{left!r} ** {right!r} gives a number beyond {MAX_MAGNITUDE:g}")
    try:
        result = {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
                  "/": lambda: left / right, "//": lambda: left // right, "%": lambda: left % right,
                  "**": lambda: left ** right}[symbol]()
    except (ZeroDivisionError, OverflowError) as exc:
        raise ClaimError(f"{left!r} {symbol} {right!r}: {exc}") from None
    return _bounded(result, f"{left!r} {symbol} {right!r}")


def _call(name: str, args: list):
    low, high = FUNCTIONS[name]
    if not low <= len(args) <= (high or len(args)):
        wanted = str(low) if low == high else f"{low} to {high}" if high else f"{low} or more"
        raise ClaimError(f"{name}() takes {wanted} argument(s), got {len(args)}")
    if name in ("sum", "all", "any") and not isinstance(args[0], list):
        raise ClaimError(f"{name}() needs a list (a data path to one, or [a, b, ...]), got {show_value(args[0])}")
    if name == "round" and len(args) == 2 and (not isinstance(args[1], int) or abs(args[1]) > 20):
        raise ClaimError("round(x, n) needs a whole number n between -20 and 20")
    if name in ("abs", "round"):
        _number(args[0], f"{name}()")
    if name == "sum":
        for item in args[0]:
            _number(item, "sum()")
    if name == "len" and not isinstance(args[0], (str, list, dict)):
        raise ClaimError(f"len() needs a list or a string, got {show_value(args[0])}")
    try:
        functions: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs, "len": len, "sum": sum,
                                                    "all": all, "any": any, "round": round}
        return _bounded(functions[name](*args), f"{name}()")
    except (TypeError, ValueError) as exc:
        raise ClaimError(f"{name}(): {exc}") from None


def _compare(symbol: str, left, right) -> bool:
    try:
        if symbol in ("in", "not in"):
            if not isinstance(right, (str, list, dict)):
                raise TypeError(f"'{symbol}' needs a list or a string on its right, got {show_value(right)}")
            found = left in right
            return found if symbol == "in" else not found
        return {"==": lambda: left == right, "!=": lambda: left != right, "<": lambda: left < right,
                "<=": lambda: left <= right, ">": lambda: left > right, ">=": lambda: left >= right}[symbol]()
    except TypeError as exc:
        raise ClaimError(f"cannot compare {show_value(left)} {symbol} {show_value(right)} ({exc})") from None


def _eval_constant(node: ast.Constant, env: dict):
    value = node.value
    if value is not None and type(value) not in (bool, int, float, str):
        raise ClaimError(f"{type(value).__name__} literals are not allowed")
    if isinstance(value, str) and len(value) > MAX_STRING:
        raise ClaimError(f"a string literal is limited to {MAX_STRING} characters")
    return _bounded(value, "a literal")


def _eval_name(node: ast.Name, env: dict):
    if node.id in env:
        return env[node.id]
    hint = " (call it: name(...))" if node.id in FUNCTIONS else (
        "; data paths start with an upper-case data line NAME, e.g. TOLL.small_us")
    raise ClaimError(f"unknown name {node.id!r}{hint}")


def _eval_list(node: ast.List | ast.Tuple, env: dict):
    if len(node.elts) > MAX_ITEMS:
        raise ClaimError(f"a list literal is limited to {MAX_ITEMS} items")
    return [evaluate_tree(item, env) for item in node.elts]


def _eval_unary(node: ast.UnaryOp, env: dict):
    value = evaluate_tree(node.operand, env)
    if isinstance(node.op, ast.Not):
        return not value
    if isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(value, "a sign")
        return -value if isinstance(node.op, ast.USub) else +value
    raise ClaimError("the '~' operator is not allowed")


def _eval_binary(node: ast.BinOp, env: dict):
    if type(node.op) not in _BINARY:
        raise ClaimError(f"the operator {type(node.op).__name__} is not allowed; use + - * / // % **")
    return _binary(node.op, evaluate_tree(node.left, env), evaluate_tree(node.right, env))


def _eval_bool(node: ast.BoolOp, env: dict):
    value = None
    for item in node.values:
        value = evaluate_tree(item, env)
        if bool(value) == isinstance(node.op, ast.Or):
            return value
    return value


def _eval_compare(node: ast.Compare, env: dict):
    left = evaluate_tree(node.left, env)
    for op, item in zip(node.ops, node.comparators):
        if type(op) not in _COMPARE:
            raise ClaimError(f"'{'is' if isinstance(op, ast.Is) else 'is not'}' is not allowed; use == or !=")
        right = evaluate_tree(item, env)
        if not _compare(_COMPARE[type(op)], left, right):
            return False
        left = right
    return True


def _eval_call(node: ast.Call, env: dict):
    if isinstance(node.func, ast.Name) and node.func.id in env:
        raise ClaimError("a data path is a value, not a function; call min, max, ... on it")
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        called = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        raise ClaimError(f"calling {called!r} is not allowed; the functions are {', '.join(FUNCTIONS)}")
    if node.keywords:
        raise ClaimError(f"{node.func.id}() takes no keyword arguments")
    return _call(node.func.id, [evaluate_tree(item, env) for item in node.args])


# What each allowed node means, by its exact type; every other node is refused.
_EVALUATORS: dict[type, Callable[[Any, dict], Any]] = {
    ast.Constant: _eval_constant, ast.Name: _eval_name, ast.List: _eval_list, ast.Tuple: _eval_list,
    ast.UnaryOp: _eval_unary, ast.BinOp: _eval_binary, ast.BoolOp: _eval_bool,
    ast.Compare: _eval_compare, ast.Call: _eval_call,
}


def evaluate_tree(node: ast.expr, env: dict):
    kind = type(node)
    evaluator = _EVALUATORS.get(kind)
    if evaluator is None:
        raise ClaimError(f"not allowed in a claim: {_REFUSED.get(kind, kind.__name__)}")
    return evaluator(node, env)
