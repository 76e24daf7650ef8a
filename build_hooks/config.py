"""Where a project keeps its proofs, their records and its drawings, and how it pins torch.

A site names them in its configuration (the MkDocs plugin's ``proofs_dir``, ``drawings_dir``,
``results_dir`` and ``torch`` options); relative folders are taken from the site's folder (the
one holding mkdocs.yml). The defaults are this series' layout: ``proofs/``, ``drawings/`` and
``proofs/_results/``, with the pin read as pin.py says. On the site the files are published at
the same URLs whatever the folders: ``proofs/<name>.py`` and ``drawings/<name>.excalidraw``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from build_hooks.core.errors import LdrError

CACHE_DIR = (".cache", "ldr")  # under the project root: what builds keep to save work, never committed
RESULTS_DIR = "_results"  # inside the proofs folder, unless results_dir says otherwise


def cache_dir(root: Path | str) -> Path:
    """The project's ``.cache/ldr``: the one place that spells it."""
    return Path(root).joinpath(*CACHE_DIR)


@dataclass(frozen=True)
class Layout:
    root: Path
    proofs: Path
    drawings: Path
    results: Path
    torch: object = None
    """The configured pin (``"2.14.1"``), or None: pin.py then reads pyproject.toml, requirements.txt."""
    docs: Path | None = None
    """The pages' folder (MkDocs' ``docs_dir``; default ``docs/``): see :attr:`pages`."""

    @classmethod
    def at(cls, root: Path, proofs_dir: str | Path | None = None, drawings_dir: str | Path | None = None,
           results_dir: str | Path | None = None, torch: object = None,
           docs_dir: str | Path | None = None) -> Layout:
        root = Path(root).resolve()
        proofs = _folder(root, proofs_dir or "proofs", "proofs_dir")
        drawings = _folder(root, drawings_dir or "drawings", "drawings_dir")
        results = _folder(root, results_dir, "results_dir") if results_dir else proofs / RESULTS_DIR
        return cls(root, proofs, drawings, results, torch, _folder(root, docs_dir or "docs", "docs_dir"))

    @property
    def pages(self) -> Path:
        """The folder of the site's Markdown pages."""
        return self.docs if self.docs is not None else self.root / "docs"

    @property
    def cache(self) -> Path:
        """``.cache/ldr`` of the project: what builds keep to save work (never committed)."""
        return cache_dir(self.root)

    def page(self, source: str) -> str:
        """How messages and reports name a page given by its path under the pages' folder."""
        return self.shown(self.pages / source)

    def shown(self, path: Path) -> str:
        """A path as messages print it: relative to the project when it lies inside it."""
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def _folder(root: Path, value: str | Path, option: str) -> Path:
    if not isinstance(value, (str, Path)) or not str(value).strip():
        raise LdrError(f"the {option} option is {value!r}; fix: give a folder, relative to {root} or absolute")
    # Lexically absolute, not resolved: a folder reached through a symlink stays inside the project.
    return Path(os.path.normpath(root / Path(str(value).strip()).expanduser()))
