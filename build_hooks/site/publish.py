"""Publishing files into a folder a site generator copies as it is (Zensical's docs/).

:func:`publish` takes ``(uri, file or bytes)`` pairs, the shape of every file list the site has
(downloads, the package's assets), writes each one at ``<folder>/<uri>`` when its content
differs, and removes what it wrote before that is no longer listed. Its bookkeeping is a dot
file in that folder (:data:`MANIFEST`), which no generator publishes. Knows nothing of MkDocs
or Zensical.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from build_hooks.core.atomic import write_atomic
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, check_inside, is_regular, read_bytes, read_text

Entry = tuple[str, "Path | bytes"]
MANIFEST = ".ldr-published.json"
"""In docs/: the files :func:`publish` wrote there, so that it removes them once they are gone.
Not in .cache/, which ``zensical build --clean`` empties; a dot file neither generator publishes."""


def published(docs_dir: Path) -> set[str]:
    """The uris :func:`publish` last wrote into docs/ (the MkDocs plugin leaves them out). The
    manifest is data: only a list of uris that :func:`publish` could have written is read, so an
    entry like ``../mkdocs.yml`` or ``/home/me/.bashrc`` never names a file to remove."""
    try:
        listed = json.loads(read_text(Path(docs_dir) / MANIFEST, inside=docs_dir, limit="data"))
    except (OSError, ValueError, TypeError, UnsafeFile, RecursionError):
        return set()
    return {uri for uri in listed if plain_uri(uri)} if isinstance(listed, list) else set()


def plain_uri(uri: object) -> bool:
    """Whether ``uri`` is a relative path of plain names (no ``..``, ``.``, empty part, leading
    ``/``, backslash or NUL): what a site's file list holds."""
    return (isinstance(uri, str) and bool(uri) and not uri.startswith("/") and "\\" not in uri
            and "\0" not in uri and all(part not in ("", ".", "..") for part in uri.split("/")))


def _inside(docs_dir: Path, target: Path) -> None:
    """Raise LdrError when ``target`` is, or leads through a symlinked folder to, a place outside
    ``docs_dir``: publishing writes and removes only inside it."""
    try:
        check_inside(target.parent, docs_dir)
    except UnsafeFile as exc:
        raise LdrError(f"{exc.path}: {exc.what}, and the site's files are published only inside "
                       "it; fix: remove it (that folder is generated under Zensical)") from None


def publish(root: Path, docs_dir: Path, entries: list[Entry]) -> list[str]:
    """Write ``entries`` into ``docs_dir`` (where Zensical copies every file it finds into the
    site) and remove what an earlier call wrote that is no longer listed. A file whose content is
    already right is not touched, so a warm build writes nothing. Returns the uris written.

    A file this function did not write is never replaced (unless it already holds the right
    content): an error names it and the fix."""
    root, docs_dir = Path(root), Path(docs_dir)
    before = published(docs_dir)
    wanted: dict[str, Path | bytes] = dict(entries)
    written = []
    for uri, source in sorted(wanted.items()):
        target = docs_dir / uri
        _inside(docs_dir, target)
        # Only a regular file inside its own folder is copied (core/safefs.py); what is there
        # already is compared only when it is one too (never a FIFO, a device or a symlink out).
        content = source if isinstance(source, bytes) else read_bytes(Path(source), inside=Path(source).parent)
        same = is_regular(target, inside=docs_dir) and read_bytes(target, inside=docs_dir) == content
        if os.path.lexists(target) and uri not in before and not same:
            raise LdrError(
                f"{target.relative_to(root) if target.is_relative_to(root) else target}: the site "
                f"publishes {uri} from {_origin(root, source)}, and docs/ has its own file there; "
                "fix: remove or rename the file in docs/ (that folder is generated under Zensical)")
        if same:
            continue
        write_atomic(target, content)  # a new temporary file: never written through a symlink
        written.append(uri)
    for uri in sorted(before - set(wanted)):
        target = docs_dir / uri
        _inside(docs_dir, target)
        if target.is_file():
            target.unlink()
        folder = target.parent
        while folder != docs_dir and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
    if set(wanted) != before:
        manifest = docs_dir / MANIFEST
        write_atomic(manifest, (json.dumps(sorted(wanted), indent=1) + "\n").encode("utf-8"))
    return written


def _origin(root: Path, source: Path | bytes) -> str:
    if isinstance(source, bytes):
        return "generated content"
    path = Path(source)
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
