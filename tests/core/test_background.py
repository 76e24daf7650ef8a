"""The background scheduler on its own (no MkDocs): real proof host, real records."""

import threading
import time
from pathlib import Path as _Path

from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.run.library import Library
from build_hooks.run.scheduler import Scheduler

PIN = _pinned(_Path(__file__).resolve().parents[2])


GUARD = 120.0  # seconds: a hang guard only


def scheduler_for(library):
    changed, messages = threading.Event(), []
    scheduler = Scheduler(library, on_change=changed.set, report=lambda level, text: messages.append((level, text)))
    return scheduler, changed, messages


def test_runs_stale_proofs_off_the_caller_and_says_when_each_record_lands(project):
    project.proof("cost", 'import json\nprint("0.5 us per op")\nprint("DATA=" + json.dumps({"us": 0.5}))\n')
    library = Library(project.root)
    scheduler, changed, messages = scheduler_for(library)
    try:
        assert scheduler.submit(library.plan()) == ["cost"]
        assert scheduler.submit(library.plan()) == []  # already queued at this hash
        assert changed.wait(GUARD), messages
        assert project.record("cost").is_file()
        deadline = time.monotonic() + GUARD
        while scheduler.pending() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert scheduler.pending() == set()
        assert any(level == "info" and text.startswith("cost on cpu: ok (") for level, text in messages)
        fresh = Library(project.root)
        assert fresh.plan() == [] and scheduler.submit(fresh.plan()) == []
    finally:
        scheduler.stop()
    assert library._runner is None  # the host was closed


def test_a_host_that_cannot_run_is_reported_and_not_retried_until_the_script_changes(project, fake_python):
    project.proof("cost", 'import torch\nprint("x")\n')  # a proof of torch's: the host must have the pin
    library = Library(project.root, python=fake_python("2.11.0"))
    scheduler, changed, messages = scheduler_for(library)
    try:
        scheduler.submit(library.plan())
        assert changed.wait(GUARD)
        errors = [text for level, text in messages if level == "error"]
        assert len(errors) == 1 and f"proofs must run under torch {PIN}" in errors[0]
        assert "saving a proof again retries it" in errors[0]
        assert not project.record("cost").exists()
        assert scheduler.submit(Library(project.root).plan()) == []  # same script: not again
        project.proof("cost", 'import torch\nprint("y")\n')
        assert scheduler.submit(Library(project.root).plan()) == ["cost"]
    finally:
        scheduler.stop()
