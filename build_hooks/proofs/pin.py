"""The pinned torch version: one per project, read from the first place that names it.

Precedence (the first that pins torch wins; the later ones are not read):

1. the ``torch`` option of the site's configuration (the MkDocs plugin's ``torch: "2.14.1"``,
   or the Markdown extension's), passed in as ``configured``;
2. ``pyproject.toml`` beside the site: an exact ``torch==X`` in ``[project].dependencies`` or
   in any extra of ``[project.optional-dependencies]`` (this series pins it in its ``series``
   extra, so that installing the tool does not install torch); every exact pin the file holds
   must name the same version, else it is an error naming both;
3. ``requirements.txt`` beside the site: an exact ``torch==X`` line.

A site may have no pin at all: :func:`optional_pin` returns None then, and only a site with a
proof that imports torch needs one (run/library.py asks :func:`find_pin`, which raises).

A requirement is read as PEP 508 (``packaging``): the name is compared canonically (``Torch``),
extras (``torch[opt-einsum]``) and markers are allowed, and the pin is the one ``==`` specifier
(not ``==2.*``). In requirements.txt, comments, ``-r``/``-c``/option lines, line continuations
and per-requirement options (pip-compile's ``--hash=...``) are skipped.

A pyproject.toml that does not parse is an error, not a file to skip (it would hide its pin);
one that exists but pins no torch passes the question on. When none pins it the error names
every place it looked and what it found there.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from build_hooks.core.errors import PinError
from build_hooks.core.safefs import UnsafeFile, read_text

_VERSION = r"[0-9][0-9A-Za-z.+!-]*"
_OPTIONS = re.compile(r"\s+--?[A-Za-z].*$")
_COMMENT = re.compile(r"(^|\s)#.*$")
_BARE = re.compile(rf"^\s*(?:torch\s*==\s*)?({_VERSION})\s*$")
_NAME = re.compile(r"\s*[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")  # a PEP 508 name, at the start
_SEPARATORS = re.compile(r"[-_.]+")  # PEP 503: runs of these are one "-"
_PLAIN_PIN = re.compile(r"\s*torch\s*==\s*([0-9]+(?:\.[0-9]+)*)\s*$", re.I)  # torch==2.14.1 and nothing else
OPTION = "the `torch` option"
FILES = ("pyproject.toml", "requirements.txt")


@dataclass(frozen=True)
class Pin:
    version: str
    source: str
    """Where it came from: ``the `torch` option``, or the path of the file."""


def _exact_torch(line: str) -> str | None:
    """The version of an exact torch pin in one PEP 508 requirement, else None. The name is read
    first: another package's line, or a plain ``torch==X``, needs no full parse (``packaging``'s
    requirement parser is imported only for the rest)."""
    name = _NAME.match(line)
    if name is None or _SEPARATORS.sub("-", name.group(0).strip().lower()) != "torch":
        return None  # not torch, or no valid requirement (which PEP 508 would refuse)
    plain = _PLAIN_PIN.match(line)
    if plain is not None:
        return plain.group(1)
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        req = Requirement(line.strip())
    except InvalidRequirement:
        return None
    if canonicalize_name(req.name) != "torch" or req.url:
        return None
    specs = list(req.specifier)
    if len(specs) != 1 or specs[0].operator != "==" or specs[0].version.endswith("*"):
        return None
    return specs[0].version


def _requirement_lines(text: str) -> list[str]:
    """requirements.txt's requirements: continuations joined, comments/options/-r/-c dropped."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = _COMMENT.sub("", raw)
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        line, pending = pending + line, ""
        line = _OPTIONS.sub("", line).strip()
        if line and not line.startswith("-"):
            lines.append(line)
    return lines


