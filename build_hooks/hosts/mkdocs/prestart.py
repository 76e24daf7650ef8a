"""The plugin's Library, and its proof host started early: while MkDocs still reads its
config (the plugin's load_config), on a thread, when the build has a proof to run."""

from __future__ import annotations

import threading
from pathlib import Path

from build_hooks.config import Layout
from build_hooks.hosts.mkdocs.log import log
from build_hooks.run.library import Library


def plugin_library(root: Path, options: tuple) -> Library:
    python, mode, jobs, proofs_dir, drawings_dir, results_dir, torch = options
    layout = Layout.at(root, proofs_dir, drawings_dir, results_dir, torch)
    return Library(root, python, mode, jobs, layout=layout)


def prestart(root: Path, options: tuple) -> tuple | None:
    """Start the shared proof host, on a thread, if this build has a proof to run; any problem
    is left for the build itself to report, where it names the fix. Returns ``((root,
    options), library)`` for on_config to use, or None."""
    try:
        library = plugin_library(root, options)
        todo = library.plan()
        if not todo:
            return (root, options), library
        runner = library.runner(todo)  # the host run() will use: with torch only if one of them imports it
    except Exception as exc:  # noqa: BLE001
        log.debug(f"the proof host was not started early: {exc}")
        return None

    def start() -> None:
        try:
            runner.start()
        except Exception as exc:  # noqa: BLE001
            log.debug(f"the proof host was not started early: {exc}")

    threading.Thread(target=start, name="ldr-prestart", daemon=True).start()
    return (root, options), library
