"""The proof library: discovery + store + runner, and the one place that decides staleness.

Knows nothing of MkDocs. A build calls :meth:`Library.run` for whatever is stale, then pages
read records through :meth:`Library.lookup`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from build_hooks.config import Layout, cache_dir
from build_hooks.core.errors import DirectiveError, StoreError
from build_hooks.proofs.book import ProofBook
from build_hooks.proofs.discovery import Proof, discover, helper_changes
from build_hooks.proofs.pin import optional_pin, pinned_torch, public_version
from build_hooks.proofs.records import FailureNote, ProofData, Provenance
from build_hooks.run.recording import run_record
from build_hooks.run.results import Job, RunResult
from build_hooks.run.runner import Runner, shared_runner
from build_hooks.run.states import ACCELERATORS, ProofState, host_accelerator, unneeded
from build_hooks.store.foreign import is_foreign
from build_hooks.store.history import write_record
from build_hooks.store.lock import store_lock
from build_hooks.store.record import Record
from build_hooks.store.store import Corrupt, Store

_EARLIER: dict[tuple[Path, str, str], Record] = {}  # (root, proof, device) -> the good run a rerun replaced


def earlier_run(root: Path, proof: str, device_class: str) -> Record | None:
    """The good record a rerun in this process replaced (under ``mkdocs serve``, the run the
    pages showed before), for telling a claim broken by noise from one broken by torch."""
    return _EARLIER.get((Path(root).resolve(), proof, device_class))


@dataclass
class Diagnostic:
    level: str  # error | warning | info
    message: str
    page: str | None = None
    proof: str | None = None


class Library:
    def __init__(self, root: Path, python: str | None = None, mode: str | None = None,
                 slots: int | None = None, store: Store | None = None, layout: Layout | None = None):
        self.root = Path(root).resolve()
        self.layout = layout if layout is not None else Layout.at(self.root)  # folders and pin option
        self.proofs_dir = self.layout.proofs
        if store is None:  # a shard's store is handed in (shards.py)
            store = Store(self.proofs_dir, self.layout.results)
        self.store = store
        self.lock_path = cache_dir(self.root) / "store.lock"
        self.book = ProofBook(self.root)
        self.python, self.mode, self.slots = python, mode, slots
        self.pin: str | None = None  # set by refresh()
        self.proofs: dict[str, Proof] = {}
        self.diagnostics: list[Diagnostic] = []
        self._runner: Runner | None = None
        self._others: list[Runner] = []  # hosts of earlier runs that needed torch, or did not
        self.executed: list[str] = []
        self.refresh()

    # -- state ---------------------------------------------------------------
    def refresh(self) -> None:
        self.book.open()  # what earlier builds read of each proof (proofs/book.py)
        self.proofs = discover(self.proofs_dir)
        self.book.close(set(self.proofs))
        # Only a proof that imports torch needs the pin (find_pin's error names where it looked).
        if any(proof.torch for proof in self.proofs.values()):
            self.pin = pinned_torch(self.root, self.layout.torch)
        else:
            found = optional_pin(self.root, self.layout.torch)
            self.pin = None if found is None else found.version
        known = {d.message for d in self.diagnostics}
        for proof in self.proofs.values():
            for problem in proof.problems:
                if problem not in known:
                    self.diagnostics.append(Diagnostic("warning", problem, proof=proof.name))

    def target_device(self, proof: Proof, accelerator: str | None) -> str | None:
        """Where this proof is measured on this host (None: it cannot run here)."""
        if proof.accelerator != "none" and accelerator:
            return accelerator
        return None if proof.accelerator == "require" else "cpu"

    def needs(self, proof: Proof) -> list[str] | None:
        """The device classes a proof needs and this machine lacks (None: it runs here)."""
        return None if self.target_device(proof, host_accelerator()) else list(ACCELERATORS)

    def state(self, proof: Proof, device_class: str) -> ProofState:
        item = self.store.read(proof.name, device_class)
        if isinstance(item, Corrupt):
            return ProofState(proof, device_class, None, item, [f"corrupt record {item.describe(self.root)}"])
        if item is None:
            return ProofState(proof, device_class, None, None, ["no record"])
        if unneeded(proof, device_class):
            return ProofState(proof, device_class, item, None, [
                f"the proof requires an accelerator (cuda or mps), so this CPU record is from before; "
                f"no page shows it; fix: `ldr forget {proof.name} --device cpu` removes it"], unneeded=True)
        reasons = []
        if item.latest_sha256 != proof.sha256:
            reasons.append("script changed since it was recorded")
        said = {"new": "imports helper {}, which the record does not cover",
                "gone": "no longer imports helper {}", "changed": "helper {} changed since it was recorded"}
        reasons += [said[how].format(name) for name, how in helper_changes(item.latest_helpers, proof.helper_hashes)]
        if proof.torch and public_version(item.latest_torch) != public_version(self.pin or ""):
            reasons.append(f"recorded under torch {public_version(item.latest_torch)}, pin is {self.pin}"
                           if item.latest_torch else f"recorded without torch, pin is {self.pin}")
            if len(reasons) == 1 and is_foreign(self.store, item):
                return ProofState(proof, device_class, item, None, [
                    f"recorded under torch {public_version(item.torch)} (foreign accelerator record, kept)"],
                    foreign=True)
        return ProofState(proof, device_class, item, None, reasons)

    def states(self, names: list[str] | None = None) -> list[ProofState]:
        """Every record that exists or should exist for the selected proofs."""
        accelerator = host_accelerator()
        present = self.store.known()
        out = []
        for proof in self.select(names):
            target = self.target_device(proof, accelerator)
            wanted = {target} if target is not None else set()
            wanted |= {d for (p, d) in present if p == proof.name}
            if proof.accelerator == "prefer":
                wanted.add("cpu")
            for device_class in sorted(wanted, key=("cpu", *ACCELERATORS).index):
                out.append(self.state(proof, device_class))
        return out

    def select(self, names: list[str] | None) -> list[Proof]:
        if not names:
            return list(self.proofs.values())
        unknown = [n for n in names if n not in self.proofs]
        if unknown:
            raise DirectiveError(
                f"unknown proof {', '.join(unknown)}; proofs are the files in {self.proofs_dir}: "
                f"{', '.join(self.proofs) or '(none)'}"
            )
        return [self.proofs[n] for n in names]

    # -- running -------------------------------------------------------------
    def runner(self, proofs: Iterable[Proof] | None = None) -> Runner:
        """The shared proof host for ``proofs`` (default: every proof): one that imports torch
        when any of them does, else one that needs no torch at all."""
        torch = any(proof.torch for proof in (self.proofs.values() if proofs is None else proofs))
        any_torch = getattr(self.store, "any_torch", False)  # a shard may record another torch
        pin = None if any_torch or not torch else self.pin
        runner = shared_runner(self.python, pin, self.mode, torch)
        if runner is not self._runner and self._runner is not None:
            self._others.append(self._runner)  # closed with the library
        self._runner = runner
        return runner

    def plan(self, names: list[str] | None = None, force: bool = False) -> list[Proof]:
        accelerator = host_accelerator()
        todo = []
        for proof in self.select(names):
            device_class = self.target_device(proof, accelerator)
            if device_class is None:
                continue
            if force or self.state(proof, device_class).needs_run:
                todo.append(proof)
        return todo

    def run(self, names: list[str] | None = None, force: bool = False,
            on_start: Callable[[Proof], None] | None = None,
            on_done: Callable[[Proof, RunResult, Record], None] | None = None) -> list[RunResult]:
        """Run what is stale (or everything selected, with ``force``) and record it."""
        self.refresh()
        self.clean_leftovers()
        if not self.plan(names, force):
            return []
        with store_lock(self.lock_path):
            self.refresh()
            todo = self.plan(names, force)  # another process may have run them meanwhile
            if not todo:
                return []
            runner = self.runner(todo)
            runner.start()
            probe = runner.probe()
            accelerator = probe.get("accelerator")
            jobs, devices = [], {}
            for proof in todo:
                device_class = self.target_device(proof, accelerator)
                if device_class is None:
                    continue
                devices[proof.name] = device_class
                jobs.append(Job(proof.name, proof.path, proof.timeout, proof.output_cap,
                                proof.parallel, {"LDR_DEVICE": device_class},
                                display=f"proofs/{proof.path.name}", root=self.root))

            def done(result: RunResult) -> None:
                proof = self.proofs[result.name]
                device_class = devices[proof.name]
                before = self.store.read(proof.name, device_class)
                record = run_record(self.store, proof, device_class, result, probe)
                if result.ok and isinstance(before, Record) and before.ok:
                    _EARLIER[(self.root, proof.name, device_class)] = before
                try:
                    write_record(self.store, record)  # keeps the replaced version in history
                except StoreError as exc:  # non-finite data: the last record stays as it was
                    self.diagnostics.append(Diagnostic("warning", str(exc), proof=proof.name))
                    return
                if isinstance(before, Corrupt):
                    self.diagnostics.append(Diagnostic(
                        "warning", f"{proof.name} had a corrupt record, {self.layout.shown(before.path)}"
                        f" ({before.reason}); this run re-measured it and replaced the file: check "
                        "`git diff` before committing", proof=proof.name))
                self.executed.append(proof.name)
                if result.leftovers:
                    self.diagnostics.append(Diagnostic(
                        "warning", f"proof {proof.name} left {result.leftovers} process(es) running "
                        "after it ended; they were killed. Fix: wait for (or stop) what the proof "
                        "starts before it exits", proof=proof.name))
                if on_done:
                    on_done(proof, result, record)

            def start(job: Job) -> None:
                if on_start:
                    on_start(self.proofs[job.name])

            return runner.run(jobs, self.slots, on_start=start, on_done=done)


    def clean_leftovers(self) -> list[Path]:
        """Delete temporary files left by a writer killed mid-write (under the store lock,
        which every writer holds; skipped when another process holds it now)."""
        if not self.store.leftovers():
            return []
        with store_lock(self.lock_path, wait=False) as held:
            removed = self.store.remove_leftovers() if held else []
        for path in removed:
            self.diagnostics.append(Diagnostic(
                "info", f"removed {self.layout.shown(path)}, left by a write that never finished"))
        return removed

    def close(self) -> None:
        """Stop the proof host (it is shared; the next run starts a fresh one)."""
        for runner in [*self._others, *([self._runner] if self._runner is not None else [])]:
            runner.close()
        self._runner, self._others = None, []

    # -- reading -------------------------------------------------------------
    def lookup(self, name: str) -> dict[str, ProofData]:
        """Proof name -> {device class: ProofData}, for pages and instruments."""
        proof = self.proofs.get(name)
        if proof is None:
            raise DirectiveError(
                f"unknown proof {name!r}; known proofs: {', '.join(self.proofs) or '(none)'}; "
                f"fix: check the name or add {self.layout.shown(self.proofs_dir)}/{name}.py"
            )
        out, corrupt = {}, []
        for device_class, item in self.store.records(name).items():
            if isinstance(item, Corrupt):
                corrupt.append(item.warning(self.root))
                continue
            if unneeded(proof, device_class):
                continue  # no page shows it: see state()
            state = self.state(proof, device_class)
            out[device_class] = ProofData(
                name=name,
                data=item.data,
                provenance=Provenance(  # a proof without torch shows none, whatever an older record says
                    proof=name, torch=item.torch if proof.torch else "", device_class=device_class, device=item.device,
                    python=item.python, os=item.os, machine=item.machine,
                    measured_at=item.measured_at[:10], wall_s=item.wall_s, status=item.status,
                    stale=state.state not in ("fresh", "problem", "foreign"), reasons=tuple(state.reasons),
                    problems=tuple(item.problems),
                    failure=None if item.failure is None else FailureNote(
                        item.failure.status, item.failure.message, item.failure.torch if proof.torch else "",
                        item.failure.measured_at[:10], tuple(item.failure.stderr_tail)),
                    accelerator=proof.accelerator, foreign=state.foreign,
                    pin=None if self.pin is None else str(self.pin),
                ),
                stdout="\n".join(item.stdout),
                stderr="\n".join(item.stderr),
            )
        if corrupt and not out:  # a page must not render as if the proof had never run
            raise DirectiveError(f"proof {name} has no readable record: " + "; ".join(corrupt))
        for message in corrupt:  # another device's record is shown; the build still warns
            if message not in {d.message for d in self.diagnostics}:
                self.diagnostics.append(Diagnostic("warning", message, proof=name))
        return out
