"""Real-site benchmark: this repository's own site against plain mkdocs-material on the same pages.

    .venv/bin/python bench/bench_site.py [--rounds 7] [--top 25] [--commit REV] [--no-profile]

bench_scale.py measures generated sites; this measures the series itself. The project is
copied to a temporary folder first, its files that git tracks or would track (`git ls-files`, as
they are in the working tree; `--commit REV`: `git archive REV`, whose build_hooks must match
the venv's installed entry points), so that no .cache, site or ignored file of the checkout takes part;
the copy's build_hooks is the one imported (PYTHONPATH), so edits made to the checkout while
this runs do not reach the builds. Bytecode goes to a temporary folder, as in bench_scale.

Ours: `mkdocs build` with the project's mkdocs.yml and LDR_RUN=false (the committed records
only; no proof runs). Plain: mkdocs-material on a copy of the same docs/, with the config that
bench_reader.plain_config makes from mkdocs.yml (same nav, theme and Markdown extensions,
without the ldr plugin, extension, fences, custom_dir and stylesheets; our fences become plain
code blocks, the fair baseline for a reader's page). One untimed build of each side first
(ours fills .cache/ldr, both fill the bytecode folder), then `--rounds` warm builds of each
side, each in a fresh process, the two sides alternating. Printed: ours / plain in wall
seconds and in CPU seconds (user + system of the build's process tree), medians and the best
run of each side, against the issue's target of 1.05; the first build of a fresh clone (no
.cache, bytecode warm) for information; then one more warm build of ours under cProfile
(`python -m cProfile -o`) and the `--top` functions inside build_hooks/ by cumulative time,
where the time ours adds goes. The machine may be shared: the figures are noisy, and the CPU
seconds and best runs are the steadier ones.
"""

from __future__ import annotations

import argparse
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import bench_scale  # noqa: E402  (its fresh_build, _env, PYCACHE and ratio_line)
from bench_reader import plain_config  # noqa: E402

TARGET = 1.05


def copy_project(dest: Path, commit: str | None) -> None:
    """The project's tracked files into ``dest``: as in the working tree, or at ``commit``."""
    dest.mkdir(parents=True)
    if commit:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        return
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True)
    for name in listed.stdout.decode().split("\0"):
        source = REPO / name
        if not name or not (source.is_file() or source.is_symlink()):
            continue  # deleted in the working tree
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)


