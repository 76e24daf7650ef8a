"""What a proof's source imports, read with ``ast`` (never by importing it): its local helpers
and whether it needs torch; and what running it needs, in the words every page uses."""

from __future__ import annotations

import ast
import sys

TORCH_MODULES = frozenset({"torch", "torchgen", "functorch", "torchvision", "torchaudio"})


def local_imports(tree: ast.Module, lines: list[str]) -> tuple[tuple[str, int, str], ...]:
    """``import _x`` / ``from _x import y`` anywhere in the module, for a name that is not a
    standard-library module (``_thread``, ``_ctypes``...): those are local helpers."""
    found = []
    for node, names in _imports(tree):
        for name in names:
            top = name.split(".")[0]
            if top.startswith("_") and top not in sys.stdlib_module_names and top != "__future__":
                text = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else name
                found.append((top, node.lineno, text))
    return tuple(sorted(set(found), key=lambda item: item[1]))


def imports_torch(tree: ast.Module) -> bool:
    """Whether a module imports torch (or a package of torch's: TORCH_MODULES) anywhere, at
    module level or inside a function: the one rule for "this proof needs torch"."""
    return any(name.split(".")[0] in TORCH_MODULES for _, names in _imports(tree) for name in names)


def needs(torch: bool, helpers: list[str]) -> str:
    """What running a proof needs, in words: ``needs nothing but torch`` (``nothing but
    Python`` for a proof that never imports torch), or ``needs torch and A, B and C beside it``
    (``helpers`` as the caller shows them: links, code)."""
    if not helpers:
        return f"needs nothing but {'torch' if torch else 'Python'}"
    listed = helpers[0] if len(helpers) == 1 else ", ".join(helpers[:-1]) + " and " + helpers[-1]
    return f"needs {'torch and ' if torch else ''}{listed} beside it"


def _imports(tree: ast.Module):
    """(statement, the absolute module names it imports) for each import statement."""
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            yield node, [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node, [node.module]


def _statements(body: list):
    """Every statement, nested ones too (imports are statements): a walk that skips the
    expressions, most of a module's nodes."""
    for node in body:
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from _statements(inner)
