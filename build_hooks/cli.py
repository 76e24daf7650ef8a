"""``ldr``: run proofs, inspect the store, check it in CI, render drawings."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .errors import LdrError
from .library import Library
from .status import status_report



def find_root(start: Path) -> Path:
    for folder in [start, *start.parents]:
        if (folder / "pyproject.toml").is_file() and (folder / "proofs").is_dir():
            return folder
    raise LdrError(f"no project found from {start}: expected pyproject.toml and proofs/ in a parent "
                   "folder; run ldr inside the project or pass --root")


def _console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def cmd_run(args, library: Library) -> int:
    console = _console()
    repeat = max(1, args.repeat or 1)
    force = args.force or repeat > 1
    todo = library.plan(args.proofs or None, force)
    if not todo:
        console.print("[green]Nothing to run:[/] every selected record is fresh (use --force to rerun).")
        return 0
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    failures = 0
    started = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("starting the proof host", total=len(todo) * repeat)
        runs: dict[tuple[str, str], list] = {}

        def on_start(proof):
            progress.update(task, description=f"running {proof.name}")

        def on_done(proof, result, record):
            nonlocal failures
            progress.advance(task)
            runs.setdefault((proof.name, record.device_class), []).append(record)
            where = f"{record.device_class}: {record.device}"
            if result.ok:
                progress.console.print(f"[green]ok[/]     {proof.name:<24} {result.wall_s:7.2f} s  {where}")
            else:
                failures += 1
                progress.console.print(f"[red]failed[/] {proof.name:<24} {result.wall_s:7.2f} s  "
                                       f"{result.describe()}")
                for line in (record.failure.stderr_tail if record.failure else record.stderr[-8:]):
                    progress.console.print(f"         [dim]{line}[/]", markup=False, highlight=False)

        for _ in range(repeat):
            library.run(args.proofs or None, force, on_start=on_start, on_done=on_done)
    if repeat > 1:
        from .noise import record_noise

        for path in record_noise(library.store, runs, repeat):
            console.print(f"noise of {repeat} runs: {path}", soft_wrap=True, markup=False)
    where = library.store.dir
    where = where.relative_to(library.root) if where.is_relative_to(library.root) else where
    console.print(f"{len(todo)} proof(s) in {time.perf_counter() - started:.2f} s, {failures} failed; "
                  f"records in {where}/")
    for item in library.diagnostics:
        console.print(f"[yellow]warning:[/] {item.message}")
    return 1 if failures else 0


def cmd_status(args, library: Library) -> int:
    report = status_report(library, args.proofs or None)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    from rich.table import Table

    table = Table(title=f"Proofs (torch pin {report['pin']}, this host: {report['host']['accelerator'] or 'cpu'})")
    for column in ("proof", "device", "state", "torch", "measured", "wall", "data keys", "why"):
        table.add_column(column)
    colours = {"fresh": "green", "foreign": "cyan", "stale": "yellow", "failed": "red", "missing": "red", "corrupt": "red"}
    for proof in report["proofs"]:
        for rec in proof["records"]:
            table.add_row(
                proof["name"], rec["device_class"], f"[{colours[rec['state']]}]{rec['state']}[/]",
                rec["torch"] or "-", (rec["measured_at"] or "-")[:10],
                f"{rec['wall_s']:.2f} s" if rec["wall_s"] is not None else "-",
                ", ".join(rec["data_keys"]) or "-", "; ".join(rec["reasons"]) or "",
            )
    from rich.console import Console

    console = Console(highlight=False)
    console.print(table)
    for path in report["orphans"]:
        console.print(f"[yellow]orphan:[/] {path} has no proof script any more; delete it")
    return 0


def cmd_check(args, library: Library) -> int:
    report = status_report(library, None)
    bad = [
        (proof["name"], rec)
        for proof in report["proofs"] for rec in proof["records"]
        if rec["state"] not in ("fresh", "foreign") and (not args.device or rec["device_class"] in args.device)
    ]
    for name, rec in bad:
        why = "; ".join(rec["reasons"]) or rec["state"]
        print(f"{name} ({rec['device_class']}): {rec['state']}: {why}", file=sys.stderr)
    for path in report["orphans"]:
        print(f"{path}: orphan: its proof script is gone; delete the record", file=sys.stderr)
    total = sum(len(p["records"]) for p in report["proofs"])
    if bad or report["orphans"]:
        print(f"ldr check: {len(bad) + len(report['orphans'])} record(s) need attention; fix: `ldr run` "
              "(or `ldr run NAME --force`), delete orphans, and commit proofs/_results/", file=sys.stderr)
        return 1
    print(f"ldr check: {total} record(s) fresh against torch {report['pin']} and their scripts")
    return 0


def cmd_diff(args, library: Library) -> int:
    from .diff import diff, report

    diffs = diff(library, args.rev)
    if args.json:
        print(json.dumps([{
            "proof": d.proof, "device_class": d.device_class, "old_torch": d.old_torch,
            "new_torch": d.new_torch, "new": d.new, "output_lines_changed": d.output_lines_changed,
            "changes": [{"key": c.key, "old": c.old, "new": c.new, "relative": c.relative,
                         "quoted_at": d.quoted_at.get(c.key, [])} for c in d.changes],
            "excerpted_at": d.excerpted_at} for d in diffs], indent=2))
    else:
        print(report(diffs, args.rev))
    return 0


def cmd_drift(args, library: Library) -> int:
    from .drift import cmd_drift as run_drift

    return run_drift(args, library)


def cmd_merge(args, library: Library) -> int:
    from .shards import cmd_merge as run_merge

    return run_merge(args, library)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["draw"]:
        from .drawing import draw_command

        return draw_command(argv[1:])
    parser = argparse.ArgumentParser(prog="ldr", description=__doc__)
    parser.add_argument("--root", type=Path, help="the project folder (default: found from here)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run missing or stale proofs and record them")
    run.add_argument("proofs", nargs="*", help="proof names (default: all)")
    run.add_argument("--force", action="store_true", help="rerun even when the record is fresh")
    run.add_argument("--jobs", type=int, help="cores for proofs marked parallel")
    run.add_argument("--python", help="interpreter for proofs (default: this one)")
    run.add_argument("--shard", type=Path, metavar="DIR",
                     help="record into DIR instead of proofs/_results (bring it home with `ldr merge`)")
    run.add_argument("--any-torch", action="store_true",
                     help="with --shard: run under this interpreter's torch even when it is not the pin "
                          "(its accelerator records merge as foreign)")
    run.add_argument("--repeat", type=int, metavar="N",
                     help="run each selected proof N times and record the spread of its values (noise)")
    status = sub.add_parser("status", help="list every proof and the state of its records")
    status.add_argument("proofs", nargs="*")
    status.add_argument("--json", action="store_true", help="the stable machine-readable form")
    check = sub.add_parser("check", help="exit 1 when a record is stale, failed or missing (for CI)")
    check.add_argument("--device", action="append", choices=("cpu", "cuda", "mps"),
                       help="only check these device classes")
    moved = sub.add_parser("diff", help="values and output that moved since a git revision, and where prose quotes them")
    moved.add_argument("rev", nargs="?", default="HEAD", help="git revision to compare with (default: HEAD)")
    moved.add_argument("--json", action="store_true")
    drift = sub.add_parser("drift", help="what changed between two recorded torch versions")
    drift.add_argument("--from", dest="from_version", metavar="V", help="default: the newest history version older than --to")
    drift.add_argument("--to", dest="to_version", metavar="V", help="default: the current records' version")
    drift_out = drift.add_mutually_exclusive_group()
    drift_out.add_argument("--json", action="store_true", help="the stable machine-readable form")
    drift_out.add_argument("--html", type=Path, metavar="FILE", help="write a standalone HTML report")
    merge = sub.add_parser("merge", help="bring shards recorded elsewhere (ldr run --shard) into the store")
    merge.add_argument("shards", nargs="+", metavar="DIR")
    sub.add_parser("draw", help="render an Excalidraw scene: ldr draw IN OUT.svg [--dark]")
    args = parser.parse_args(argv)
    try:
        root = (args.root or find_root(Path.cwd())).resolve()
        store = None
        if getattr(args, "any_torch", False) and not args.shard:
            raise LdrError("--any-torch records under another torch than the pin, so only into a shard: "
                           "add --shard DIR (and bring it home with `ldr merge DIR`)")
        if getattr(args, "shard", None):
            from .shards import ShardStore
            from .store import Store

            store = ShardStore(args.shard.resolve(), Store(root / "proofs"), any_torch=args.any_torch)
        library = Library(root, python=getattr(args, "python", None), slots=getattr(args, "jobs", None),
                          store=store)
        try:
            return {"run": cmd_run, "status": cmd_status, "check": cmd_check, "diff": cmd_diff,
                    "drift": cmd_drift, "merge": cmd_merge}[args.command](args, library)
        finally:
            library.close()
    except LdrError as exc:
        print(f"ldr: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
