"""Proofs off the build: a background scheduler, so that a dev server never waits on a proof.

Knows nothing of MkDocs. A server's build calls :meth:`Scheduler.submit` with the proofs it
found stale and goes on rendering the records it has (the pages mark those proofs
"re-running", see :meth:`Scheduler.pending`). One worker thread runs them through
:meth:`Library.run`, which takes the store lock, so a build or ``ldr run`` in another process
still never runs the same proof at once. After each record is written the worker calls
``on_change``, and the server rebuilds the pages with the new output. A proof saved again
while it runs is not waited for (it may hang until its timeout): the host is stopped and the
batch runs again, at the new script.

The worker owns its :class:`Library` (a build's library is refreshed under the build's
feet); the proof host it talks to is the process-wide shared one (``runner.shared_runner``).
:meth:`Scheduler.stop` stops the worker and the host: a proof still running is killed, and
nothing is recorded for it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable

from build_hooks.core.errors import LdrError
from build_hooks.core.writeerrors import explain
from build_hooks.proofs.discovery import Proof
from build_hooks.run.library import Library
from build_hooks.run.results import RunResult
from build_hooks.store.record import Record

Report = Callable[[str, str], None]  # (level: info|warning|error, message)


class Stopped(LdrError):
    """Raised inside a run when the scheduler stops before the next proof starts."""


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
        self._restarting = False  # the host was stopped because a running proof changed
        self._thread: threading.Thread | None = None

    # -- the build's side ----------------------------------------------------------
    def submit(self, proofs: Iterable[Proof]) -> list[str]:
        """Queue these proofs (already queued or running at the same hash: nothing to do).
        A proof that changed while it runs (a hang being fixed, say) is not waited for: the
        host is stopped, and the batch runs again. Returns the names newly queued."""
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
                if proof.name in self._running and not self._restarting:
                    self._restarting = True
                    self._stop_host()
            if added:
                self._ensure_thread()
                self._cond.notify_all()
        return added

    def pending(self) -> set[str]:
        """Proofs queued or running: their pages show the last record, marked re-running."""
        with self._cond:
            return set(self._queued) | set(self._running)

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
        if busy:
            self._stop_host()
        if self._thread is not None:
            self._thread.join(timeout)
        self.library.close()

    def _stop_host(self) -> None:
        """SIGTERM: the host kills its running proofs and exits without answering, so the
        worker sees the host gone (an error it expects), never a result to record."""
        runner = self.library._runner  # only a host already started: never start one to stop it
        proc = runner.proc if runner is not None else None  # read once: the worker may clear it
        if proc is not None and proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except OSError:
                pass

    # -- the worker ------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queued or self._stopping)
                if self._stopping:
                    return
                batch, self._queued = self._queued, {}
                self._running = dict(batch)
                self._restarting = False
            try:
                self._run(batch)
            finally:
                with self._cond:
                    self._running = {}
            if not self._stopping:
                self._changed()

    def _changed(self) -> None:
        try:
            self.on_change()
        except Exception as exc:  # a rebuild request that failed must not kill the worker
            self.report("warning", f"could not request a rebuild: {type(exc).__name__}: {exc}")

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
            library.run(names, on_start=self._start, on_done=self._done)
        except LdrError as exc:
            if self._stopping:
                return
            with self._cond:
                restart, self._restarting = self._restarting, False
                if restart:  # what did not finish runs again; the changed proof at its new hash
                    for name, sha in self._running.items():
                        self._queued.setdefault(name, sha)
                else:
                    self._refused.update(batch)
            if restart:
                library.close()  # reap the stopped host; the next batch starts a fresh one
                self.report("info", f"{', '.join(sorted(batch))}: changed while running; restarted")
                return
            self.report("error", f"{exc} (the proof(s) {', '.join(batch)} were not re-run; "
                        "saving a proof again retries it)")
        except OSError as exc:  # a full disk, a read-only tree: the path and the fix
            with self._cond:
                self._refused.update(batch)
            self.report("error", f"{explain(exc)} (the proof(s) {', '.join(batch)} were not re-run; "
                        "saving a proof again retries it)")
        except Exception as exc:  # never let the worker die silently: say what broke
            with self._cond:
                self._refused.update(batch)
            self.report("error", f"background proof run failed: {type(exc).__name__}: {exc}")
        finally:
            for item in library.diagnostics:
                self.report(item.level, item.message)
            library.diagnostics.clear()

    def _start(self, proof: Proof) -> None:
        if self._stopping:  # before the job reaches the host: nothing runs, nothing is recorded
            raise Stopped(f"stopped before {proof.name} started")

    def _done(self, proof: Proof, result: RunResult, record: Record) -> None:
        outcome = "ok" if result.ok else result.describe()
        self.report("info", f"{proof.name} on {record.device_class}: {outcome} ({result.wall_s:.2f} s)")
        with self._cond:
            self._running.pop(proof.name, None)
        if not self._stopping:
            self._changed()
