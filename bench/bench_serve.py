"""Dev-server benchmark: real `mkdocs serve` processes on free loopback ports, side by side.

    .venv/bin/python bench/bench_serve.py [--rounds N]

On a generated project (material theme, the ldr plugin, `site_url` set) and a copy of it
without the directives served by plain mkdocs-material:

(a) reload latency after a prose edit: the time from writing a page's .md to its new text
    being served, ldr vs plain, alternating, median of N rounds each. Target ratio <= 1.10.
(b) the slowest answer of another page while a 5 s proof reruns, with the ldr plugin's
    background runs (the default under serve) and with `background: false` (proofs inside
    the build, as `mkdocs build` runs them). Target < 0.3 s.
(c) the time from saving that proof to its new output on its page, minus the proof's own
    runtime (the wall time in its record). Target < 1.5 s.

Every wait is bounded, and every server (with its proof host) is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from serve_support import Server, make_project, write_page, write_proof  # noqa: E402

GUARD = 90.0
BUILT = re.compile(r"Documentation built in ([0-9.]+) seconds")
SLEEP_S = 5.0
PROSE = "\n\n".join(
    f"Paragraph {i}: the dispatcher looks up a kernel for every op, and the toll it charges "
    "is paid again on each call, whatever the tensor's size." for i in range(12))

PROOF = '''\
import json, time
from pathlib import Path
start = time.time()
time.sleep({sleep})
print("output {tag}: one add costs a fixed toll")
print("DATA=" + json.dumps({{"us": {value}}}))
Path({stamps!r}).write_text(json.dumps({{"start": start, "end": time.time()}}))
'''

LDR_PAGE = f"""\
# Costs

One add costs {{{{ slow.DATA.us | .1f }}}} us.

```proof-output
proof: slow
grep: "fixed toll"
```

{PROSE}

```proof
slow
```
"""
PLAIN_PAGE = f"""\
# Costs

One add costs 0.5 us.

```text
output: one add costs a fixed toll
```

