"""Publishing the site's own files by hard link instead of writing each one again.

MkDocs empties the site folder and writes every file anew on each build. A finished series
publishes several hundred files of its own (each proof's script, notebook and source page, each
scene, the bundles and fonts), and creating a file costs far more than linking one: on this
project's machines, 0.36 ms against 0.02 ms (``bench_machinery --pieces links`` gives what it
saves in a whole build). So the bytes of each file are kept once in the project's cache, at
``.cache/ldr/shelf/<sha-256 of the bytes>``, and the site gets a hard link to that entry.

Kept safe by these rules:

* An entry is named by the digest of its bytes, never by anything in the data, and it is read
  and compared with the bytes before every link. A tool that rewrote a published file in place
  after the last build (it shares the entry's inode) changed the entry too: the entry is then
  written again, as a new file, and the old one stays with whatever holds it.
* The author's own files (``proofs/``, ``drawings/``) are never linked: the shelf holds a copy,
  so nothing done to the site's files reaches them.
* Where a link cannot be made (the site on another file system, a system without hard links, a
  cache that cannot be written), the file is written into the site as before. One refusal of the
  file system stops the linking for the rest of the build.
* Entries that the last complete build did not link are removed at its end (:meth:`Shelf.prune`).

Knows nothing of MkDocs: a host hands it bytes and a destination.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from pathlib import Path

from build_hooks.config import cache_dir
from build_hooks.core.atomic import write_atomic
from build_hooks.core.safefs import read_fd

FOLDER = "shelf"


class Shelf:
    """The entries of one project's cache that its site's files are linked to."""

    def __init__(self, root: Path, enabled: bool = True):
        self.folder = cache_dir(root) / FOLDER
        self.wanted = self.enabled = enabled
        self.used: set[str] = set()
        self._folders: set[str] = set()  # the site's folders made (or found) by this build
        self.linked = 0
        self.written = 0

    def place(self, body: bytes, dest: Path | str) -> None:
        """Make ``dest`` hold ``body``: a hard link to the shelf's entry for it, or, where no
        link can be made, a file written with those bytes. Whatever was at ``dest`` (a file of
        an earlier build, a symlink) is replaced, never written through."""
        dest = Path(dest)
        folder = os.path.dirname(dest)
        if folder not in self._folders:  # a site of hundreds of files in a few folders
            os.makedirs(folder, exist_ok=True)
            self._folders.add(folder)
        entry = self._entry(body) if self.enabled else None
        if entry is not None:
            try:
                try:
                    os.link(entry, dest, follow_symlinks=False)
                except FileExistsError:  # a dirty build's old file; a symlink goes, not its target
                    with contextlib.suppress(OSError):
                        os.unlink(dest)
                    os.link(entry, dest, follow_symlinks=False)
                self.linked += 1
                return
            except FileExistsError:  # a folder where the file belongs: write_atomic says what it can
                pass
            except OSError:  # another file system, no hard links here, the entry pruned meanwhile
                self.enabled = False
        write_atomic(dest, body)
        self.written += 1

    def _entry(self, body: bytes) -> Path | None:
        """The entry holding exactly ``body``, made (again) where it is missing or differs, or
        is not a regular file (a FIFO is never opened for reading, a symlink never followed)."""
        digest = hashlib.sha256(body).hexdigest()
        entry = self.folder / digest
        self.used.add(digest)
        if _holds(entry, body):
            return entry
        try:
            write_atomic(entry, body)  # over a FIFO, a symlink or an empty folder alike
        except OSError:  # a cache that cannot be written: the site still gets its file
            self.enabled = False
            return None
        return entry

    def prune(self) -> int:
        """Remove the entries that this build did not link (an earlier build's contents);
        the number removed. Call it at the end of a complete build only. A build that was told
        not to link leaves the shelf alone (another setting's builds use it)."""
        removed = 0
        if not self.wanted:
            return 0
        try:
            names = os.listdir(self.folder)
        except OSError:
            return 0
        for name in names:
            if name not in self.used and not name.startswith("."):  # a write under way
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / name)
                    removed += 1
        return removed


def _holds(entry: Path, body: bytes) -> bool:
    """Whether ``entry`` is a regular file (not a symlink) with exactly these bytes."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(entry, flags)
    except OSError:  # missing, a symlink (ELOOP), unreadable
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(body):
            return False
        return read_fd(fd, len(body)) == body  # one byte more than the body: a file that grew
    except OSError:
        return False
    finally:
        os.close(fd)


__all__ = ["FOLDER", "Shelf"]
