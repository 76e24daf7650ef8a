"""Quotes of the pinned torch's own source files, found by pattern in the installed wheel.

A quote names a file as the wheel installs it (``torchgen/packaged/autograd/derivatives.yaml``,
``torch/include/c10/core/DispatchKey.h``, ``torch/autograd/graph.py``) or as the repository
holds it (``tools/autograd/derivatives.yaml``, ``c10/core/DispatchKey.h``), and chooses lines by
their text, never by a line number:

* ``from``: text that the first line contains; it must match exactly one line of the file
  (or take ``nth: 2`` for the second match), so an edit upstream cannot move the quote silently;
* ``to``: text that the last line contains (the first such line at or after ``from``); without
  it the quote runs to the end of the block ``from`` opens: the lines after it that are more
  indented (a YAML entry, a Python ``def`` or ``class``, a C++ body), a closing ``}`` at the
  same indent included, blank lines inside the block included.

Files are read from the installed torch and torchgen (found without importing either), and
only regular files inside those packages are read. :func:`repo_path` maps an installed path to
its repository path, or says the file is generated at build time and has none.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from build_hooks.core.errors import DirectiveError
from build_hooks.core.safefs import UnsafeFile, read_text

MAX_LINES = 200
REPO = "https://github.com/pytorch/pytorch"

# installed prefix -> repository prefix (first match wins; longest first)
_TO_REPO = (
    ("torchgen/packaged/ATen/", "aten/src/ATen/"),
    ("torchgen/packaged/autograd/", "tools/autograd/"),
    ("torch/include/torch/csrc/api/include/", "torch/csrc/api/include/"),
    ("torch/include/torch/", "torch/"),  # csrc/, headeronly/, library.h, extension.h...
    ("torch/include/ATen/", "aten/src/ATen/"),
    ("torch/include/c10/", "c10/"),
    ("torch/include/caffe2/", "caffe2/"),
    ("torchgen/", "torchgen/"),
    ("torch/", "torch/"),
)
# files the wheel holds that the build generated (no file of that name in the repository)
_GENERATED = (
    re.compile(r"^torch/include/ATen/ops/"),
    re.compile(r"^torch/include/torch/csrc/(autograd|lazy)/generated/"),
    re.compile(r"^torch/include/ATen/core/(TensorBody|aten_interned_strings|enum_tag)\.h$"),
    re.compile(r"^torch/include/ATen/(Functions|NativeFunctions|NativeMetaFunctions|Operators|"
               r"RedispatchFunctions|MethodOperators|RegistrationDeclarations|CompositeExplicitAutograd"
               r"(NonFunctional)?Functions(_inl)?|CompositeImplicitAutogradFunctions(_inl)?|"
               r"CompositeImplicitAutogradNestedTensorFunctions(_inl)?|CPUFunctions(_inl)?|"
               r"CUDAFunctions(_inl)?|MetaFunctions(_inl)?|FunctionalInverses|ViewMetaClasses|"
               r"VmapGeneratedPlumbing|Config)\.h$"),
    re.compile(r"^torch/version\.py$"),
    re.compile(r"^torch/(_C/.*|_VF|return_types)\.pyi$"),
    re.compile(r"^torch/include/torch/csrc/api/include/torch/version\.h$"),
)


@dataclass(frozen=True)
class Quote:
    path: str            # as installed, relative to site-packages
    repo: str | None     # the repository path, None for a generated file
    first: int           # 1-based line numbers, inclusive
    last: int
    lines: tuple[str, ...]
    torch: str           # the installed torch's public version, e.g. 2.14.1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def url(self) -> str | None:
        """The same lines on GitHub at the release tag, or None for a generated file."""
        if self.repo is None:
            return None
        return f"{REPO}/blob/v{self.torch}/{self.repo}#L{self.first}-L{self.last}"


@lru_cache(maxsize=4)
def package_dir(name: str) -> Path | None:
    """Where the package ``name`` is installed, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def installed_torch() -> str:
    """The public version of the installed torch (``2.14.1``), read from torch/version.py."""
    base = package_dir("torch")
    if base is None:
        raise DirectiveError("a source quote reads the installed torch, and torch is not installed here")
    text = read_text(base / "version.py", inside=base, limit=65536)
    found = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.M)
    if not found:
        raise DirectiveError(f"{base / 'version.py'} names no __version__")
    return found.group(1).split("+", 1)[0]


def repo_path(installed: str) -> str | None:
    """The repository path of an installed file (None: generated at build time)."""
    if any(rule.search(installed) for rule in _GENERATED):
        return None
    for prefix, repo in _TO_REPO:
        if installed.startswith(prefix):
            return repo + installed[len(prefix):]
    return None


