"""Proofs off the build: a background scheduler, so that a dev server never waits on a proof.

Knows nothing of MkDocs. A server's build calls :meth:`Scheduler.submit` with the proofs it
found stale and goes on rendering the records it has (the pages mark those proofs
"re-running", see :meth:`Scheduler.pending`). One worker thread runs them through
:meth:`Library.run`, which takes the store lock, so a build or ``ldr run`` in another process
still never runs the same proof at once. After each record is written the worker calls
``on_change``, and the server rebuilds the pages with the new output.

The worker owns its :class:`Library` (a build's library is refreshed under the build's
feet); the proof host it talks to is the process-wide shared one (``runner.shared_runner``).
:meth:`Scheduler.stop` stops the worker and the host: a proof still running is killed, and
nothing is recorded for it.
"""

from __future__ import annotations

import signal
import threading
from typing import Callable, Iterable

from .discovery import Proof
from .errors import LdrError
from .library import Library
from .runner import RunResult
from .store import Record

Report = Callable[[str, str], None]  # (level: info|warning|error, message)


class Scheduler:
    def __init__(self, library: Library, on_change: Callable[[], None], report: Report):
        self.library = library
        self.on_change = on_change
        self.report = report
        self._cond = threading.Condition()
        self._queued: dict[str, str] = {}   # proof -> script hash wanted
        self._running: dict[str, str] = {}  # the batch the worker is running now
        self._refused: dict[str, str] = {}  # proof -> hash whose run could not start (host error)
        self._stopping = False
        self._thread: threading.Thread | None = None

    # -- the build's side ----------------------------------------------------------
    def submit(self, proofs: Iterable[Proof]) -> list[str]:
        """Queue these proofs (already queued or running at the same hash: nothing to do).
        Returns the names newly queued."""
        added = []
        with self._cond:
            if self._stopping:
                return []
            for proof in proofs:
                sha = proof.sha256
                if sha in (self._queued.get(proof.name), self._running.get(proof.name),
                           self._refused.get(proof.name)):
                    continue
                self._queued[proof.name] = sha
                added.append(proof.name)
            if added:
                self._ensure_thread()
                self._cond.notify_all()
        return added

    def pending(self) -> set[str]:
        """Proofs queued or running: their pages show the last record, marked re-running."""
        with self._cond:
            return set(self._queued) | set(self._running)

    def idle(self) -> bool:
        return not self.pending()

    # -- lifecycle -------------------------------------------------------------------
    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._work, name="ldr-background-proofs", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the worker and the proof host; a proof still running is killed, unrecorded."""
        with self._cond:
            self._stopping = True
            busy = bool(self._running)
            self._cond.notify_all()
        runner = self.library._runner
        if busy and runner is not None and runner.proc is not None and runner.proc.poll() is None:
            # SIGTERM: the host kills its running children and exits without answering, so
            # the worker sees the host gone (an error it ignores while stopping), not a result.
            try:
                runner.proc.send_signal(signal.SIGTERM)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout)
        self.library.close()

    # -- the worker ------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queued or self._stopping)
                if self._stopping:
                    return
                batch, self._queued = self._queued, {}
                self._running = dict(batch)
            try:
                self._run(batch)
            finally:
                with self._cond:
                    self._running = {}
            if not self._stopping:
                self.on_change()

    def _run(self, batch: dict[str, str]) -> None:
        library = self.library
        try:
            library.refresh()
            known = [name for name in batch if name in library.proofs]  # deleted meanwhile: skip
            names = [proof.name for proof in library.plan(known)] if known else []
            if not names:  # another process recorded them meanwhile
                return
            self.report("info", f"running {len(names)} proof(s) in the background: {', '.join(names)} "
                        "(pages show the last record until each finishes)")
            library.run(names, on_done=self._done)
        except LdrError as exc:
            if self._stopping:
                return
            with self._cond:
                self._refused.update(batch)
            self.report("error", f"{exc} (the proof(s) {', '.join(batch)} were not re-run; "
                        "saving a proof again retries it)")
        except Exception as exc:  # never let the worker die silently: say what broke
            with self._cond:
                self._refused.update(batch)
            self.report("error", f"background proof run failed: {type(exc).__name__}: {exc}")
        finally:
            for item in library.diagnostics:
                self.report(item.level, item.message)
            library.diagnostics.clear()

    def _done(self, proof: Proof, result: RunResult, record: Record) -> None:
        outcome = "ok" if result.ok else result.describe()
        self.report("info", f"{proof.name} on {record.device_class}: {outcome} ({result.wall_s:.2f} s)")
        with self._cond:
            self._running.pop(proof.name, None)
        if not self._stopping:
            self.on_change()
