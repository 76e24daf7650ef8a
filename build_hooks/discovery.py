"""Finding proofs: ``proofs/*.py`` scripts, their docstring and their ``PROOF`` options.

A proof declares options as a literal dict, read with ``ast`` and never imported::

    PROOF = {"timeout": 60, "accelerator": "prefer", "parallel": False}
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import LdrError

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
ACCELERATOR_MODES = ("none", "prefer", "require")
DEFAULT_TIMEOUT = 120.0
DEFAULT_OUTPUT_CAP = 1 << 20
OPTION_TYPES = {
    "timeout": (int, float),
    "accelerator": (str,),
    "parallel": (bool,),
    "output_cap": (int,),
    "tolerance": (int, float, dict),  # noise allowance for `ldr drift`: see noise.py
}


@dataclass(frozen=True)
class Proof:
    name: str
    path: Path
    sha256: str
    title: str
    purpose: str
    timeout: float = DEFAULT_TIMEOUT
    accelerator: str = "none"
    parallel: bool = False
    output_cap: int = DEFAULT_OUTPUT_CAP
    problems: tuple[str, ...] = field(default=())

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8", errors="replace")


def script_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _docstring(tree: ast.Module, stem: str) -> tuple[str, str]:
    doc = ast.get_docstring(tree) or ""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", doc.strip()) if p.strip()]
    title = paragraphs[0].rstrip(".") if paragraphs else stem.replace("_", " ").capitalize()
    purpose = paragraphs[1] if len(paragraphs) > 1 else ""
    return title, purpose


def _options(tree: ast.Module, path: Path) -> dict:
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not (isinstance(target, ast.Name) and target.id == "PROOF"):
            continue
        where = f"{path}:{node.lineno}"
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            raise LdrError(
                f"{where}: PROOF must be a literal dict without names or calls, not "
                f"{ast.unparse(node.value)}; fix: write it like "
                'PROOF = {"timeout": 60, "parallel": False}'
            ) from None
        if not isinstance(value, dict):
            raise LdrError(f"{where}: PROOF must be a dict, not {type(value).__name__}")
        for key, item in value.items():
            if key not in OPTION_TYPES:
                raise LdrError(
                    f"{where}: unknown PROOF option {key!r}; known options: "
                    f"{', '.join(OPTION_TYPES)}"
                )
            if not isinstance(item, OPTION_TYPES[key]) or (key != "parallel" and isinstance(item, bool)):
                kinds = " or ".join(t.__name__ for t in OPTION_TYPES[key])
                raise LdrError(f"{where}: PROOF option {key!r} must be {kinds}, not {item!r}")
        if value.get("accelerator", "none") not in ACCELERATOR_MODES:
            raise LdrError(
                f"{where}: PROOF accelerator must be one of {', '.join(ACCELERATOR_MODES)}, "
                f"not {value['accelerator']!r}"
            )
        if "timeout" in value and not value["timeout"] > 0:
            raise LdrError(f"{where}: PROOF timeout must be a positive number of seconds")
        if "output_cap" in value and value["output_cap"] < 1024:
            raise LdrError(f"{where}: PROOF output_cap must be at least 1024 bytes")
        return value
    return {}


_SEEN: dict[str, tuple[tuple[int, int], Proof]] = {}


def load_proof(path: Path) -> Proof:
    """The proof in ``path``; unchanged files (same mtime and size) are not parsed again."""
    path = Path(path)
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    seen = _SEEN.get(str(path))
    if seen is not None and seen[0] == stamp:
        return seen[1]
    proof = _parse(path)
    _SEEN[str(path)] = (stamp, proof)
    return proof


def _parse(path: Path) -> Proof:
    raw = path.read_bytes()
    stem = path.stem
    try:
        tree = ast.parse(raw, filename=str(path))
    except SyntaxError as exc:
        # The run will fail and report the traceback; discovery still lists it.
        return Proof(stem, path, script_hash(raw), stem.replace("_", " ").capitalize(), "",
                     problems=(f"{path}:{exc.lineno}: syntax error: {exc.msg}",))
    title, purpose = _docstring(tree, stem)
    options = _options(tree, path)
    return Proof(
        name=stem,
        path=path,
        sha256=script_hash(raw),
        title=title,
        purpose=purpose,
        timeout=float(options.get("timeout", DEFAULT_TIMEOUT)),
        accelerator=options.get("accelerator", "none"),
        parallel=bool(options.get("parallel", False)),
        output_cap=int(options.get("output_cap", DEFAULT_OUTPUT_CAP)),
    )


def discover(proofs_dir: Path) -> dict[str, Proof]:
    """Every proof under ``proofs_dir`` (files starting with ``_`` are not proofs)."""
    proofs: dict[str, Proof] = {}
    if not Path(proofs_dir).is_dir():
        return proofs
    for path in sorted(Path(proofs_dir).glob("*.py")):
        if path.name.startswith("_"):
            continue
        if not NAME.match(path.stem):
            raise LdrError(
                f"{path}: a proof name must be lowercase letters, digits and underscores "
                "(it becomes an anchor and a Python identifier); rename the file"
            )
        proofs[path.stem] = load_proof(path)
    return proofs