def profile(tree: Path, site: Path, env: dict, out: Path, top: int) -> None:
    """One warm build of ours under cProfile; the build_hooks functions by cumulative time."""
    command = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "mkdocs", "build", "-q", "-d", str(site)]
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=tree, env={**bench_scale._env(), **env}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        print(f"\nthe profiled build failed:\n{proc.stderr[-3000:]}")
        return
    stats = pstats.Stats(str(out))
    total = stats.total_tt  # type: ignore[attr-defined]
    package = f"{tree}/build_hooks/"
    rows = [(ct, tt, nc, cc, f"{path[len(package) - len('build_hooks/'):]}:{line}({func})")
            for (path, line, func), (cc, nc, tt, ct, _) in stats.stats.items()  # type: ignore[attr-defined]
            if path.startswith(package)]
    rows.sort(reverse=True)
    own = sum(tt for _, tt, _, _, _ in rows)
    print(f"\nwhere ours spends it: one warm build under cProfile ({wall:.2f} s wall with the profiler, "
          f"{total:.2f} s profiled; {own:.2f} s of it in build_hooks' own code, the rest in what it calls "
          f"and in mkdocs itself)")
    print(f"top {top} functions in build_hooks/ by cumulative time:")
    print(f"  {'cumul s':>8} {'own s':>7} {'calls':>9}  function")
    for ct, tt, nc, cc, where in rows[:top]:
        calls = str(nc) if nc == cc else f"{nc}/{cc}"
        print(f"  {ct:8.3f} {tt:7.3f} {calls:>9}  {where}")
    stats.sort_stats("tottime")
    print("\nthe whole build's top 15 by own time (any package):")
    rows = sorted(((tt, ct, nc, f"{path.replace(str(tree) + '/', '')}:{line}({func})")
                   for (path, line, func), (_, nc, tt, ct, _) in stats.stats.items()),  # type: ignore[attr-defined]
                  reverse=True)
    for tt, ct, nc, where in rows[:15]:
        short = where.split("site-packages/")[-1]
        print(f"  {tt:8.3f} {ct:8.3f} {nc:>9}  {short}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="warm builds per side (default 7)")
    parser.add_argument("--top", type=int, default=25, help="build_hooks functions to list from the profile")
    parser.add_argument("--commit", help="measure this commit (git archive) instead of the working tree")
    parser.add_argument("--no-profile", action="store_true", help="skip the profiled build")
    args = parser.parse_args()
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="bench-site-"))
    bench_scale.PYCACHE[:] = [str(base / "pycache")]
    tree, plain = base / "ldr", base / "plain"
    sites = {"ldr": base / "site-ldr", "plain": base / "site-plain"}
    try:
        copy_project(tree, args.commit)
        # Plain reads its own copy of the pages (whatever ours writes beside them stays ours).
        shutil.copytree(tree / "docs", plain / "docs")
        config = yaml.safe_load(plain_config(tree, plain / "mkdocs.yml").read_text(encoding="utf-8"))
        config["docs_dir"] = "docs"
        (plain / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        # Ours imports the copy's build_hooks, never the checkout's; neither side runs a proof.
        envs = {"ldr": {"LDR_RUN": "false", "PYTHONPATH": str(tree)},
                "plain": {"PYTHONPATH": str(plain)}}
        roots = {"ldr": tree, "plain": plain}
        pages = len(list((tree / "docs").rglob("*.md")))
        print(f"{pages} pages of {'commit ' + args.commit if args.commit else 'the working tree'}, "
              f"copied to {base}", flush=True)
        # First builds, untimed: ours fills .cache/ldr, both fill the bytecode folder.
        for kind in ("ldr", "plain"):
            bench_scale.fresh_build(roots[kind], sites[kind], env=envs[kind])
        # The first build of a fresh clone (no .cache; bytecode warm), for information.
        shutil.rmtree(tree / ".cache", ignore_errors=True)
        clone = bench_scale.fresh_build(tree, sites["ldr"], env=envs["ldr"])
        runs: dict[str, list[dict]] = {"ldr": [], "plain": []}
        for i in range(args.rounds):
            for kind in (("ldr", "plain") if i % 2 else ("plain", "ldr")):
                runs[kind].append(bench_scale.fresh_build(roots[kind], sites[kind], env=envs[kind]))
        wall = {k: statistics.median(r["s"] for r in v) for k, v in runs.items()}
        cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in runs.items()}
        best = {k: min(r["s"] for r in v) for k, v in runs.items()}
        best_cpu = {k: min(r["cpu"] for r in v) for k, v in runs.items()}
        rss = {k: statistics.median(r["maxrss"] for r in v) for k, v in runs.items()}
        line = bench_scale.ratio_line
        print(f"\nthe real site, ours / plain mkdocs-material on the same pages: warm builds, a fresh process "
              f"each, {args.rounds} per side, interleaved (a shared machine: expect noise of a few percent)")
        print(line("warm build, fresh process / plain (median)", wall["ldr"], wall["plain"], TARGET))
        print(line("  the same in CPU seconds (median)", cpu["ldr"], cpu["plain"], TARGET))
        print(line("  best of each side's runs", best["ldr"], best["plain"], TARGET))
        print(line("  best of each side's runs, CPU seconds", best_cpu["ldr"], best_cpu["plain"], TARGET))
        print(line("peak RSS of the warm build / plain", rss["ldr"], rss["plain"], None, "MB"))
        print(line("fresh clone (records, no .cache) / plain", clone["s"], wall["plain"], None))
        print(f"  {'what ours adds to a warm build':<46} {wall['ldr'] - wall['plain']:6.3f} s wall, "
              f"{cpu['ldr'] - cpu['plain']:.3f} s CPU")
        print("  runs, wall s:  ours " + " ".join(f"{r['s']:.2f}" for r in runs["ldr"])
              + "   plain " + " ".join(f"{r['s']:.2f}" for r in runs["plain"]))
        print("  runs, CPU s:   ours " + " ".join(f"{r['cpu']:.2f}" for r in runs["ldr"])
              + "   plain " + " ".join(f"{r['cpu']:.2f}" for r in runs["plain"]))
        if not args.no_profile:
            profile(tree, sites["ldr"], envs["ldr"], base / "ours.prof", args.top)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        print(f"\nbench_site ran {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