def _installed_candidates(name: str) -> list[str]:
    """The installed paths a given name may mean (itself, or a repository path mapped back)."""
    out = [name]
    for prefix, repo in _TO_REPO:
        if name.startswith(repo) and prefix != repo:
            out.append(prefix + name[len(repo):])
    return out


def resolve(name: str) -> tuple[str, Path, Path]:
    """(installed path, file, its package folder) of a quoted file; raises DirectiveError
    naming what was tried."""
    pure = PurePosixPath(str(name).strip())
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise DirectiveError(f"source file {name!r}: give a path inside the torch wheel "
                             "(torch/..., torchgen/...) or the repository (c10/..., aten/src/...)")
    tried = []
    for candidate in _installed_candidates(pure.as_posix()):
        top = candidate.split("/", 1)[0]
        base = package_dir(top) if top in ("torch", "torchgen") else None
        if base is None:
            continue
        path = base.parent / candidate
        tried.append(candidate)
        if path.is_file():
            return candidate, path, base
    raise DirectiveError(f"source file {name!r} is not in the installed torch (tried "
                         f"{', '.join(tried) or 'nothing: it names no torch or torchgen path'}); fix "
                         "the path: headers are under torch/include/, the yaml files under torchgen/packaged/")


@lru_cache(maxsize=64)
def _file_lines(path: Path, inside: Path, stamp: tuple) -> tuple[str, ...]:
    return tuple(read_text(path, inside=inside, limit=32 * 1024 * 1024).split("\n"))


def file_lines(path: Path, inside: Path) -> tuple[str, ...]:
    """The lines of an installed file (kept per process while its stamp holds)."""
    try:
        info = path.stat()
        return _file_lines(path, inside, (info.st_mtime_ns, info.st_size, info.st_ino))
    except (UnsafeFile, UnicodeDecodeError, OSError) as exc:
        raise DirectiveError(f"source file {path}: {exc}") from None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def block_end(lines: tuple[str, ...], start: int) -> int:
    """The last index of the block the line at ``start`` opens (see the module docstring)."""
    base = _indent(lines[start])
    last = start
    index = start + 1
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        if _indent(line) > base:
            last = index
        elif _indent(line) == base and line.lstrip().startswith(("}", ")", "]")):
            last = index
            break
        else:
            break
        index += 1
    return last


def find(lines: tuple[str, ...], start_text: str, end_text: str | None = None, nth: int | None = None,
         where: str = "the file") -> tuple[int, int]:
    """0-based (first, last) of the quoted lines; raises DirectiveError when the text is not
    found, or ``start_text`` matches more lines than ``nth`` can tell apart."""
    hits = [i for i, line in enumerate(lines) if start_text in line]
    if not hits:
        raise DirectiveError(f"no line of {where} contains {start_text!r} any more: the source "
                             "changed; read the file and update `from:` (and the prose around it)")
    if nth is None and len(hits) > 1:
        shown = ", ".join(str(i + 1) for i in hits[:5])
        raise DirectiveError(f"{len(hits)} lines of {where} contain {start_text!r} (lines {shown}); "
                             "make `from:` longer so that one line matches, or add `nth: N`")
    nth = 1 if nth is None else nth
    if nth < 1 or nth > len(hits):
        raise DirectiveError(f"`nth: {nth}` but {len(hits)} line(s) of {where} contain {start_text!r}")
    first = hits[nth - 1]
    if end_text is None:
        last = block_end(lines, first)
    else:
        ends = [i for i in range(first, len(lines)) if end_text in lines[i]]
        if not ends:
            raise DirectiveError(f"no line of {where} at or after line {first + 1} contains {end_text!r} "
                                 "any more: update `to:`")
        last = ends[0]
    if last - first + 1 > MAX_LINES:
        raise DirectiveError(f"the quote of {where} from line {first + 1} runs {last - first + 1} lines "
                             f"(at most {MAX_LINES}); give `to:` to end it sooner")
    return first, last


def quote(name: str, start_text: str, end_text: str | None = None, nth: int | None = None) -> Quote:
    """The quote of ``name`` from the line containing ``start_text`` (see the module docstring)."""
    installed, path, base = resolve(name)
    lines = file_lines(path, base)
    first, last = find(lines, start_text, end_text, nth, where=installed)
    return Quote(installed, repo_path(installed), first + 1, last + 1, lines[first:last + 1],
                 installed_torch())


__all__ = ["MAX_LINES", "Quote", "block_end", "find", "installed_torch", "package_dir", "quote",
           "repo_path", "resolve"]