{PROSE}
"""


def prose_page(marker: str) -> str:
    return f"# Notes\n\n{PROSE}\n\nThe marker is {marker}.\n"


def build_projects(base: Path) -> dict[str, Path]:
    stamps = base / "stamps.json"
    roots = {}
    for kind in ("ldr", "inbuild", "plain"):
        root = make_project(base / kind, plugins=() if kind == "plain" else ("ldr",))
        if kind == "inbuild":
            config = root / "mkdocs.yml"
            config.write_text(config.read_text().replace("  - ldr\n", "  - ldr:\n      background: false\n"))
        if kind != "plain":
            write_proof(root, "slow", PROOF.format(sleep=0, tag="v0", value=0.5, stamps=str(stamps) + ".init"))
        write_page(root, "index.md", PLAIN_PAGE if kind == "plain" else LDR_PAGE)
        for n in range(4):
            write_page(root, f"notes-{n}.md", prose_page(f"m{n}-start"))
        write_page(root, "other.md", "# Other\n\nA page nobody edits.\n")
        roots[kind] = root
    return roots


def reload_latency(server: Server, root: Path, marker: str) -> float:
    page = root / "docs" / "notes-0.md"
    started = time.perf_counter()
    page.write_text(prose_page(marker))
    server.wait_for("notes-0/", lambda body: f"The marker is {marker}." in body, GUARD, every=0.01)
    return time.perf_counter() - started


def rerun(server: Server, root: Path, tag: str, stamps: Path, background: bool) -> dict:
    """Save the proof as a 5 s run with new output; hammer another page until it shows."""
    latencies: list[tuple[float, float]] = []  # (sent at, seconds)
    stop = threading.Event()

    def hammer():
        while not stop.is_set():
            sent = time.time()
            status, _, seconds = server.get("other/", GUARD)
            latencies.append((sent, seconds if status == 200 else float("inf")))
            time.sleep(0.01)

    if stamps.exists():
        stamps.unlink()
    thread = threading.Thread(target=hammer, daemon=True)
    thread.start()
    time.sleep(0.3)
    saved = time.time()
    write_proof(root, "slow", PROOF.format(sleep=SLEEP_S, tag=tag, value=0.7, stamps=str(stamps)))
    published = None
    if background:  # the save's own rebuild is out once the card says "re-running"
        server.wait_for("", lambda body: "<strong>Re-running</strong>" in body, GUARD, every=0.02)
        published = time.time()
    needle = f"output {tag}: one add"
    server.wait_for("", lambda body: f'ldr-proof__output"><code>{needle}' in body, GUARD, every=0.02)
    seen = time.time()
    stop.set()
    thread.join(GUARD)
    times = json.loads(stamps.read_text())
    record = json.loads((root / "proofs" / "_results" / "slow.cpu.json").read_text())
    if background:
        # Requests sent while the proof ran, once the save's rebuild was out (a rebuild holds
        # requests for its own length, as it does with plain mkdocs-material).
        during = [s for sent, s in latencies if max(times["start"], published) <= sent <= times["end"]]
    else:
        # A proof inside the build holds every request in flight at any moment of its run.
        during = [s for sent, s in latencies if sent <= times["end"] and sent + s >= times["start"]]
    return {
        "max_during_run": max(during) if during else float("nan"),
        "requests_during_run": len(during),
        "max_whole_cycle": max(s for _, s in latencies),
        "save_to_output_minus_run": seen - saved - record["wall_s"],
        "run_s": record["wall_s"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    servers: dict[str, Server] = {}
    try:
        roots = build_projects(base)
        for kind, root in roots.items():
            servers[kind] = Server(root)
        for kind, server in servers.items():
            needle = "0.5" if kind == "plain" else 'ldr-proof__output"><code>output v0'
            server.wait_for("", lambda body, n=needle: n in body, GUARD)
        time.sleep(1.0)  # let the first background rebuilds settle

        ldr_times, plain_times = [], []
        for i in range(args.rounds):
            for kind, bucket in (("ldr", ldr_times), ("plain", plain_times))[:: 1 if i % 2 else -1]:
                bucket.append(reload_latency(servers[kind], roots[kind], f"r{i}-{kind}"))
                time.sleep(0.2)
        ldr_med, plain_med = statistics.median(ldr_times), statistics.median(plain_times)
        # The servers' own build times for those edits (the rest is the watcher's polling).
        builds = {kind: [float(x) for x in BUILT.findall(servers[kind].output())][-args.rounds:]
                  for kind in ("ldr", "plain")}

        background = rerun(servers["ldr"], roots["ldr"], "v1", base / "stamps-bg.json", True)
        inbuild = rerun(servers["inbuild"], roots["inbuild"], "v1", base / "stamps-in.json", False)

        print(f"(a) reload after a prose edit, median of {args.rounds}: ldr {ldr_med * 1000:.0f} ms, "
              f"plain mkdocs-material {plain_med * 1000:.0f} ms, ratio {ldr_med / plain_med:.2f} "
              "(target <= 1.10)")
        print(f"    all ldr: {', '.join(f'{t * 1000:.0f}' for t in ldr_times)} ms")
        print(f"    all plain: {', '.join(f'{t * 1000:.0f}' for t in plain_times)} ms")
        ldr_build, plain_build = statistics.median(builds["ldr"]), statistics.median(builds["plain"])
        print(f"    the rebuilds themselves (median, from the servers' logs): ldr {ldr_build:.2f} s, "
              f"plain {plain_build:.2f} s, ratio {ldr_build / plain_build:.2f}")
        for label, r in (("background (serve default)", background), ("in the build (background: false)", inbuild)):
            print(f"(b) {label}: slowest answer of another page while the {r['run_s']:.1f} s proof ran: "
                  f"{r['max_during_run']:.3f} s over {r['requests_during_run']} requests "
                  f"(whole save-to-reload cycle, rebuilds included: {r['max_whole_cycle']:.3f} s); target < 0.3 s")
            print(f"(c) {label}: save to new output on the page, minus the proof's own "
                  f"{r['run_s']:.2f} s: {r['save_to_output_minus_run']:.2f} s (target < 1.5 s)")
    finally:
        for server in servers.values():
            server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
