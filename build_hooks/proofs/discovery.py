"""Finding proofs: ``proofs/*.py`` scripts, their docstring and their ``PROOF`` options.

A proof declares options as a literal dict, read with ``ast`` and never imported::

    PROOF = {"timeout": 60, "accelerator": "prefer", "parallel": False}

A proof may import local helpers, sibling ``proofs/_*.py`` modules (``from _common import
timer``). They are found with ``ast`` too (recursively through helpers) and their hashes are
part of the proof's freshness; each is re-hashed whenever its own file changes.

A proof needs torch when it, or a helper it imports, imports torch (imports.py's
``imports_torch``, the one rule: ``import torch``, ``from torch.x import y``, or a package of
torch's, anywhere in the module). Only such a proof needs the pin, runs in a proof host that imported torch, and
has the torch version in its record; any other proof is plain Python ("needs nothing but
Python"), whatever torch the site pins.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from dataclasses import dataclass, field, replace
from pathlib import Path

from build_hooks.core.cache import file_stamp
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, check_regular, read_bytes
from build_hooks.proofs import book
from build_hooks.proofs.imports import imports_torch, local_imports

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
ACCELERATOR_MODES = ("none", "prefer", "require")
DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 86_400
DEFAULT_OUTPUT_CAP = 1 << 20
OPTION_TYPES = {
    "timeout": (int, float),
    "accelerator": (str,),
    "parallel": (bool,),
    "output_cap": (int,),
    "allow_unmeasured": (bool,),
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
    allow_unmeasured: bool = False
    problems: tuple[str, ...] = field(default=())
    imports: tuple[tuple[str, int, str], ...] = field(default=())  # (helper module, line, text)
    helpers: tuple[tuple[str, str], ...] = field(default=())  # (file name, sha256), sorted
    torch: bool = False  # it, or a helper it imports, imports torch (imports_torch)
    own_torch: bool = False  # the script itself imports torch
    text: str | None = field(default=None, repr=False, compare=False)
    """The script as read when it was parsed (the bytes ``sha256`` names), decoded."""

    @property
    def helper_hashes(self) -> dict[str, str]:
        return dict(self.helpers)

    @property
    def source(self) -> str:
        """The script's text: the one parsed (a notebook, a source page and a card all show the
        bytes the record's hash names, read once), or read now for a Proof made by hand."""
        if self.text is not None:
            return self.text
        return read_script(self.path).decode("utf-8", errors="replace")


def script_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_script(path: Path) -> bytes:
    """A proof's or helper's bytes: only a regular file inside its own folder (core/safefs.py:
    a symlink leaving ``proofs/``, a FIFO or a device raises UnsafeFile, naming it and the fix)."""
    return read_bytes(path, inside=Path(path).parent, limit="script")


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
            if not isinstance(item, OPTION_TYPES[key]) or (bool not in OPTION_TYPES[key] and isinstance(item, bool)):
                kinds = " or ".join(t.__name__ for t in OPTION_TYPES[key])
                raise LdrError(f"{where}: PROOF option {key!r} must be {kinds}, not {item!r}")
        if value.get("accelerator", "none") not in ACCELERATOR_MODES:
            raise LdrError(
                f"{where}: PROOF accelerator must be one of {', '.join(ACCELERATOR_MODES)}, "
                f"not {value['accelerator']!r}"
            )
        if "timeout" in value and not 0 < value["timeout"] <= MAX_TIMEOUT:  # 1e999 is inf, 1e300 overflows a clock
            raise LdrError(f"{where}: PROOF timeout must be a positive number of seconds, at most "
                           f"{MAX_TIMEOUT:,} (a day), not {value['timeout']!r}")
        if "output_cap" in value and value["output_cap"] < 1024:
            raise LdrError(f"{where}: PROOF output_cap must be at least 1024 bytes")
        return value
    return {}


_SEEN: dict[str, tuple[tuple[int, int, int], Proof]] = {}
_HELPERS: dict[str, tuple[tuple[int, int, int] | None, str, tuple[tuple[str, int, str], ...], bool]] = {}


def _helper(path: Path) -> tuple[str, tuple[tuple[str, int, str], ...], bool]:
    """A helper's sha256, its own local imports and whether it imports torch, parsed again
    only when it changes."""
    stamp = file_stamp(path)
    seen = _HELPERS.get(str(path))
    if seen is not None and seen[0] == stamp:
        return seen[1], seen[2], seen[3]
    raw = read_script(path)
    try:
        tree = ast.parse(raw, filename=str(path))
        imports = local_imports(tree, raw.decode("utf-8", "replace").splitlines())
        torch = imports_torch(tree)
    except SyntaxError:
        imports, torch = (), False  # the proof's run fails and reports the traceback
    digest = script_hash(raw)
    _HELPERS[str(path)] = (stamp, digest, imports, torch)
    return digest, imports, torch


