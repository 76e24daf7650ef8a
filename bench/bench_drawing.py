"""Drawing renderer benchmark: our render time against the official exporter's, and fidelity.

    .venv/bin/python bench/bench_drawing.py [--runs 9] [--oracle /tmp/excalidraw-ref] [--compare-py]

For each real scene in ../shared/excalidraw/scenes:

* ours: median wall time of ``render_svg`` (parse + restore + sketch + SVG, no cache) over --runs;
* exporter: the official ``exportToSvg`` of @excalidraw/excalidraw 0.18.1 in headless chromium,
  all scenes in one ``render.mjs`` run, the per-scene time it reports (after the browser start and
  the bundle load, so the exporter is not charged for them);
* ratio = exporter / ours (> 1: we are faster; target: on every scene);
* F: ink F-score at 1 px between the two rasterised at scale 1 by the same chromium
  (``tests/drawing/fidelity.py``); with --compare-py also the oracle's compare.py verbatim.

The oracle is built once (needs node, npm, /usr/bin/chromium):
    cp -r ../shared/tools/excalidraw-ref /tmp/excalidraw-ref && cd /tmp/excalidraw-ref
    npm install && node build.mjs
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(REPO / "tests" / "drawing"))  # fidelity.py: the measure the tests use too

from fidelity import ink_fscore, snap, standalone  # noqa: E402

from build_hooks.drawing import render_svg  # noqa: E402

SHARED = REPO.parent / "shared"
SCENES = SHARED / "excalidraw" / "scenes"
COMPARE = SHARED / "tools" / "excalidraw-ref" / "compare.py"


def time_ours(scene: Path, runs: int) -> float:
    text = scene.read_text(encoding="utf-8")
    render_svg(text, palette=False, source=scene.name)  # warm imports and the font metrics
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        render_svg(text, palette=False, source=scene.name)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def time_exporter(oracle: Path, scenes: list[Path], work: Path) -> dict[str, float]:
    copies = []
    for s in scenes:
        dst = work / s.name
        shutil.copyfile(s, dst)
        copies.append(dst)
    out = subprocess.run(["node", str(oracle / "render.mjs"), *map(str, copies)], cwd=oracle,
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"render.mjs failed:\n{out.stderr[-2000:]}")
    found = {}
    for line in out.stdout.splitlines():
        m = re.match(r"(.+?) -> .+ \((\d+) bytes, (\d+) ms\)", line)
        if m:
            found[Path(m.group(1)).stem] = float(m.group(3))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--oracle", type=Path, default=Path("/tmp/excalidraw-ref"))
    ap.add_argument("--compare-py", action="store_true", help="also run the oracle's compare.py (slow)")
    args = ap.parse_args()
    scenes = sorted(SCENES.glob("*.excalidraw"))
    if not scenes:
        print(f"no scenes under {SCENES}: the shared reference scenes live beside the repository")
        return 2
    work = Path(tempfile.mkdtemp(prefix="bench-drawing-"))
    ours = {s.stem: time_ours(s, args.runs) for s in scenes}
    if (args.oracle / "dist" / "entry.js").exists():
        theirs = time_exporter(args.oracle, scenes, work)
    else:
        print(f"(exporter timing skipped: build the oracle in {args.oracle}, see this file's docstring)")
        theirs = {}
    svgs = []
    for s in scenes:
        shutil.copyfile(s.with_name(f"{s.stem}.ref.svg"), work / f"{s.stem}.ref.svg")
        (work / f"{s.stem}.ours.svg").write_text(standalone(render_svg(s, palette=False, source=s.name)))
        svgs += [work / f"{s.stem}.ref.svg", work / f"{s.stem}.ours.svg"]
    snap(svgs, scale=1)
    print(f"{'scene':46} {'ours ms':>8} {'export ms':>10} {'ratio':>7} {'F@1px':>7}"
          + (f" {'compare.py':>10}" if args.compare_py else ""))
    fs, ratios = [], []
    for s in scenes:
        f = ink_fscore(work / f"{s.stem}.ref.png", work / f"{s.stem}.ours.png", tol=1)["f"]
        fs.append(f)
        t = theirs.get(s.stem)
        ratio = t / ours[s.stem] if t else float("nan")
        if t:
            ratios.append(ratio)
        line = f"{s.stem[:46]:46} {ours[s.stem]:8.1f} {t if t else float('nan'):10.0f} {ratio:7.1f} {f:7.4f}"
        if args.compare_py:
            out = subprocess.run([sys.executable, str(COMPARE), str(work / f"{s.stem}.ref.png"),
                                  str(work / f"{s.stem}.ours.png"), "--tol", "1"], capture_output=True, text=True)
            m = re.search(r"F=([0-9.]+)", out.stdout)
            line += f" {m.group(1) if m else '?':>10}"
        print(line)
    print(f"mean F@1px = {statistics.mean(fs):.4f}, min = {min(fs):.4f} (targets: mean >= 0.95, min >= 0.90)")
    if ratios:
        faster = sum(r > 1 for r in ratios)
        print(f"ours faster on {faster}/{len(ratios)} scenes; ratio exporter/ours: min {min(ratios):.1f}x, "
              f"median {statistics.median(ratios):.1f}x")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
