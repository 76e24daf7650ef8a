"""The directive memo: a fence's HTML kept between builds, keyed by everything it reads.

A directive declares what its HTML depends on besides its body (``reads`` in registry.py). A
fence's key is its name and body, the page and its URL, the site's card map, the pinned torch,
the widget modules' code, and a digest of each input the directive reads, taken once per build:

* ``records``: every file of the proofs' folder and of the store (a proof's script or helper
  changes what its card says even before it runs again), but for ``history``: the records of
  other torch versions (``_history/``) and the source quotes kept of them (``_quotes/``, but
  the pinned torch's own file, which a build writes after its pages);
* ``pages``: every page's source path, URL and Markdown;
* ``torch``: the installed torch (its version and where it is), for source quotes;
* ``drawings`` and ``data``: every file of those folders.

Digests are of content, not of times (a checkout or a copy keeps its entries). An entry lives
in the text cache (core/cache.py, namespace ``directives``): sealed under this package's code,
validated when read, and a miss on any doubt. A hit replays what the fence told the build (its
source quotes, for the quotes file); a fence whose rendering reported a warning or failed is
never kept, so that its message comes again on every build until it is fixed.

It pays: on this repository's site a warm build spends most of what it adds to plain
mkdocs-material rendering the same fences again (README, "Machinery that pays").
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from build_hooks.config import Layout
from build_hooks.core.cache import TextCache, key_of
from build_hooks.core.safefs import read_fd
from build_hooks.proofs.sources import Quote, package_dir
from build_hooks.store.history import HISTORY_DIR
from build_hooks.store.quotestore import QUOTES_DIR

NAMESPACE = "directives"
_SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints"}


@dataclass(frozen=True)
class Entry:
    parts: tuple[str, ...]
    """The fence's HTML, cut as site.defer.split cuts it."""
    quotes: tuple[tuple[str, Quote], ...] = ()
    """The source quotes it rendered, by their quotes-file key (quotestore.key_of)."""

    def to_json(self) -> dict:
        return {"parts": list(self.parts), "quotes": [[key, asdict(found)] for key, found in self.quotes]}

    @classmethod
    def of(cls, body: object) -> Entry | None:
        """The entry ``to_json`` made, or None for anything of another shape."""
        try:
            parts = body["parts"]  # type: ignore[index]
            if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
                return None
            quotes = []
            for key, fields in body["quotes"]:  # type: ignore[index]
                found = Quote(**{**fields, "lines": tuple(fields["lines"])})
                if not (isinstance(key, str) and isinstance(found.path, str) and isinstance(found.torch, str)
                        and isinstance(found.repo, (str, type(None))) and type(found.first) is int
                        and type(found.last) is int and all(isinstance(x, str) for x in found.lines)):
                    return None
                quotes.append((key, found))
            return cls(tuple(parts), tuple(quotes))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def _whole(path: str) -> bytes:
    """A file's bytes in the fewest system calls (a digest reads every proof and record each
    build), whatever its size: a digest must see a change in any file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        return read_fd(fd)
    finally:
        os.close(fd)


def tree_digest(folder: Path, skip: Iterable[Path] = ()) -> str:
    """The names and bytes of every regular file under ``folder`` (symlinks, FIFOs and the
    ``skip`` folders and files left out), in a stable order."""
    digest = hashlib.sha256()
    skipped = {os.path.abspath(p) for p in skip}
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and os.path.join(top, d) not in skipped)
        for name in sorted(files):
            path = os.path.join(top, name)
            if path in skipped:
                continue
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):  # a symlink, a FIFO, a folder
                    continue
                data = _whole(path)
            except OSError:
                data = b"\0unreadable"
            digest.update(os.path.relpath(path, folder).encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def torch_digest() -> str:
    """The installed torch, found without importing it: where it is, its version file's bytes."""
    where = package_dir("torch")
    if where is None:
        return "no torch"
    try:
        version = (where / "version.py").read_bytes()
    except OSError:
        version = b""
    return key_of(str(where), version)


def module_digest(names: Iterable[str]) -> str:
    """The code of the widget modules a site names: a package's every file (its templates and
    data too, as :func:`tree_digest` reads them), else the module's own file."""
    parts = []
    for name in names:
        spec = importlib.util.find_spec(name)
        origin = Path(spec.origin) if spec is not None and spec.origin else None
        if origin is None:
            parts.append(f"{name}=?")
        elif origin.name == "__init__.py":
            parts.append(f"{name}={tree_digest(origin.parent)}")
        else:
            try:
                parts.append(f"{name}={key_of(origin.read_bytes())}")
            except OSError:
                parts.append(f"{name}=unreadable")
    return key_of(*parts)


