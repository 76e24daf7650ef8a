"""What a directive handler receives: the project, the page, and read access to proof records.

Every fence handler has the signature ``render_fence(options: dict, ctx: Context) -> str``.
``options`` is the fence body parsed as YAML: a mapping stays a mapping; a bare scalar
becomes ``{"arg": scalar}``. A handler raises :class:`build_hooks.core.errors.DirectiveError`
for bad input; the caller adds the page and line to the message.

A host fills in what it knows (the plugin knows every page and where each card is); a handler
run without a host (a test, plain Python-Markdown) gets the stated fallbacks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from build_hooks.config import Layout
from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.records import ProofData

if TYPE_CHECKING:
    from build_hooks.proofs.sources import Quote
    from build_hooks.run.library import Library

Report = Callable[[str, str, str, "str | None"], None]
"""``report(level, message, needle, fence)``: a warning or note located at the fence's line."""


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
    layout: Layout | None = None
    """Where proofs, records and drawings live (default: ``Layout.at(root)``; see config.py)."""
    library: Library | None = None
    """The build's proofs and records (default: none; the handlers that need it make one)."""
    pages: list[tuple[str, str, str]] | None = None
    """Every page of the site as ``(source, url, markdown)`` (default: read from the pages' folder)."""
    page_url: str | None = None
    """The current page's URL (default: guessed from its source path)."""
    card_link: Callable[[str], str] | None = None
    """Proof name -> a link to its card on whichever page shows it (default: ``#proof-NAME``)."""
    reporter: Report | None = None
    """Where a handler's warnings go (default: the ``build_hooks`` logger)."""
    quoted: Callable[[dict, Quote], None] | None = None
    """Told of each source quote rendered, for the build's quotes file (default: nobody)."""
    widget_proofs: dict[str, str] = field(default_factory=dict)
    """Which proof each registered widget reads when its fence names none (the proofs index and
    the exercises count those uses)."""

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

    def card_href(self, name: str) -> str:
        """A browser link to a proof's card."""
        return self.card_link(name) if self.card_link is not None else f"#proof-{name}"

    def report(self, level: str, message: str, needle: str, fence: str | None = None) -> None:
        """A warning (``level`` "warning") or note ("info") about this fence."""
        if self.reporter is not None:
            self.reporter(level, message, needle, fence)
        else:
            logging.getLogger("build_hooks").log(logging.INFO if level == "info" else logging.WARNING, message)

    def site_path(self, path: str) -> str:
        """A link from the current page to ``path`` (relative to the site root)."""
        return f"{self.base_url}{path.lstrip('/')}"
