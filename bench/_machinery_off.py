"""`mkdocs` with one piece of ldr's machinery taken away, for bench/bench_machinery.py.

    python bench/_machinery_off.py PIECE REPORT.json -- build -q -f mkdocs.yml -d SITE

PIECE is ``none`` (everything on) or one of the text cache's namespaces in NAMESPACES: its
``TextCache.get`` always misses and its ``put``/``write`` do nothing (neither the process's
dict nor the disk), so every value is made again, as it would be without the cache. The
templates' cache, the shelf and the proof host's mode are turned off by the plugin's options in
the mkdocs.yml the benchmark passes (``template_cache: false``, ``link_files: false``,
``mode: spawn``), not here. PIECE
``spare`` keeps fork mode but forks no proof ahead of time: the proof host is this file (the
hostprocess's HOST pointed here), which runs run/host.py with ``Host.make_spare`` doing nothing
unless ``hand_over`` asks for a process now; it counts both in REPORT.json.host.json.

Whatever the piece, this process counts what it saw, to show that an OFF is really off:
hits and misses per namespace, entries dropped, loads from the templates' bytecode cache, the
site's files the shelf linked or wrote, the modes of the proof hosts it started. They are
written to REPORT.json when the build exits.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import sys

NAMESPACES = {"highlight": ("highlight",), "spots": ("spots",), "discovery": ("discovery",),
              "notebook": ("notebook", "notebook-cells"), "drawings": ("drawings",),
              "directives": ("directives",), "fonts": ("fonts",)}


def host_without_spare() -> None:
    """run/host.py (LDR_BENCH_HOST), each proof's process forked when its request comes."""
    import importlib.util

    sys.path[0] = os.path.dirname(os.environ["LDR_BENCH_HOST"])  # as `python run/host.py` has it
    spec = importlib.util.spec_from_file_location("_ldr_host", os.environ["LDR_BENCH_HOST"])
    host = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(host)
    make, hand_over, shutdown = host.Host.make_spare, host.Host.hand_over, host.Host.shutdown
    seen: collections.Counter = collections.Counter()

    def on_demand(self, request):
        self.now = True
        try:
            return hand_over(self, request)
        finally:
            self.now = False

    def make_spare(self):
        seen["forked on demand" if getattr(self, "now", False) else "fork ahead skipped"] += 1
        if getattr(self, "now", False):
            make(self)

    def counted_shutdown(self):
        shutdown(self)
        with open(os.environ["LDR_BENCH_HOST_REPORT"], "w") as handle:
            json.dump(dict(seen), handle)

    host.Host.make_spare, host.Host.hand_over, host.Host.shutdown = make_spare, on_demand, counted_shutdown
    host.main()


def main() -> None:
    if sys.argv[1:2] == ["--mode"]:  # started by the runner as its proof host (piece spare)
        return host_without_spare()
    piece, report = sys.argv[1], sys.argv[2]
    args = sys.argv[sys.argv.index("--") + 1:]
    off = set(NAMESPACES.get(piece, ()))
    seen: collections.Counter = collections.Counter()
    hosts: list[str] = []

    import build_hooks
    from build_hooks.core.cache import TextCache
    from build_hooks.run.runner import Runner
    from build_hooks.site.shelf import Shelf
    from build_hooks.site.templates import CompiledTemplates

    get, put, write = TextCache.get, TextCache.put, TextCache.write
    load, start = CompiledTemplates.load_bytecode, Runner._start

    def counted_get(self, key):
        if self.dir.name in off:
            seen[f"{self.dir.name}: miss (off)"] += 1
            return None
        text = get(self, key)
        seen[f"{self.dir.name}: {'miss' if text is None else 'hit'}"] += 1
        return text

    def counted_put(self, key, text):
        if self.dir.name in off:
            seen[f"{self.dir.name}: put dropped"] += 1
            return None
        return put(self, key, text)

    def counted_write(self, key, text):
        if self.dir.name in off:
            seen[f"{self.dir.name}: write dropped"] += 1
            return None
        return write(self, key, text)

    def counted_load(self, bucket):
        load(self, bucket)
        seen["templates: " + ("miss" if bucket.code is None else "hit")] += 1

    place = Shelf.place

    def counted_place(self, body, dest):
        before = self.linked
        place(self, body, dest)
        seen["shelf: " + ("linked" if self.linked > before else "written")] += 1

    def counted_start(self):
        hello = start(self)
        hosts.append(f"{self.mode} (host says {hello.get('mode')})")
        return hello

    if piece == "spare":
        from build_hooks.run import hostprocess

        os.environ.update(LDR_BENCH_HOST=str(hostprocess.HOST), LDR_BENCH_HOST_REPORT=report + ".host.json")
        hostprocess.HOST = os.path.abspath(__file__)
    TextCache.get, TextCache.put, TextCache.write = counted_get, counted_put, counted_write
    CompiledTemplates.load_bytecode, Runner._start = counted_load, counted_start
    Shelf.place = counted_place

    @atexit.register
    def _report() -> None:
        with open(report, "w") as handle:
            json.dump({"piece": piece, "seen": dict(seen), "hosts": hosts, "package": build_hooks.__file__}, handle)

    sys.path[0] = os.getcwd()  # as `python -m mkdocs` has it
    from mkdocs.__main__ import cli

    sys.argv = ["mkdocs", *args]
    cli()


if __name__ == "__main__":
    main()
