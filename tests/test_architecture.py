"""The package's shape, read from its source: no import cycle, and no layer imports one above it.

Every import counts, at module level or inside a function (a function-level import is still a
dependency), except those under ``if TYPE_CHECKING:``, which never run. The layers, lowest
first (README's architecture section draws the same tree):

* ``core`` and ``config``: errors, safe reads, atomic writes, sealed caches; the project's paths;
* ``proofs`` (what a proof is), ``store`` (records on disk), ``run`` (running proofs, staleness);
* ``pages`` (reading pages), ``upgrade`` (diff, drift, claims, corrections), ``site`` (downloads,
  notebooks, index data, assets);
* ``drawing`` (the Excalidraw renderer), ``render`` (HTML from records), ``directives`` (the
  registry of fences and what a handler receives);
* ``series`` (this series' own widgets), then ``hosts`` (MkDocs, Python-Markdown, Zensical, the
  CLI), which may use any of them. Nothing below ``hosts`` imports ``series``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "build_hooks"
LAYERS = [{"core", "config"}, {"proofs"}, {"store"}, {"run"}, {"pages"}, {"upgrade"}, {"site"},
          {"drawing"}, {"render"}, {"directives"}, {"series"}, {"hosts", "__main__", "assets"}]
MAY_IMPORT = {name: set().union(*LAYERS[: i + 1]) for i, layer in enumerate(LAYERS) for name in layer}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _runtime_imports(tree: ast.AST):
    """Import nodes outside ``if TYPE_CHECKING:`` blocks."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            todo.append(child)


def graph() -> dict[str, set[str]]:
    mods = modules()
    edges: dict[str, set[str]] = {name: set() for name in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                subs = [f"{module}.{alias.name}" for alias in node.names]
                targets = [s for s in subs if s in mods] or [module]
            else:
                targets = [alias.name for alias in node.names]
            edges[name].update(t for t in targets if t in mods and t != name)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    item = stack.pop()
                    on.discard(item)
                    component.append(item)
                    if item == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layer(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def test_the_package_has_no_import_cycle():
    assert cycles(graph()) == []


def test_no_layer_imports_one_above_it():
    wrong = []
    for name, targets in graph().items():
        mine = layer(name)
        if mine not in MAY_IMPORT:
            continue
        for target in sorted(targets):
            theirs = layer(target)
            if theirs is not None and theirs not in MAY_IMPORT[mine]:
                wrong.append(f"{name} imports {target}")
    assert wrong == []


def test_every_module_has_a_layer():
    """A new folder must take its place in LAYERS (else the check above would skip it)."""
    assert sorted({layer(name) for name in graph()} - set(MAY_IMPORT) - {None}) == []


def test_the_checks_see_a_cycle_and_an_upward_import():
    """The two checks above can fail: a made-up graph with both faults is caught."""
    edges = {"build_hooks.core.a": {"build_hooks.core.b"}, "build_hooks.core.b": {"build_hooks.core.a"},
             "build_hooks.core.c": {"build_hooks.render.x"}, "build_hooks.render.x": set()}
    assert cycles(edges) == [["build_hooks.core.a", "build_hooks.core.b"]]
    assert layer("build_hooks.render.x") not in MAY_IMPORT[layer("build_hooks.core.c")]
    real = graph()
    assert "build_hooks.store.store" in real and "build_hooks.store.schema" in real["build_hooks.store.store"]


def readme_tree() -> dict[str, set[str] | None]:
    """README's tree of the package: folder (or module) -> the modules it names (None: not listed)."""
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("```text\n  build_hooks/\n", 1)[1].split("```", 1)[0]
    entries: list[list[str]] = []
    for line in block.splitlines():
        if line.startswith("    ") and not line.startswith("     "):
            entries.append(line.split())
        elif line.strip():
            entries[-1].extend(line.split())
    tree: dict[str, set[str] | None] = {}
    for words in entries:
        head, rest = words[0], " ".join(words[1:])
        if head.endswith(".py"):
            tree[head[:-3]] = None
            continue
        own, _, nested = rest.partition("(+")
        tree[head.rstrip("/")] = set(own.split())
        for group in nested.rstrip(")").split(","):
            parts = group.split()
            if parts and parts[0].endswith("/"):
                tree[f"{head.rstrip('/')}/{parts[0].rstrip('/')}"] = set(parts[1:]) or None
    return tree


def test_the_readme_tree_is_the_package():
    """Every folder and module of the package, as README's architecture section draws it."""
    actual: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        folder = path.parent.relative_to(PACKAGE).as_posix()
        if folder == ".":
            if path.stem not in ("__init__", "__main__"):
                actual[path.stem] = set()
            continue
        actual.setdefault(folder, set())
        if path.stem != "__init__" and not path.stem.startswith("_"):
            actual[folder].add(path.stem)
    drawn = readme_tree()
    assert sorted(set(drawn) - {"render/templates"}) == sorted(actual)
    for folder, modules in drawn.items():
        if modules is not None and folder in actual:
            assert modules == actual[folder], f"README's {folder}/ differs: {sorted(modules ^ actual[folder])}"
