"""The package as PyPI would see it: the wheel built from this checkout holds build_hooks and
nothing of the repository's own (tests/, bench/, drawings/_make), every module in it is used,
its metadata names the distribution, licence, classifiers and dependencies, and its long
description is the package's own (build_hooks/README.md), not the series' README. Every
third-party module build_hooks imports is provided by a declared dependency."""

from __future__ import annotations

import ast
import email
import importlib.metadata
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "build_hooks"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_architecture import graph  # noqa: E402

DIST = "mkdocs-ldr"
# Modules only some installs need, each imported only by the files named, from an extra:
# torch by the proof host and the device probe, which run in the proofs' own interpreter (a
# site whose proofs never import torch needs none); zensical by its host only.
OPTIONAL = {"torch": ("series", ("run/host.py", "run/probe.py")),
            "zensical": ("zensical", ("hosts/zensical/",))}
# Modules the package runs by path or loads by name, not by an import: the proof host, the
# proof process and the probe (run/runner.py starts them), the host's event loop (host.py
# loads it by path), and the series' widgets (a site names build_hooks.series in its configuration).
LOADED = {"build_hooks.run.host", "build_hooks.run.hostloop", "build_hooks.run.child", "build_hooks.run.probe",
          "build_hooks.series"}


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def third_party_imports() -> dict[str, set[str]]:
    """Top-level module -> the build_hooks files (relative paths) that import it."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("build_hooks", "__future__"):
                    found.setdefault(top, set()).add(path.relative_to(PACKAGE).as_posix())
    return found


def declared(extra: str | None = None) -> set[str]:
    """Canonical names of the distributions the project requires (with ``extra``: that extra's)."""
    meta = project()
    reqs = meta["dependencies"] if extra is None else meta.get("optional-dependencies", {}).get(extra, [])
    return {canonicalize_name(Requirement(r).name) for r in reqs}


def test_every_third_party_import_is_a_declared_dependency():
    """markdown and pygments were imported but not declared: an install from PyPI worked only
    because mkdocs happened to pull them in."""
    providers = importlib.metadata.packages_distributions()
    core = declared()
    missing = []
    for module, files in sorted(third_party_imports().items()):
        dists = {canonicalize_name(d) for d in providers.get(module, [])}
        assert dists, f"{module} (imported by {sorted(files)}) is not installed here"
        if module in OPTIONAL:
            extra, allowed = OPTIONAL[module]
            outside = sorted(f for f in files if not f.startswith(allowed))
            assert not outside, f"{module} is optional (extra {extra}) but imported by {outside}"
            if not dists & declared(extra):
                missing.append(f"{module} (extra {extra})")
        elif not dists & core:
            missing.append(f"{module}, from {sorted(dists)}, imported by {sorted(files)}")
    assert missing == [], "imported but not declared in [project].dependencies: " + "; ".join(missing)


def test_torch_is_no_dependency_of_the_tool():
    assert "torch" not in declared() and "torch" in declared("series")
    test = project()["optional-dependencies"]["test"]
    assert any(Requirement(r).name == DIST and "series" in Requirement(r).extras for r in test), test


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of a copy of this checkout, tests, bench and drawings included, so that a
    package finder that picked them up would show."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source)
    skip = shutil.ignore_patterns("__pycache__", "_results", "*.excalidraw", "screenshots", "fixtures", "data")
    for name in ("build_hooks", "tests", "bench", "drawings", "proofs"):
        shutil.copytree(REPO / name, source / name, ignore=skip if name != "build_hooks" else
                        shutil.ignore_patterns("__pycache__"))
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                             "-w", str(tmp / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    (built,) = (tmp / "dist").glob("*.whl")
    return built


def copied(wheel: Path) -> Path:
    """The copy of build_hooks the wheel was built from."""
    return wheel.parents[1] / "src" / "build_hooks"


def test_the_wheel_holds_the_package_and_nothing_else(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    info = {t for t in tops if t.endswith(".dist-info")}
    assert tops - info == {"build_hooks"}, sorted(tops)
    assert [t.split("-")[0] for t in info] == ["mkdocs_ldr"]
    shipped = {n for n in names if n.startswith("build_hooks/") and n.endswith(".py")}
    source = {f"build_hooks/{p.relative_to(copied(wheel)).as_posix()}" for p in copied(wheel).rglob("*.py")}
    assert shipped == source, sorted(shipped ^ source)
    licences = {n.rsplit("/", 1)[-1] for n in names if "/licenses/" in n}
    assert {"LICENSE", "OFL-1.1.txt", "LICENSE-ComicShanns.txt"} <= licences, sorted(licences)


def unused(edges: dict[str, set[str]], roots: set[str]) -> list[str]:
    """The modules of ``edges`` that no import chain from ``roots`` reaches."""
    seen: set[str] = set()
    todo = sorted(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in edges:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # a package runs its __init__
        todo.extend(edges[name])
    return sorted(set(edges) - seen)


def test_every_module_of_the_package_is_used():
    """No dev-only module ships: each is reached by an import from an entry point (the ldr
    command, the MkDocs plugin, the Markdown extension, Zensical's hooks) or is one the package
    runs or loads by name (LOADED). The drawing fidelity measure and the font-metrics maker
    once shipped; they live in tests/ and bench/ (a module like them is caught: below)."""
    edges = graph()
    scripts = project()["scripts"].values()
    points = [v for group in project()["entry-points"].values() for v in group.values()]
    roots = {ref.split(":")[0] for ref in [*scripts, *points]} | LOADED | {"build_hooks", "build_hooks.__main__"}
    roots |= {m for m in edges if m.startswith("build_hooks.hosts.zensical")}  # Zensical loads its hooks by name
    assert unused(edges, roots) == []
    dev = {**edges, "build_hooks.drawing.fidelity": {"build_hooks.drawing.render"}}
    assert unused(dev, roots) == ["build_hooks.drawing.fidelity"]


def test_the_metadata_names_the_tool_not_the_series(wheel):
    with zipfile.ZipFile(wheel) as archive:
        (meta_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        meta = email.message_from_string(archive.read(meta_name).decode("utf-8"))
        entry = archive.read(meta_name.replace("METADATA", "entry_points.txt")).decode("utf-8")
    assert meta["Name"] == DIST
    assert meta["License-Expression"] == "MIT AND OFL-1.1"
    classifiers = meta.get_all("Classifier")
    assert "Framework :: MkDocs" in classifiers and "Topic :: Documentation" in classifiers
    requires = [Requirement(r) for r in meta.get_all("Requires-Dist")]
    plain = {canonicalize_name(r.name) for r in requires if r.marker is None}
    assert {"markdown", "pygments", "mkdocs"} <= plain and "torch" not in plain
    (torch,) = [r for r in requires if r.name == "torch"]
    assert str(torch.marker) == 'extra == "series"' and str(torch.specifier).startswith("==")
    body = meta.get_payload()
    assert body.strip() == (copied(wheel) / "README.md").read_text(encoding="utf-8").strip()
    assert "PyTorch, all the way down\n" not in body.splitlines()[0] and "bash .ci/run" not in body
    # the names every site's configuration uses stay
    assert "ldr = build_hooks.hosts.cli.main:main" in entry
    assert "ldr = build_hooks.hosts.mkdocs.plugin:LdrPlugin" in entry
    assert "ldr = build_hooks.hosts.markdown.extension:LdrExtension" in entry
