"""Put the downloads into the site by hard link, from private copies kept between builds.

MkDocs empties the site folder before every build and copies each file again: at the size of
the whole series that is three hundred scripts, notebooks, scenes, fonts and stylesheets, and
creating a file costs ten to fifty times as much as linking one. So each published file gets
a private copy under ``.cache/ldr/site-copies/files/<uri>``, made once, and the site gets a
hard link to that copy.

Never to the author's own file or to another cache's entry: a tool that later edits the site
in place (a minifier, a deploy step) would edit them too. It can edit the private copy, and
that is noticed: the manifest keeps each copy's ``(mtime_ns, size, inode)`` as it was made and
the source's as it was copied, and a copy whose stamp moved, or whose source's did, is made
again (a new file, renamed over the old one: the site that was edited keeps its edit). Where
a link cannot be made (another file system, as under `mkdocs serve`'s temporary site) the
caller copies as before. The manifest is written atomically; a torn one reads as empty.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from .cache import file_stamp, is_racy, write_atomic

MANIFEST = "manifest.json"


class SiteCopies:
    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.files = self.folder / "files"
        self._manifest: dict[str, list] | None = None
        self._placed: set[str] = set()
        self._folders: set[str] = set()  # site folders made during this build
        self._changed = False

    @classmethod
    def for_project(cls, root: Path) -> "SiteCopies":
        return cls(Path(root) / ".cache" / "ldr" / "site-copies")

    def manifest(self) -> dict[str, list]:
        if self._manifest is None:
            try:
                data = json.loads((self.folder / MANIFEST).read_text(encoding="utf-8"))
                valid = isinstance(data, dict) and all(
                    isinstance(v, list) and len(v) == 2 and all(isinstance(s, list) and len(s) == 3 for s in v)
                    for v in data.values())
            except (OSError, ValueError):
                data, valid = {}, False
            self._manifest = data if valid else {}
        return self._manifest

    def copy_of(self, source: Path, uri: str) -> Path | None:
        """The private copy of ``source`` published at ``uri``, made again if either moved;
        None when it cannot be made (a read-only checkout)."""
        copy = self.files / uri
        entry = self.manifest().get(uri)
        source_stamp = file_stamp(source)
        if source_stamp is None:
            return None
        if (entry is None or entry[0] != list(source_stamp) or list(file_stamp(copy) or ()) != entry[1]
                or is_racy(source_stamp)):  # saved just now: it may change again unseen (cache.py)
            try:
                write_atomic(copy, Path(source).read_bytes())
                made = file_stamp(copy)
            except OSError:
                return None
            if made is None:
                return None
            self.manifest()[uri] = [list(source_stamp), list(made)]
            self._changed = True
        self._placed.add(uri)
        return copy

    def place(self, source: Path, uri: str, dest: str | os.PathLike) -> bool:
        """Hard-link ``dest`` to the private copy of ``source``; False when the caller must copy."""
        copy = self.copy_of(Path(source), uri)
        if copy is None:
            return False
        try:
            folder = os.path.dirname(dest)
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            try:
                os.link(copy, dest)
            except FileExistsError:  # a dirty build's old file: replaced, never written through
                os.unlink(dest)
                os.link(copy, dest)
            except FileNotFoundError:  # the site folder was emptied since it was made
                os.makedirs(folder, exist_ok=True)
                os.link(copy, dest)
        except OSError:
            return False
        return True

    def save(self) -> None:
        """Write the manifest and remove the copies no build placed since the last save."""
        manifest = self.manifest()
        for uri in [u for u in manifest if u not in self._placed]:
            del manifest[uri]
            with contextlib.suppress(OSError):
                (self.files / uri).unlink()
            self._changed = True
        self._placed, self._folders = set(), set()
        if not self._changed:
            return
        with contextlib.suppress(OSError):
            write_atomic(self.folder / MANIFEST, json.dumps(manifest, sort_keys=True).encode())
            self._changed = False