class Memo:
    """The fences' HTML of earlier builds: one entry of the text cache (namespace ``directives``)
    per page, holding the entries of the fences it had when last converted. A page's entries are
    read on its first fence and written back once it is converted (:meth:`flush`), with only the
    fences it still has."""

    def __init__(self, root: Path, layout: Layout):
        self.root, self.layout = root, layout
        self.cache = TextCache.for_project(root, NAMESPACE, ".json")  # shape checked once, in _open
        self._inputs: dict[str, str] = {}
        self._common: str | None = None
        self._pin: str | None = None
        self._page: tuple[str, str] | None = None  # (page, URL) whose entries are loaded
        self._kept: dict[str, object] = {}  # what the page's entry held
        self._used: dict[str, object] = {}  # what this conversion of the page found or made

    def begin_build(self) -> None:
        """Forget the inputs' digests: files may have changed since the last build."""
        self.flush()
        self._inputs.clear()
        self._common = None

    def _input(self, what: str, pages: Callable[[], object]) -> str:
        found = self._inputs.get(what)
        if found is not None:
            return found
        results = self.layout.results
        older = [results / HISTORY_DIR, results / QUOTES_DIR]  # other versions' runs; quotes kept
        if what == "records":
            found = tree_digest(self.layout.proofs, skip=older)
            if not results.is_relative_to(self.layout.proofs):
                found = key_of(found, tree_digest(results, skip=older))
        elif what == "history":  # the pin's own quotes file is what this build writes, not reads
            found = key_of(tree_digest(older[0]), tree_digest(older[1], skip=[older[1] / f"{self._pin}.json"]))
        elif what == "pages":
            found = key_of(json.dumps(pages(), default=str))
        elif what == "torch":
            found = torch_digest()
        elif what == "drawings":
            found = tree_digest(self.layout.drawings)
        elif what == "data":
            found = tree_digest(self.root / "data")
        else:
            raise ValueError(f"unknown input {what!r}")
        self._inputs[what] = found
        return found

    def key(self, fence: str, reads: Iterable[str], source: str, common: Callable[[], str],
            pages: Callable[[], object], pin: str | None) -> str:
        """The key of one fence: its body and everything it reads (the page is the entry's);
        ``common``: what every fence depends on (it holds the pin)."""
        return key_of(fence, source, self.inputs(reads, common, pages, pin))

    def inputs(self, reads: Iterable[str], common: Callable[[], str], pages: Callable[[], object],
               pin: str | None) -> str:
        """A digest of what every fence depends on and of each input in ``reads``, as this build
        found them (the whole page's key in hosts/mkdocs/pagecache.py is made of it too)."""
        if self._common is None:
            self._common = common()
        self._pin = pin
        return key_of(self._common, *(f"{what}={self._input(what, pages)}" for what in sorted(set(reads))))

    def _open(self, page: str | None, page_url: str | None) -> None:
        where = (str(page), str(page_url))
        if self._page == where:
            return
        self.flush()
        self._page = where
        self._kept, self._used = _entries(self.cache.get(_page_key(where))), {}

    def get(self, key: str, page: str | None, page_url: str | None) -> Entry | None:
        self._open(page, page_url)
        body = self._kept.get(key)
        entry = None if body is None else Entry.of(body)
        if entry is not None:
            self._used[key] = body
        return entry

    def put(self, key: str, entry: Entry, page: str | None, page_url: str | None) -> None:
        self._open(page, page_url)
        self._used[key] = entry.to_json()

    def flush(self) -> None:
        """Write the page's entries back, if they are not what it held already."""
        if self._page is not None and self._used != self._kept:
            self.cache.put(_page_key(self._page), json.dumps({"entries": self._used}))
        self._page, self._kept, self._used = None, {}, {}


def _page_key(where: tuple[str, str]) -> str:
    return key_of("page", *where)


def _entries(text: str | None) -> dict[str, object]:
    """A page's entries as :meth:`Memo.flush` wrote them; empty for none, or for anything of
    another shape (parsed once: the text cache is told no check of its own)."""
    try:
        entries = json.loads(text)["entries"] if text is not None else {}
    except (ValueError, TypeError, KeyError):
        return {}
    if not isinstance(entries, dict) or not all(isinstance(key, str) for key in entries):
        return {}
    return entries
