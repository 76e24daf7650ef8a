"""Two builds of our site, loaded in turn: does a change move what a phone pays?

    .venv/bin/python bench/bench_ab.py --against TREE [--tree TREE] [--page part-00-the-map.md]
        [--loads 10] [--profile phone|laptop]

`bench_reader.py` compares our pages with plain mkdocs-material, and one page's Total Blocking
Time moves by several hundred milliseconds from load to load on a phone profile, so two
`bench_reader` runs, one before a change and one after, decide little. This builds the project
twice (`--tree`, default this checkout, and `--against`, e.g. the commit before:
`git archive HEAD~1 | tar -x -C /tmp/before`), both with LDR_RUN=false, serves both, and loads
one page from each in turn, cold (bench_reader's profiles and its gzip server), then prints per
side the medians of TBT, the long tasks' total, the load event and FCP, with every load's TBT,
and the differences. The copy at `--against` must be a whole project (its build_hooks is
imported first when it builds).

Run it first against a copy of the same commit: the difference it prints then is the noise. On
the machine of 2026-12-03 two identical builds differed by 140 ms of TBT (8 phone loads each) and
327 ms (6 loads each), their spreads hardly overlapping, so a change of a few hundred ms needs
many more loads than that before it shows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_reader as reader  # noqa: E402 - this folder's sibling

METRICS = (("tbt", "TBT ms"), ("long", "long tasks ms"), ("load", "load event ms"), ("fcp", "FCP ms"))


def loads(base: dict[str, str], page: str, count: int, profile: str) -> dict[str, list[dict[str, float]]]:
    """``count`` cold loads of ``page`` per side, the sides alternating which goes first."""
    out: dict[str, list[dict[str, float]]] = {side: [] for side in base}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=reader.CHROMIUM, args=reader.ARGS)
        try:
            for i in range(count):
                for side in (list(base) if i % 2 == 0 else list(base)[::-1]):
                    got = reader.load(browser, base[side], reader.url_of(page), reader.PROFILES[profile], 1.5)
                    out[side].append({"tbt": got["tbt"], "long": sum(d for _, d in got["long_tasks"]),
                                      "load": got["load"], "fcp": got["fcp"]})
        finally:
            browser.close()
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other copy of the project (before)")
    parser.add_argument("--tree", type=Path, default=reader.ROOT, help="this side's project (default: the checkout)")
    parser.add_argument("--page", default="part-00-the-map.md", help="a page under docs/")
    parser.add_argument("--loads", type=int, default=10, help="cold loads per side")
    parser.add_argument("--profile", choices=sorted(reader.PROFILES), default="phone")
    args = parser.parse_args(argv)
    trees = {"before": args.against.resolve(), "after": args.tree.resolve()}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_ab_") as tmp:
        sites = {side: Path(tmp) / side for side in trees}
        for side, tree in trees.items():
            reader.build(tree, tree / "mkdocs.yml", sites[side], {"LDR_RUN": "false"})
            if not reader.html_file(sites[side], args.page).is_file():
                parser.error(f"{tree} did not build {args.page}")
        servers = {side: reader.serve(site) for side, site in sites.items()}
        try:
            got = loads({side: url for side, (_, url) in servers.items()}, args.page, args.loads, args.profile)
        finally:
            for server, _ in servers.values():
                server.shutdown()
    print(f"{args.page}, {args.profile}, {args.loads} cold loads per side, in turn; before = {trees['before']}, "
          f"after = {trees['after']}")
    print(f"  {'':<16} {'before':>9} {'after':>9} {'after - before':>15}")
    for key, label in METRICS:
        before, after = (statistics.median(run[key] for run in got[side]) for side in ("before", "after"))
        print(f"  {label:<16} {before:9,.0f} {after:9,.0f} {after - before:+15,.0f}")
    for side in ("before", "after"):
        spread = sorted(run["tbt"] for run in got[side])
        print(f"  every load's TBT, {side}: {', '.join(f'{tbt:,.0f}' for tbt in spread)}")
    print(f"\nwall time {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