def _resolve_helpers(proof: Proof) -> Proof:
    """The proof with the hashes of every helper it imports, directly or through helpers."""
    folder = proof.path.parent
    hashes: dict[str, str] = {}
    torch = proof.own_torch
    pending = [(proof.path, item) for item in proof.imports]
    while pending:
        importer, (module, line, text) = pending.pop(0)
        name = f"{module}.py"
        if name in hashes:
            continue
        path = folder / name
        try:
            check_regular(path, inside=folder)
        except UnsafeFile as exc:
            raise LdrError(
                f"proofs/{importer.name}:{line}: `{text}` imports the local helper {module}, but "
                f"proofs/{name} is {exc.what}: it is neither read, run nor published; fix: "
                f"{exc.fix} (proof {proof.name})"
            ) from None
        except OSError:
            raise LdrError(
                f"proofs/{importer.name}:{line}: `{text}` imports the local helper {module}, but "
                f"there is no proofs/{name}; fix: add proofs/{name} beside the proof (helpers "
                f"are proofs/_*.py modules), or remove the import (proof {proof.name})"
            ) from None
        hashes[name], more, uses = _helper(path)
        torch = torch or uses
        pending.extend((path, item) for item in more)
    helpers = tuple(sorted(hashes.items()))
    if helpers == proof.helpers and torch == proof.torch:
        return proof
    return replace(proof, helpers=helpers, torch=torch)


def load_proof(path: Path) -> Proof:
    """The proof in ``path``; unchanged files (same mtime, size and inode) are not read again
    in this process, but the helpers it imports are checked (and re-hashed when they changed)
    every time."""
    path = Path(path)
    stamp = file_stamp(path)
    if stamp is None:
        raise LdrError(f"{path}: the proof cannot be read; fix: check that the file exists and is readable")
    seen = _SEEN.get(str(path))
    if seen is None or seen[0] != stamp:
        seen = (stamp, _parse(path))
    proof = _resolve_helpers(seen[1]) if seen[1].imports else seen[1]
    _SEEN[str(path)] = (stamp, proof)
    return proof


def _parse(path: Path) -> Proof:
    """A proof read from its file (``ast``, unless the proof book holds its bytes: book.py; kept
    in memory by the caller while the file is unchanged)."""
    raw = read_script(path)
    sha = script_hash(raw)
    found = book.key(sha, path.stem)
    parsed = book.recall(found)
    if parsed is None:
        read = _read(path, raw, path.stem)
        if isinstance(read, Proof):
            return read  # a syntax error: not kept, so it is found and reported on every build
        parsed = read
        book.learn(found, parsed)
    return _proof(path, raw, sha, path.stem, parsed)


def _check_utf8(path: Path, raw: bytes) -> None:
    """A proof is shown on its page and published as a notebook as UTF-8 text: one in another
    encoding (a coding line naming latin-1, say, which Python honours) is an error naming it."""
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(raw).readline)[0]
    except SyntaxError:
        return  # an unknown coding line: ast reports it, as a syntax error of the proof
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        where = f"{path}:{line}: not UTF-8 text (byte {raw[exc.start]:#04x})"
    else:
        if encoding in ("utf-8", "utf-8-sig"):
            return
        where = f"{path}: its coding line names {encoding}"
    raise LdrError(f"{where}; a proof is shown and published as UTF-8 text; fix: save it as UTF-8 "
                   "and remove any coding line that names another encoding")


def _read(path: Path, raw: bytes, stem: str) -> book.Parsed | Proof:
    """What the proof's syntax tree says; a Proof naming the problem for a syntax error (a bad
    ``PROOF`` raises, naming the fix)."""
    _check_utf8(path, raw)
    try:
        tree = ast.parse(raw, filename=str(path))
    except SyntaxError as exc:
        # The run will fail and report the traceback; discovery still lists it.
        return Proof(stem, path, script_hash(raw), stem.replace("_", " ").capitalize(), "",
                     problems=(f"{path}:{exc.lineno}: syntax error: {exc.msg}",),
                     text=raw.decode("utf-8", errors="replace"))
    title, purpose = _docstring(tree, stem)
    lines = raw.decode("utf-8", errors="replace").splitlines()
    return book.Parsed(title, purpose, _options(tree, path), local_imports(tree, lines), imports_torch(tree))


def _proof(path: Path, raw: bytes, sha: str, stem: str, parsed: book.Parsed) -> Proof:
    options = parsed.options
    return Proof(
        name=stem,
        path=path,
        sha256=sha,
        title=parsed.title,
        purpose=parsed.purpose,
        timeout=float(options.get("timeout", DEFAULT_TIMEOUT)),
        accelerator=options.get("accelerator", "none"),
        parallel=bool(options.get("parallel", False)),
        output_cap=int(options.get("output_cap", DEFAULT_OUTPUT_CAP)),
        allow_unmeasured=bool(options.get("allow_unmeasured", False)),
        imports=parsed.imports,
        torch=parsed.own_torch,
        own_torch=parsed.own_torch,
        text=raw.decode("utf-8", errors="replace"),
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
        try:
            check_regular(path, inside=proofs_dir)
        except UnsafeFile:
            continue  # not a proof (never read nor run): downloads.py names it and the fix, as a build warning
        except OSError:
            pass  # load_proof says it cannot be read
        proofs[path.stem] = load_proof(path)
    return proofs


def helper_changes(recorded: dict[str, str], today: dict[str, str]) -> list[tuple[str, str]]:
    """(helper file, how it differs) between the helper hashes a record holds and today's:
    ``"new"`` (imported today, not when recorded), ``"gone"`` (no longer imported) or
    ``"changed"`` (another SHA-256), by name."""
    out = []
    for name in sorted(set(recorded) | set(today)):
        if name not in recorded:
            out.append((name, "new"))
        elif name not in today:
            out.append((name, "gone"))
        elif recorded[name] != today[name]:
            out.append((name, "changed"))
    return out
