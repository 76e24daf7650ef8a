"""What a directive handler receives: the project, the page, and read access to proof records.

Every fence handler has the signature ``render_fence(options: dict, ctx: Context) -> str``.
``options`` is the fence body parsed as YAML: a mapping stays a mapping; a bare scalar
becomes ``{"arg": scalar}``. A handler raises :class:`build_hooks.core.errors.DirectiveError`
for bad input; the caller adds the page and line to the message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DirectiveError
from .layout import Layout


@dataclass(frozen=True)
class ProofData:
    """One proof's recorded result for one device class, as pages and instruments see it.

    ``provenance`` keys: proof, torch, device_class (cpu|cuda|mps), device (CPU or GPU model),
    python, os, measured_at (ISO date), wall_s, status (ok|failed|...), stale (bool).
    """

    name: str
    data: dict
    provenance: dict
    stdout: str = ""
    stderr: str = ""


@dataclass
class Context:
    root: Path
    """The project root (holds docs/, proofs/, drawings/, theme/)."""
    page: str | None = None
    """The page being rendered, relative to docs/ (``None`` outside a build)."""
    base_url: str = ""
    """Relative prefix from the page to the site root, e.g. ``"../"``; prepend it to site paths."""
    lookup: Callable[[str], dict[str, ProofData]] | None = None
    """Proof name -> {device_class: ProofData}; raises DirectiveError for an unknown proof."""
    extra: dict = field(default_factory=dict)
    layout: Layout | None = None
    """Where proofs, records and drawings live (default: ``Layout.at(root)``; see layout.py)."""

    @property
    def folders(self) -> Layout:
        return self.layout if self.layout is not None else Layout.at(self.root)

    def records(self, name: str) -> dict[str, ProofData]:
        """Every recorded device class of a proof (at least one entry)."""
        if self.lookup is None:
            raise DirectiveError(f"no proof records are available to look up {name!r}")
        found = self.lookup(name)
        if not found:
            raise DirectiveError(f"proof {name!r} has no recorded result yet; run `ldr run {name}`")
        return found

    def proof(self, name: str) -> ProofData:
        """The primary record: an accelerator's if one was recorded, else the CPU one."""
        found = self.records(name)
        for device_class in ("cuda", "mps", "cpu"):
            if device_class in found:
                return found[device_class]
        return next(iter(found.values()))

    def site_path(self, path: str) -> str:
        """A link from the current page to ``path`` (relative to the site root)."""
        return f"{self.base_url}{path.lstrip('/')}"
