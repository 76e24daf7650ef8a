"""Core benchmark: (a) per-proof overhead of the runner, (b) warm build vs a plain build.

    .venv/bin/python bench/bench_core.py

(a) runs N trivial proofs that time their own body and reports the time the runner adds
per proof beyond that body, next to what a fresh `python proof.py` costs. Target: <= 50 ms.
(b) builds the real site warm (every record fresh, nothing runs) and a plain mkdocs-material
build of the same pages with the directives removed, alternating, and reports the ratio of
medians. Target: <= 1.15.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

PROOF = '''"""Trivial proof.

Times its own body.
"""
import time
start = time.perf_counter()
import torch
x = torch.ones(8) * 2
print("BODY=" + repr(time.perf_counter() - start))
'''


def per_proof_overhead(count: int = 30) -> dict:
    from build_hooks.run.library import Library

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "proofs").mkdir()
        shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
        for i in range(count):
            (root / "proofs" / f"p{i:02d}.py").write_text(PROOF + f"# {i}\n")
        library = Library(root)
        started = time.perf_counter()
        library.runner().start()
        library.runner().probe()
        host_start = time.perf_counter() - started
        rounds = []
        for _ in range(3):
            started = time.perf_counter()
            library.run(force=True)
            elapsed = time.perf_counter() - started
            bodies = [float(r.data["BODY"]) for r in (library.store.read(f"p{i:02d}", "cpu") for i in range(count))]
            rounds.append((elapsed - sum(bodies)) / count)
        library.close()
        script = root / "proofs" / "p00.py"
        fresh = []
        for _ in range(3):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
            fresh.append(time.perf_counter() - started)
    return {"overhead_s": statistics.median(rounds), "host_start_s": host_start,
            "fresh_python_s": statistics.median(fresh), "count": count}


FENCE = re.compile(r"^(```|~~~)[ \t]*(proof|proof-output|instrument|figure|reading-lines|robot)\b.*?^\1[ \t]*$",
                   re.S | re.M)
VALUE = re.compile(r"\{\{\s*([a-z][a-z0-9_]*)(?:@\w+)?\.([A-Za-z0-9_.\-]+)\s*(?:\|[^}]*)?\}\}")


def plain_copy(dest: Path) -> Path:
    """The same pages with every directive removed, under plain mkdocs-material."""
    shutil.copytree(REPO / "docs", dest / "docs")
    for page in (dest / "docs").rglob("*.md"):
        text = FENCE.sub("", page.read_text())
        page.write_text(VALUE.sub(lambda m: m.group(2).rsplit(".", 1)[-1], text))
    config = (REPO / "mkdocs.yml").read_text()
    config = re.sub(r"\n  - ldr(:\n(      .*\n)*)?", "\n", config)
    config = config.replace("  custom_dir: theme\n", "")
    config = re.sub(r"\nextra_css:\n(  - .*\n)+", "\n", config)
    # What mkdocs.yml lists for Zensical: the watch call, the ldr fences and the extension.
    config = "".join(line for line in config.splitlines(keepends=True) if "build_hooks." not in line)
    config = config.replace("  - pymdownx.superfences:\n      custom_fences:\n", "  - pymdownx.superfences\n")
    (dest / "mkdocs.yml").write_text(config)
    return dest / "mkdocs.yml"


def timed_build(config_file: Path, site: Path) -> float:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    started = time.perf_counter()
    config = load_config(str(config_file), site_dir=str(site))
    config.plugins.on_startup(command="build", dirty=False)
    build(config)
    config.plugins.on_shutdown()
    return time.perf_counter() - started


def process_build(config_file: Path, site: Path) -> float:
    """`mkdocs build` as the author types it: a fresh process each time."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config_file), "-d", str(site)],
                   check=True, capture_output=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    return time.perf_counter() - started


def warm_build_ratio(rounds: int = 7) -> dict:
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        plain = plain_copy(tmp / "plain")
        ours, base, ours_proc, base_proc = [], [], [], []
        timed_build(REPO / "mkdocs.yml", tmp / "site-ours")  # warms imports and the caches
        timed_build(plain, tmp / "site-plain")
        from build_hooks.run.runner import _SHARED
        for _ in range(rounds):
            ours.append(timed_build(REPO / "mkdocs.yml", tmp / "site-ours"))
            base.append(timed_build(plain, tmp / "site-plain"))
        for _ in range(max(3, rounds // 2)):
            ours_proc.append(process_build(REPO / "mkdocs.yml", tmp / "site-ours"))
            base_proc.append(process_build(plain, tmp / "site-plain"))
        started_hosts = [r for r in _SHARED.values() if r.proc is not None]
    med = statistics.median
    return {"ours_s": med(ours), "plain_s": med(base), "ratio": med(ours) / med(base),
            "ours_proc_s": med(ours_proc), "plain_proc_s": med(base_proc),
            "ratio_proc": med(ours_proc) / med(base_proc), "ran_proofs": bool(started_hosts)}


def main() -> None:
    a = per_proof_overhead()
    print(f"(a) per-proof overhead beyond the proof's own runtime: {a['overhead_s'] * 1000:.1f} ms "
          f"(median of 3 rounds of {a['count']} proofs; target <= 50 ms)")
    print(f"    a fresh `python proof.py` for the same proof: {a['fresh_python_s'] * 1000:.0f} ms "
          f"({a['fresh_python_s'] / a['overhead_s']:.0f}x the runner's overhead); "
          f"starting the warm host once: {a['host_start_s'] * 1000:.0f} ms")
    b = warm_build_ratio()
    print(f"(b) warm build / plain mkdocs-material build, `mkdocs build` in a fresh process: "
          f"{b['ratio_proc']:.3f} ({b['ours_proc_s']:.3f} s vs {b['plain_proc_s']:.3f} s; target <= 1.15)")
    print(f"    the same, rebuilt in one process as `mkdocs serve` does: {b['ratio']:.3f} "
          f"({b['ours_s']:.3f} s vs {b['plain_s']:.3f} s, medians of 7)"
          + ("  WARNING: a proof ran during the warm builds" if b["ran_proofs"] else ""))


if __name__ == "__main__":
    main()
