"""Reading files the build did not write: only regular files, only inside their folder, bounded.

Every file the build reads on an author's behalf (a scene, a proof or its helper, a ``data/``
file, a record, a shard, a cache entry) or publishes into the site comes through here:

* a symlink is followed only while its target stays inside the folder it was found in (the
  folder's own real path), so ``drawings/env.excalidraw -> /proc/self/environ`` or
  ``-> ../.git/config`` is refused;
* a FIFO, a socket, a device or a folder is refused without being opened for reading (a FIFO
  is opened non-blocking, so nothing waits on a writer that never comes);
* a read stops one byte past its limit and is refused as too large, so a symlink to
  ``/dev/zero`` or a 5 GB file never fills the memory.

Refusals raise :class:`UnsafeFile` (an :class:`LdrError`) whose message names the path, what it
is, and the fix.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from build_hooks.core.errors import LdrError

MiB = 1024 * 1024
LIMITS = {
    "record": 8 * MiB,      # a result record (stdout is capped at 1 MiB by the runner)
    "scene": 16 * MiB,      # an Excalidraw scene (embedded images make them large)
    "script": 2 * MiB,      # a proof or a helper
    "data": 8 * MiB,        # a data/ file
    "cache": 64 * MiB,      # a cache entry (the caches rewrite anything larger)
    "download": 64 * MiB,   # anything published into the site
}


class UnsafeFile(LdrError):
    """A file the build will not read or publish: outside its folder, not regular, too large."""

    def __init__(self, path: Path | str, what: str, fix: str):
        self.path, self.what, self.fix = Path(path), what, fix
        super().__init__(f"{path}: {what}; fix: {fix}")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def _loop_is_unsafe(call, path: Path, *args):
    """``call(path, *args)``, with a symlink loop (ELOOP) refused as UnsafeFile, not an OSError
    that reads as a missing or unwritable file."""
    try:
        return call(path, *args)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(path, "a symlink loop (it leads, through links, back to itself)",
                             "replace it with a regular file") from None
        raise


_PROC_FD = "/proc/self/fd/"
_O_PATH = getattr(os, "O_PATH", None)
_FAST = _O_PATH is not None and os.path.isdir(_PROC_FD)


def real_path(path: Path | str) -> str:
    """``os.path.realpath(path)``: where ``path`` leads once every symlink is followed.

    Where the kernel can say it (Linux: open with ``O_PATH``, which reads nothing and never
    blocks, then read ``/proc/self/fd/N``), three system calls instead of ``realpath``'s
    Python walk, one ``lstat`` per component of the path (a tenth of its time: a build checks
    hundreds of files). A path that cannot be opened so (missing, a loop, no permission) and
    other systems take ``os.path.realpath``, which says the same.
    """
    if _FAST:
        try:
            fd = os.open(path, _O_PATH | os.O_CLOEXEC)  # type: ignore[operator]
        except OSError:
            return os.path.realpath(path)
        try:
            real = os.readlink(f"{_PROC_FD}{fd}")
        except OSError:
            real = ""
        finally:
            os.close(fd)
        if real.startswith("/") and not real.endswith(" (deleted)"):
            return real
    return os.path.realpath(path)


def _entry_stat(path: Path | str, inside: Path | str | None) -> os.stat_result | None:
    """The ``lstat`` of ``path`` when it is a direct entry of ``inside`` (``inside/name``) and
    not a symlink, which places it inside ``inside`` whatever ``inside`` itself leads to; None
    where that cannot be told so (a deeper path, a symlink, a missing entry): the caller then
    resolves both real paths (``inside`` None: no folder to be inside of, None too). One system
    call instead of the six of two :func:`real_path`."""
    if inside is None:
        return None
    where = os.fspath(path)
    folder, name = os.path.split(where)
    if folder != os.fspath(inside) or name in ("", ".", ".."):
        return None
    try:
        info = os.lstat(where)
    except OSError:
        return None
    return None if stat.S_ISLNK(info.st_mode) else info


def check_inside(path: Path, inside: Path | None) -> Path:
    """``path`` made absolute; raises UnsafeFile when it is, or leads through a symlink to,
    something outside ``inside`` (``inside`` None: no containment asked)."""
    path = Path(path)
    if inside is None or _entry_stat(path, inside) is not None:
        return path
    base = real_path(inside)
    real = real_path(path)
    # both absolute and normalised (no "..", no trailing "/" but for the root itself)
    if real != base and not real.startswith(base if base.endswith("/") else base + "/"):
        how = "a symlink" if os.path.islink(path) else "a path"
        raise UnsafeFile(path, f"{how} that leads outside {inside} (to {real})",
                         f"replace it with a regular file inside {inside}")
    return path


def check_regular(path: Path, inside: Path | None = None) -> os.stat_result:
    """The stat of ``path`` when it is a regular file inside ``inside`` (see :func:`check_inside`);
    raises UnsafeFile otherwise, FileNotFoundError when it does not exist."""
    info = _entry_stat(path, inside)
    if info is None:
        check_inside(path, inside)
        info = _loop_is_unsafe(os.stat, path)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(path, _kind(info.st_mode), "replace it with a regular file")
    return info


def is_regular(path: Path, inside: Path | None = None) -> bool:
    """Whether :func:`check_regular` would accept ``path`` (missing: False)."""
    try:
        check_regular(path, inside)
    except (OSError, UnsafeFile):
        return False
    return True


_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _open_inside(path: Path, inside: Path | None) -> int:
    """A descriptor open for reading on ``path``, which :func:`check_inside` accepted. A direct
    entry of ``inside`` that is no symlink is opened without following one, so that a symlink
    put in its place after the check is refused by the kernel (ELOOP), then checked in full."""
    if _NOFOLLOW and _entry_stat(path, inside) is not None:
        try:
            return os.open(path, _READ | _NOFOLLOW)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
    check_inside(path, inside)
    return _loop_is_unsafe(os.open, path, _READ)


def read_bytes(path: Path, *, inside: Path | None = None, limit: int | str = "download") -> bytes:
    """The bytes of a regular file inside ``inside``, at most ``limit`` bytes (a number, or a
    key of :data:`LIMITS`). Raises UnsafeFile, or OSError as ``open`` does (FileNotFoundError)."""
    size = LIMITS[limit] if isinstance(limit, str) else int(limit)
    path = Path(path)
    fd = _open_inside(path, inside)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(path, _kind(info.st_mode), "replace it with a regular file")
        if info.st_size > size:
            raise UnsafeFile(path, f"{info.st_size:,} bytes, over the limit of {size:,}",
                             "make it smaller")
        data = read_fd(fd, size)
        if len(data) > size:  # it grew while being read
            raise UnsafeFile(path, f"over the limit of {size:,} bytes", "make it smaller")
        return data
    finally:
        os.close(fd)


def read_fd(fd: int, most: int | None = None) -> bytes:
    """What is left to read from the open ``fd``, in ``os.read`` calls of at most 1 MiB (a
    buffered reader would add an ``isatty`` and an ``lseek``): all of it, or with ``most`` at
    most ``most + 1`` bytes, so that the caller can tell a file holding more than ``most``."""
    chunks, total = [], 0
    while most is None or total <= most:
        chunk = os.read(fd, MiB if most is None else min(MiB, most + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_text(path: Path, *, inside: Path | None = None, limit: int | str = "download") -> str:
    """:func:`read_bytes` decoded as UTF-8 (raises UnicodeDecodeError, a ValueError)."""
    return read_bytes(path, inside=inside, limit=limit).decode("utf-8")


__all__ = ["LIMITS", "UnsafeFile", "check_inside", "check_regular", "is_regular", "read_bytes", "read_fd", "read_text",
           "real_path"]