def _requirement_lists(project: object) -> list[tuple[str, object]]:
    """(where, list) of ``[project]``'s requirement lists: dependencies, then each extra."""
    if not isinstance(project, dict):
        return []
    lists: list[tuple[str, object]] = [("[project].dependencies", project.get("dependencies", []))]
    extras = project.get("optional-dependencies", {})
    for extra, deps in sorted(extras.items()) if isinstance(extras, dict) else ():
        lists.append((f"[project.optional-dependencies].{extra}", deps))
    return lists


@lru_cache(maxsize=16)
def _read_pyproject(path: Path, mtime_ns: int) -> str | None:
    try:
        doc = tomllib.loads(read_text(path, limit="data"))
    except (OSError, UnsafeFile, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PinError(f"{path}: cannot read the torch pin ({exc}); fix the file") from exc
    found: dict[str, str] = {}  # version -> where
    for where, deps in _requirement_lists(doc.get("project")):
        for dep in deps if isinstance(deps, list) else []:
            version = _exact_torch(dep) if isinstance(dep, str) else None
            if version is not None and version not in found:
                found[version] = where
    if len(found) > 1:
        pins = "; ".join(f"torch=={version} in {where}" for version, where in found.items())
        raise PinError(f"{path}: two torch pins ({pins}); fix: pin torch once (one version)")
    return next(iter(found), None)


@lru_cache(maxsize=16)
def _read_requirements(path: Path, mtime_ns: int) -> str | None:
    try:
        text = read_text(path, limit="data")
    except (OSError, UnsafeFile, UnicodeDecodeError) as exc:
        raise PinError(f"{path}: cannot read the torch pin ({exc}); fix the file") from exc
    for line in _requirement_lines(text):
        version = _exact_torch(line)
        if version is not None:
            return version
    return None


def _configured(value: object) -> str:
    match = _BARE.match(value) if isinstance(value, str) else None
    if not match:
        raise PinError(f"{OPTION} is {value!r}, not a torch version; fix: write the exact version, "
                       'e.g. torch: "2.14.1" (quoted, so that YAML keeps it text)')
    return match.group(1)


def _search(root: Path, configured: object) -> tuple[Pin | None, list[str]]:
    """The pin (None: none) and, for the error, each place looked at and what it held."""
    if configured is not None and configured != "":
        return Pin(_configured(configured), OPTION), []
    looked = [f"{OPTION}: not set"]
    for name, read in zip(FILES, (_read_pyproject, _read_requirements)):
        path = Path(root).resolve() / name
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            looked.append(f"{path}: not found")
            continue
        version = read(path, mtime)
        if version is not None:
            return Pin(version, str(path)), looked
        where = "[project] dependencies and optional-dependencies have" if name == "pyproject.toml" else "has"
        looked.append(f"{path}: {where} no exact torch pin")
    return None, looked


def optional_pin(root: Path, configured: object = None) -> Pin | None:
    """The pin, or None where no place names one (a site whose proofs never import torch);
    a place that cannot be read, or a bad ``torch`` option, is still an error."""
    return _search(root, configured)[0]


def find_pin(root: Path, configured: object = None) -> Pin:
    """The pin for the project at ``root``, and where it was found (see the module docstring);
    PinError naming every place looked at when there is none."""
    pin, looked = _search(root, configured)
    if pin is not None:
        return pin
    raise PinError(
        "no torch pin found; looked at " + "; ".join(looked) + ". Fix: pin the torch the proofs "
        'run under in one of them: `torch: "2.14.1"` under the ldr plugin in mkdocs.yml, '
        '"torch==2.14.1" in [project].dependencies (or an extra) of pyproject.toml, or a line torch==2.14.1 '
        "in requirements.txt"
    )


def pinned_torch(root: Path, configured: object = None) -> str:
    """The pinned torch version (e.g. ``"2.14.1"``) for the project at ``root``."""
    return find_pin(root, configured).version


def public_version(version: str) -> str:
    """``"2.13.0+cpu"`` -> ``"2.13.0"``: the local build tag does not change the release."""
    return version.split("+", 1)[0].strip()


def matches_pin(version: str, pin: str) -> bool:
    return public_version(version) == public_version(pin)
