"""A file the machinery could not write, as one line naming the path and the fix.

A full disk, a read-only checkout or a cache folder this user may not write are not bugs:
``ldr`` prints ``ldr: error: <path>: <what>; fix: ...`` and the MkDocs plugin fails the build
with the same line, instead of a traceback. Nothing recorded is lost on the way: records
and caches are written to a temporary file and then renamed over the old one (store.py,
cache.py), so a write that fails leaves the old file as it was.
"""

from __future__ import annotations

import errno
import os

from build_hooks.config import CACHE_DIR
from build_hooks.core.textsafe import printable

CACHE = os.path.join(*CACHE_DIR)
FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
READ_ONLY = (errno.EROFS,)
REFUSED = (errno.EACCES, errno.EPERM)


def _owner(path: str) -> str:
    """" (owned by uid 1000)" when ``path`` (or its folder) belongs to another user."""
    for candidate in (path, os.path.dirname(path)):
        try:
            owner = os.stat(candidate).st_uid
        except OSError:
            continue
        return f" (owned by uid {owner}, not {os.getuid()})" if owner != os.getuid() else ""
    return ""


def _written(exc: OSError) -> str | None:
    """The file a write was for when the error names none (a full disk seen by a flush or a
    close): the ``path`` of the innermost frame that has one (every atomic writer names the
    file it replaces ``path``)."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        candidate = tb.tb_frame.f_locals.get("path")
        if isinstance(candidate, (str, os.PathLike)):
            found = os.fspath(candidate)
        tb = tb.tb_next
    return found


def explain(exc: OSError, where: str | None = None) -> str:
    """``exc`` as ``<path>: <strerror>; fix: ...``. ``where`` names the place when the error
    carries no file name (a full disk reported by a flush, say) and no writer's frame does."""
    path = exc.filename if exc.filename is not None else (_written(exc) or where)
    path = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else path
    what = exc.strerror or str(exc) or type(exc).__name__
    cache = path is not None and CACHE in os.path.normpath(str(path))
    if exc.errno in FULL:
        fix = ("free space on that disk, then run again; the record or file being written was "
               "left as it was before")
    elif exc.errno in READ_ONLY:
        fix = ("run in a writable copy of the project (records go to the results folder, caches to "
               ".cache/ldr); to build a read-only checkout from its records, set the plugin's "
               "`run: false` (LDR_RUN=false where mkdocs.yml reads it) and build to a writable "
               "folder: `mkdocs build -d /a/writable/folder`")
    elif exc.errno in REFUSED:
        owner = _owner(str(path)) if path is not None else ""
        fix = (f"make it writable for this user{owner}: `chown` it, or `chattr -i` an immutable file")
        if cache:
            fix += ", or delete .cache/ldr (it only holds caches; the next build makes it again)"
    else:
        fix = "check that the folder exists and that this user can write to it"
    shown = f"{path}: " if path is not None else ""
    return printable(f"{shown}{what}; fix: {fix}")
