"""What the plugin does only under ``mkdocs serve``: stale proofs run off the build, on a
background scheduler (run/scheduler.py), and each record they write asks for a rebuild.

The record lands in proofs/_results, which is deliberately not watched. MkDocs 1.6's
LiveReloadServer has no public "rebuild now" call; its watch callback only sets
``_want_rebuild`` under ``_rebuild_cond`` and notifies, and the build loop takes it from there
(waiting ``build_delay``, then rebuilding and bumping the epoch browsers poll). We do exactly
that when both attributes exist: no polling delay and no file written. If a later MkDocs renames
them, we fall back to touching .cache/ldr/serve-rebuild, a file watched for this purpose alone
(one polling interval slower).

A proof that failed is not run again until its script, a helper it imports or its record changes
(run/library.py: a failed record is not stale), so every rebuild would warn about it again: the
loop says each warning about a proof once while those stay as they are (:meth:`first_time`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from build_hooks.run.library import Library
from build_hooks.run.scheduler import Scheduler


class ServeLoop:
    def __init__(self, report: Callable[[str, str], None]):
        self.report = report
        self.scheduler: Scheduler | None = None
        self.server = None
        self.trigger: Path | None = None  # the watched file touched to rebuild (fallback only)
        self._lock = threading.Lock()
        self._missed = False  # a record landed before the server was there
        self._said: set[tuple[str, str]] = set()  # (warning, the proof's inputs): first_time

    def attach(self, server, cache: Path, watched: Iterable[Path]) -> None:
        """on_serve: remember the server, watch the proofs' and drawings' folders (not the
        records' folder inside), and rebuild at once if a run ended during the first build."""
        with self._lock:
            self.server = server
            missed, self._missed = self._missed, False
        if not can_request_rebuild(server):
            self.trigger = cache / "serve-rebuild"
            self.trigger.parent.mkdir(parents=True, exist_ok=True)
            self.trigger.touch()
            server.watch(str(self.trigger), recursive=False)
        if missed:
            self.request_rebuild()
        for path in watched:
            if path.is_dir():
                # Not recursive: records written to proofs/_results must not trigger a rebuild.
                server.watch(str(path), recursive=False)

    def schedule(self, library: Library, todo) -> set[str]:
        """Hand the stale proofs to the scheduler (its own Library, on its own thread); returns
        the proofs it has yet to record, which pages show as re-running."""
        if self.scheduler is None:
            mine = Library(library.root, library.python, library.mode, library.slots, layout=library.layout)
            self.scheduler = Scheduler(mine, on_change=self.request_rebuild, report=self.report)
        self.scheduler.submit(todo)
        return self.scheduler.pending()

    def request_rebuild(self) -> None:
        """From the scheduler's thread: rebuild now, as a watched file's change would."""
        with self._lock:
            server = self.server
            if server is None:
                self._missed = True
                return
        if can_request_rebuild(server):
            with server._rebuild_cond:
                server._want_rebuild = True
                server._rebuild_cond.notify_all()
        elif self.trigger is not None:
            self.trigger.touch()

    def first_time(self, message: str, library: Library, name: str) -> bool:
        """Whether ``message`` about proof ``name`` is new in this session, for the proof's
        script, helpers and records as they are now."""
        proof = library.proofs.get(name)
        records = sorted((device, getattr(item, "measured_at", ""), str(getattr(item, "failure", None)))
                         for device, item in library.store.records(name).items())
        inputs = repr(((proof.sha256, sorted(proof.helper_hashes.items())) if proof else None, records))
        with self._lock:
            if (message, inputs) in self._said:
                return False
            self._said.add((message, inputs))
        return True

    def stop(self) -> None:
        if self.scheduler is not None:
            self.scheduler.stop()
            self.scheduler = None


def can_request_rebuild(server) -> bool:
    return hasattr(server, "_rebuild_cond") and hasattr(server, "_want_rebuild")
