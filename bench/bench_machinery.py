"""Does each piece of ldr's machinery pay? Each one ON and OFF in the same run, on bench_scale's site.

    .venv/bin/python bench/bench_machinery.py [--sizes 1,12] [--rounds 5] [--cold-rounds 2]
                                              [--cold-sizes 1,12] [--no-cold]

For each size (chapters) bench_scale.generate() makes its site; a first build runs every
proof (records) and fills .cache/ldr. Each setting (everything on, or one piece off) then
builds once untimed, so that its .cache/ldr is what a previous build with the same setting
left, and then ROUNDS times, the settings in a new order each round: `mkdocs build` in a fresh
process (run through bench/_machinery_off.py, which takes a text-cache namespace away and
counts what the build saw), every record fresh: the warm build. Timed: CPU seconds (user +
system of the process tree, from wait4) and wall seconds; medians. The cold build (no record:
the proof host starts and every proof runs) is timed for the proof host only, COLD_ROUNDS
times per setting, alternating: fork mode against ``mode: spawn`` (prefork), and against fork
mode with no proof's process forked ahead of its request (spare). A text cache no build uses
any more (its code removed) is not measured: "gone".

Printed per piece: the lines it costs (physical lines, docstrings and comments included, of
what is named), and saving = (off - on) / off for warm (CPU, then wall), edit (CPU: the warm
build after one line of prose is added to the first chapter, as an author's save under
`mkdocs serve` makes it; each setting builds ROUNDS such edits) and cold (wall) at each size;
verdict "keep" when the warm or the edit CPU saving at the largest size is at least 3% (for
the pre-forking: the cold wall saving), else "drop". The page cache makes a warm build with
nothing changed convert no page, so the caches of what pages hold (the directive memo) pay
only when a page changes: the edit build is where they show. Then the medians with their
spread, and
the counts that show each OFF was off. The machine may be shared: read the spread.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_scale  # noqa: E402
from _machinery_off import NAMESPACES  # noqa: E402
from bench_scale import PYCACHE, REPO, _env, generate  # noqa: E402

OFF = Path(__file__).resolve().parent / "_machinery_off.py"
# Others edit build_hooks/ while this runs (an edit changes every cache key, or breaks an import
# for a moment): the builds import a copy of it taken at the start, first on PYTHONPATH.
SNAPSHOT: list[Path] = []
KEEP = 3.0  # percent
# name, what, wrapper piece (a text-cache namespace or none), mkdocs.yml options, cold only,
# and the code it costs: (file, "def Qual.name" | "module" | "grep REGEX").
PIECES = [
    ("directives", "TextCache 'directives': the directive memo (a fence's HTML, keyed by what it reads)",
     "directives", "", False,
     [("directives/memo.py", "module"), ("hosts/markdown/memoglue.py", "def MemoGlue.memo_key"),
      ("hosts/markdown/memoglue.py", "def MemoGlue._memo_common"),
      ("hosts/markdown/memoglue.py", "def MemoGlue._memo_pages"),
      ("hosts/markdown/memoglue.py", "def MemoGlue.recall"), ("hosts/markdown/memoglue.py", "def MemoGlue.remember"),
      ("hosts/markdown/state.py", "def LdrState.keep_quote"), ("hosts/markdown/extension.py", "grep _PageEnd"),
      ("hosts/markdown/fences.py", r"grep recall|remember|state\.told")]),
    ("highlight", "TextCache 'highlight': pygments-highlighted proof sources", "highlight", "", False,
     [("site/sourcepage.py", "def highlighted")]),
    ("spots", "TextCache 'spots': where each page's directives are (no markdown-it parse, no import)",
     "spots", "", False,
     [("pages/spotbook.py", "module"), ("pages/locate.py", "def recall"), ("pages/locate.py", "def looked"),
      ("pages/locate.py", "grep _BOOK|_LOOKED"), ("hosts/markdown/state.py", "grep spots"),
      ("hosts/mkdocs/plugin.py", "grep spots")]),
    ("discovery", "TextCache 'discovery': what each proof's syntax tree says, by its bytes (the proof book)",
     "discovery", "", False,
     [("proofs/book.py", "module"), ("proofs/discovery.py", "def _parse"), ("proofs/discovery.py", "def _proof"),
      ("run/library.py", "grep book")]),
    ("notebook", "TextCache 'notebook' + 'notebook-cells'", "notebook", "", False,
     [("site/downloads.py", "def cached_notebook"), ("site/downloads.py", "def _notebooks"),
      ("site/downloads.py", "def _converter_version"), ("site/downloads.py", "grep ^_VERSION"),
      ("site/notebook.py", "def _cached_cells"), ("site/notebook.py", r"grep _cached_cells\(|cache is not None")]),
    ("drawings", "drawings' SVG cache (drawing/cache.py)", "drawings", "", False,
     [("drawing/cache.py", "module")]),
    ("fonts", "TextCache 'fonts': the drawing fonts cut to the drawings' text (drawing/subset.py)", "fonts", "",
     False, [("drawing/subset.py", "def cut_faces")]),
    ("pages", "the page cache: each page's converted HTML (hosts/mkdocs/pagecache.py, .cache/ldr/pages)", "none",
     "page_cache: false", False,
     [("hosts/mkdocs/pagecache.py", "module"), ("hosts/markdown/memoglue.py", "def MemoGlue.page_inputs"),
      ("hosts/markdown/memoglue.py", "grep PAGE_READS"), ("directives/memo.py", "def Memo.inputs"),
      ("hosts/markdown/state.py", "grep page_told"), ("hosts/mkdocs/plugin.py", r"grep self\.pages|PageCache"),
      ("hosts/mkdocs/pages.py", r"grep self\.pages"), ("hosts/mkdocs/config.py", "grep page_cache")]),
    ("templates", "theme templates' bytecode cache (site/templates.py)", "none", "template_cache: false", False,
     [("site/templates.py", "module"), ("hosts/mkdocs/plugin.py", "grep template_cache|attach_compiled")]),
    ("links", "the package's files in the site as hard links to one copy each (site/shelf.py, .cache/ldr/shelf)",
     "none", "link_files: false", False,
     [("site/shelf.py", "module"), ("hosts/mkdocs/shelved.py", "module"),
      ("hosts/mkdocs/plugin.py", r"grep shelf|Shelf|link_files"), ("hosts/mkdocs/config.py", "grep link_files")]),
    ("prefork", "proof host's pre-forking (fork mode vs mode: spawn)", "none", "mode: spawn", True,
     [("run/spare.py", "def _spare"), ("run/spare.py", "def SpareFork.make_spare"),
      ("run/spare.py", "def SpareFork.hand_over"), ("run/spare.py", "def SpareFork.retire_spare"),
      ("run/spare.py", r"grep spare|fork"), ("run/hostloop.py", r"grep spare|fork"),
      ("run/host.py", r"grep spare|fork")]),
    ("spare", "  of which the spare forked ahead (vs forked when the request comes)", "spare", "", True,
     [("run/spare.py", "def _spare"), ("run/spare.py", "def SpareFork.make_spare"),
      ("run/spare.py", "def SpareFork.retire_spare"), ("run/spare.py", r"grep spare"),
      ("run/hostloop.py", r"grep spare"), ("run/host.py", r"grep spare")]),
]


def lines_of(specs: list[tuple[str, str]]) -> tuple[int, str]:
    """Distinct physical lines named by ``specs`` under build_hooks/, and what was counted
    (a spec that names nothing, code since moved, says so)."""
    per_file: dict[str, set[int]] = {}
    absent = []
    for rel, spec in specs:
        path = SNAPSHOT[0] / "build_hooks" / rel
        text = path.read_text() if path.is_file() else ""
        lines: set[int] = set()
        if spec == "module":
            lines.update(range(1, text.count("\n") + 1))
        elif spec.startswith("grep "):
            lines.update(i for i, line in enumerate(text.splitlines(), 1) if re.search(spec[5:], line))
        else:
            *outer, name = spec[4:].split(".")
            body = ast.parse(text).body
            for part in outer:
                body = next((n.body for n in body if isinstance(n, ast.ClassDef) and n.name == part), [])
            for node in (n for n in body if isinstance(n, ast.FunctionDef) and n.name == name):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines.update(range(start, node.end_lineno + 1))
        per_file.setdefault(rel, set()).update(lines)
        if not lines:
            absent.append((rel, spec))
    shown = "; ".join(f"{rel}: " + ", ".join(s + (" (absent)" if (r, s) in absent else "")
                                             for r, s in specs if r == rel) for rel in per_file)
    return sum(len(v) for v in per_file.values()), shown


def configure(root: Path, options: str) -> str:
    """mkdocs.yml with ``options`` under the ldr plugin; its file name."""
    if not options:
        return "mkdocs.yml"
    text = (root / "mkdocs.yml").read_text()
    if "\n  - ldr:\n" not in text:
        raise RuntimeError("the generated mkdocs.yml has no `- ldr:` plugin block")
    name = "mkdocs-" + re.sub(r"\W+", "-", options).strip("-") + ".yml"
    (root / name).write_text(text.replace("\n  - ldr:\n", f"\n  - ldr:\n      {options}\n", 1))
    return name


def snapshot_env() -> dict:
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(SNAPSHOT[0]), env["PYTHONPATH"]])
    return env


def build(root: Path, piece: str, config: str, timeout: float = 1200) -> dict:
    """`mkdocs build` in a fresh process through _machinery_off.py: wall, CPU of the tree, counts."""
    fd, report = tempfile.mkstemp(prefix="bench-machinery-", suffix=".json")
    os.close(fd)
    site = str(root.parent / "site")
    command = [sys.executable, str(OFF), piece, report, "--", "build", "-q", "-f", config, "-d", site]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=root, env=snapshot_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - started > timeout:
            proc.kill()
            raise RuntimeError(f"{command} did not finish in {timeout:.0f} s")
        time.sleep(0.01)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{command} failed in {root}:\n{stderr[-3000:]}")
    seen = json.loads(Path(report).read_text())
    os.unlink(report)
    if os.path.exists(report + ".host.json"):
        seen["hosts"].append(Path(report + ".host.json").read_text())
        os.unlink(report + ".host.json")
    if not seen["package"].startswith(str(SNAPSHOT[0])):
        raise RuntimeError(f"the build imported {seen['package']}, not the copy in {SNAPSHOT[0]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "seen": seen}


def entries(root: Path) -> dict[str, int]:
    cache = root / ".cache" / "ldr"
    return {d.name: sum(1 for p in d.rglob("*") if p.is_file()) for d in sorted(cache.iterdir()) if d.is_dir()}


def measure(base: Path, chapters: int, rounds: int, cold_rounds: int, log) -> dict:
    bench_scale.plain_config = lambda config: config  # the plain baseline is never built here
    made = generate(base, chapters)
    root = made["ldr"]
    for helper in (REPO / "proofs").glob("_*.py"):  # the instruments' proofs import them (_timing)
        if not (root / "proofs" / helper.name).exists():
            shutil.copy(helper, root / "proofs" / helper.name)
    settings = {"on": ("none", "mkdocs.yml")}
    for name, _, piece, options, _, _ in PIECES:
        settings[name] = (piece, configure(root, options))
    started = time.perf_counter()
    build(root, "none", "mkdocs.yml")  # records and caches
    # What an upgrade left (older records, the drift page) where bench_scale makes it: committed.
    kept = bench_scale.history(root) | made.get("pending", {}) if hasattr(bench_scale, "history") else {}
    if kept:
        bench_scale.put_history(root, kept)
    log(f"  {chapters} ch: first build (every proof runs) {time.perf_counter() - started:.0f} s")
    warm = [s for s in settings if s == "on" or not next(p[4] for p in PIECES if p[0] == s)]
    used = {key.split(":")[0] for key in build(root, "none", "mkdocs.yml")["seen"]["seen"]}
    gone = [s for s in warm if s in NAMESPACES and not used & set(NAMESPACES[s])]
    if gone:  # the code no longer has it: nothing to take away
        log(f"  {chapters} ch: no build uses the cache of {', '.join(gone)}: not measured")
        warm = [s for s in warm if s not in gone]
    for setting in warm:  # .cache/ldr as a previous build with the same setting left it
        build(root, *settings[setting])
    before = entries(root)
    runs: dict[str, list[dict]] = {s: [] for s in settings}
    for i in range(rounds):
        order = warm[i % len(warm):] + warm[:i % len(warm)]
        for setting in order if i % 2 == 0 else order[::-1]:
            runs[setting].append(build(root, *settings[setting]))
        log(f"  {chapters} ch: warm round {i + 1}/{rounds} " + " ".join(
            f"{s} {runs[s][-1]['cpu']:.2f}" for s in warm) + " (CPU s)")
    # After an edit: one line of prose added to the first chapter before each build (the
    # author's loop under `mkdocs serve`, in a fresh process): the pages that read every page
    # convert again, and what caches their fences shows.
    page = root / "docs" / "part-01.md"
    text, edits = page.read_text(), {s: [] for s in warm}
    for i in range(rounds):
        order = warm[i % len(warm):] + warm[:i % len(warm)]
        for setting in order if i % 2 == 0 else order[::-1]:
            page.write_text(text + f"\nAn edit, number {i}, before the {setting} build.\n")
            edits[setting].append(build(root, *settings[setting]))
        log(f"  {chapters} ch: edit round {i + 1}/{rounds} " + " ".join(
            f"{s} {edits[s][-1]['cpu']:.2f}" for s in warm) + " (CPU s)")
    page.write_text(text)
    out = {"warm": runs, "edit": edits, "entries": (before, entries(root)), "cold": {}}
    if cold_rounds:
        cold = {s: [] for s in ("on", *(p[0] for p in PIECES if p[4]))}
        for i in range(cold_rounds):
            for setting in list(cold) if i % 2 == 0 else list(cold)[::-1]:
                shutil.rmtree(root / "proofs" / "_results", ignore_errors=True)
                if kept:
                    bench_scale.put_history(root, kept)
                cold[setting].append(build(root, *settings[setting]))
                cold[setting][-1]["records"] = len(list((root / "proofs" / "_results").glob("*.json")))
                log(f"  {chapters} ch: cold {setting} {cold[setting][-1]['wall']:.1f} s wall, "
                    f"{cold[setting][-1]['cpu']:.1f} s CPU")
        out["cold"] = cold
    return out


def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def saving(result: dict, kind: str, piece: str, key: str) -> float | None:
    runs = result[kind]
    if not runs.get(piece) or not runs.get("on"):
        return None
    off, on = median(runs[piece], key), median(runs["on"], key)
    return 100 * (off - on) / off


def cell(value: float | None) -> str:
    return "     -" if value is None else f"{value:+6.1f}"


def report(results: dict[int, dict], rounds: int) -> None:
    sizes = sorted(results)
    top = sizes[-1]
    print(f"\nsaving = (off - on) / off, %, medians of {rounds} warm builds per setting (CPU: user + system "
          "of the build's process tree; wall); cold: wall of the cold builds (every proof runs)")
    head = ("".join(f" warm {c:>2} ch CPU/wall" for c in sizes) + "".join(f"  edit {c:>2} ch" for c in sizes)
            + "".join(f"  cold {c:>2} ch" for c in sizes))
    print(f"{'piece':<10} {'lines':>5} {head}  verdict")
    for name, _, _, _, cold_only, specs in PIECES:
        count, _ = lines_of(specs)
        cells = "".join(f"       {cell(saving(results[c], 'warm', name, 'cpu'))}/"
                        f"{cell(saving(results[c], 'warm', name, 'wall'))}" for c in sizes)
        cells += "".join(f"     {cell(saving(results[c], 'edit', name, 'cpu'))}" for c in sizes)
        cells += "".join(f"     {cell(saving(results[c], 'cold', name, 'wall'))}" for c in sizes)
        kinds = ("cold",) if cold_only else ("warm", "edit")
        decisive = [[saving(results[c], kind, name, "wall" if cold_only else "cpu") for kind in kinds]
                    for c in reversed(sizes)]
        decided = next((max(v for v in found if v is not None) for found in decisive
                        if any(v is not None for v in found)), None)
        verdict = ("gone" if count == 0 else "?") if decided is None else ("keep" if decided >= KEEP else "drop")
        print(f"{name:<10} {count:>5} {cells}  {verdict}")
    print(f"\nverdict: keep when the warm CPU saving at {top} chapters (the largest size), with nothing "
          f"changed or after a one-line edit of the first chapter (edit, CPU), is >= {KEEP:.0f}%; "
          "prefork, spare: the cold wall saving at the largest size with a cold build; gone: no build uses it")
    shared, _ = lines_of([("core/cache.py", "module")])
    print("\nlines counted (physical, with docstrings and comments; core/cache.py, "
          f"{shared} lines, is shared by the first five and goes only if all of them go):")
    for name, what, _, _, _, specs in PIECES:
        print(f"  {name:<10} {what}\n  {'':<10} {lines_of(specs)[1]}")
    for c in sizes:
        r = results[c]
        print(f"\n{c} chapter(s): medians [min-max] over the rounds")
        for kind in ("warm", "edit", "cold"):
            for setting, runs in r.get(kind, {}).items():
                if runs:
                    cpu, wall = [x["cpu"] for x in runs], [x["wall"] for x in runs]
                    print(f"  {kind} {setting:<10} CPU {statistics.median(cpu):7.2f} s [{min(cpu):.2f}-{max(cpu):.2f}]"
                          f"   wall {statistics.median(wall):7.2f} s [{min(wall):.2f}-{max(wall):.2f}]")
        print("  checks (what the last build of each setting saw; files per .cache/ldr folder before/after "
              "the warm rounds):")
        before, after = r["entries"]
        print("    files: " + ", ".join(f"{k} {before.get(k, 0)}/{after.get(k, 0)}"
                                      for k in sorted(set(before) | set(after))))
        for kind in ("warm", "cold"):
            for setting, runs in r[kind].items():
                if runs:
                    seen = runs[-1]["seen"]
                    counts = ", ".join(f"{k} {v}" for k, v in sorted(seen["seen"].items()))
                    extra = f"; proof hosts: {seen['hosts'] or 'none'}"
                    if kind == "cold":
                        extra += f"; records written {runs[-1]['records']}"
                    print(f"    {kind} {setting:<10} {counts}{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,12", help="chapter counts (default 1,12)")
    parser.add_argument("--rounds", type=int, default=5, help="warm builds per setting and size")
    parser.add_argument("--cold-rounds", type=int, default=2, help="cold builds per setting and size")
    parser.add_argument("--cold-sizes", help="sizes with cold builds (default: every size)")
    parser.add_argument("--no-cold", action="store_true", help="no cold builds")
    parser.add_argument("--pieces", help="measure only these pieces (comma-separated names; default: all)")
    args = parser.parse_args()
    if args.pieces:
        wanted = set(args.pieces.split(","))
        unknown = wanted - {p[0] for p in PIECES}
        if unknown:
            parser.error(f"unknown pieces: {', '.join(sorted(unknown))}; known: {', '.join(p[0] for p in PIECES)}")
        PIECES[:] = [p for p in PIECES if p[0] in wanted]
    sizes = [int(s) for s in args.sizes.split(",")]
    cold_sizes = set(sizes if args.cold_sizes is None else (int(s) for s in args.cold_sizes.split(",")))
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:5.0f} s]{message}", flush=True)

    base = Path(tempfile.mkdtemp(prefix="bench-machinery-"))
    PYCACHE[:] = [str(base / "pycache")]
    SNAPSHOT[:] = [base / "src"]
    try:
        shutil.copytree(REPO / "build_hooks", base / "src" / "build_hooks",
                        ignore=shutil.ignore_patterns("__pycache__"))
        head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %cI"], capture_output=True, text=True)
        log(f" build_hooks copied at the start from the working tree (HEAD {head.stdout.strip()}, "
            "uncommitted changes included) to " + str(base / "src"))
        # Bytecode compiled once before anything is timed, as bench_scale does.
        subprocess.run([sys.executable, "-c", "import torch, jupytext, nbformat, mkdocs.commands.build, "
                        "material.plugins.search.plugin, build_hooks.hosts.mkdocs.plugin"],
                       env=snapshot_env(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        results = {}
        for chapters in sizes:
            cold = 0 if args.no_cold or chapters not in cold_sizes else args.cold_rounds
            results[chapters] = measure(base / f"c{chapters}", chapters, args.rounds, cold, log)
        report(results, args.rounds)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        print(f"\nbench_machinery ran {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
