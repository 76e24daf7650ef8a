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
    todo = library.plan(args.proofs or None, args.force)
    if not todo:
        console.print("[green]Nothing to run:[/] every selected record is fresh (use --force to rerun).")
        return 0
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    failures = 0
    started = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("starting the proof host", total=len(todo))

        def on_start(proof):
            progress.update(task, description=f"running {proof.name}")

        def on_done(proof, result, record):
            nonlocal failures
            progress.advance(task)
            where = f"{record.device_class}: {record.device}"
            if result.ok:
                progress.console.print(f"[green]ok[/]     {proof.name:<24} {result.wall_s:7.2f} s  {where}")
            else:
                failures += 1
                progress.console.print(f"[red]failed[/] {proof.name:<24} {result.wall_s:7.2f} s  "
                                       f"{result.describe()}")
                for line in (record.failure.stderr_tail if record.failure else record.stderr[-8:]):
                    progress.console.print(f"         [dim]{line}[/]", markup=False, highlight=False)

        library.run(args.proofs or None, args.force, on_start=on_start, on_done=on_done)
    console.print(f"{len(todo)} proof(s) in {time.perf_counter() - started:.2f} s, {failures} failed; "
                  f"records in {library.store.dir.relative_to(library.root)}/")
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
    colours = {"fresh": "green", "stale": "yellow", "failed": "red", "missing": "red", "corrupt": "red"}
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
        if rec["state"] != "fresh" and (not args.device or rec["device_class"] in args.device)
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
    status = sub.add_parser("status", help="list every proof and the state of its records")
    status.add_argument("proofs", nargs="*")
    status.add_argument("--json", action="store_true", help="the stable machine-readable form")
    check = sub.add_parser("check", help="exit 1 when a record is stale, failed or missing (for CI)")
    check.add_argument("--device", action="append", choices=("cpu", "cuda", "mps"),
                       help="only check these device classes")
    moved = sub.add_parser("diff", help="values and output that moved since a git revision, and where prose quotes them")
    moved.add_argument("rev", nargs="?", default="HEAD", help="git revision to compare with (default: HEAD)")
    moved.add_argument("--json", action="store_true")
    sub.add_parser("draw", help="render an Excalidraw scene: ldr draw IN OUT.svg [--dark]")
    args = parser.parse_args(argv)
    import signal
    import threading

    stopped_by: list[int] = []

    def on_term(signum, frame):  # SIGTERM ends a run as cleanly as Ctrl-C does
        stopped_by.append(signum)
        raise KeyboardInterrupt

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, on_term) if main_thread else None
    try:
        root = (args.root or find_root(Path.cwd())).resolve()
        library = Library(root, python=getattr(args, "python", None), slots=getattr(args, "jobs", None))
        try:
            return {"run": cmd_run, "status": cmd_status, "check": cmd_check, "diff": cmd_diff}[args.command](args, library)
        finally:
            library.close()
    except LdrError as exc:
        print(f"ldr: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        running = getattr(exc, "running", [])
        print(f"ldr: {'terminated' if stopped_by else 'interrupted'}; stopped {len(running)} running "
              "proof(s), nothing recorded for them", file=sys.stderr)
        return 128 + (stopped_by[0] if stopped_by else signal.SIGINT)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
