"""The one way this package writes a file: whole, at once, never through what was there.

:func:`write_atomic` writes a temporary file beside the target and renames it over the target,
so a reader sees the old file or the new one, never half of one; a symlink or a FIFO at the
target is replaced, never written through (an empty folder there is removed first). The file
gets the usual mode (0666 less the umask), not mkstemp's private 0600. ``sync=True`` also
flushes it to the disk before the rename (records, which git keeps). A write that fails leaves
no temporary file and raises OSError naming the target, even where the system named none (a
full disk seen at a flush or a close).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

TMP_SUFFIX = ".tmp"
_UMASK: list[int] = []


def _umask() -> int:
    if not _UMASK:  # read once: os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
        _UMASK.append(mask)
    return _UMASK[0]


def write_atomic(path: Path | str, data: bytes | str, *, sync: bool = False) -> Path:
    """Replace ``path`` with ``data`` (text is written as UTF-8 with ``\\n`` line ends)."""
    path = Path(path)
    body = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=TMP_SUFFIX, dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        try:
            os.replace(tmp, path)  # over a file, a FIFO or a symlink alike
        except IsADirectoryError:  # an empty folder where the file belongs (rmdir leaves any other)
            os.rmdir(path)
            os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    return path


__all__ = ["TMP_SUFFIX", "write_atomic"]
