"""``ldr``: run proofs, inspect the store, check it in CI, render drawings."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.core.library import Library
from build_hooks.core.status import status_report, unmeasured_reason
from .siteconfig import layout_for, site_config



def find_root(start: Path) -> Path:
    for folder in [start, *start.parents]:
        if site_config(folder) or ((folder / "pyproject.toml").is_file() and (folder / "proofs").is_dir()):
            return folder
    raise LdrError(f"no project found from {start}: expected mkdocs.yml (or pyproject.toml and proofs/) "
                   "in a parent folder; run ldr inside the project or pass --root")


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def _console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _ended(record) -> str:
    """How a run that never succeeded ended, from its record, in the runner's own words."""
    from build_hooks.core.runner import RunResult

    return RunResult(record.proof, record.status, record.returncode, record.signal, record.wall_s,
                     "", "").describe()


def _not_run(library: Library, names: list[str] | None, todo) -> tuple[list[str], list[str]]:
    """Why selected proofs will not run: (cannot run here, not fresh but not rerun)."""
    planned = {proof.name for proof in todo}
    impossible, held = [], []
    states = library.states(names)
    for proof in library.select(names):
        needs = library.needs(proof)
        settled = [s for s in states if s.proof is proof] and all(
            s.state == "fresh" for s in states if s.proof is proof)
        if needs and (names or not settled):
            impossible.append(f"{proof.name} needs {' or '.join(needs)}; this machine has neither: "
                              "run it on one and merge the record")
    for state in states:
        name, record = state.proof.name, state.record
        if name in planned or record is None or state.state not in ("failed", "problem"):
            continue
        if state.state == "failed":
            why = record.failure.message if record.failure else _ended(record)
            held.append(f"{name} ({state.device_class}): failed on its last run ({why}); "
                        f"rerun with `ldr run {name} --force` once the cause is fixed")
        else:
            held.append(f"{name} ({state.device_class}): its last run printed bad data lines "
                        f"({'; '.join(record.problems)}); fix the script (it reruns by itself) "
                        f"or rerun with `ldr run {name} --force`")
    return impossible, held


def cmd_run(args, library: Library) -> int:
    console = _console()
    names = args.proofs or None
    repeat = max(1, args.repeat or 1)
    force = args.force or repeat > 1
    todo = library.plan(names, force)
    impossible, held = _not_run(library, names, todo)
    for line in impossible:
        console.print(f"[yellow]cannot run:[/] {escape(line)}", highlight=False, soft_wrap=True)
    for line in held:
        console.print(f"[red]not rerun:[/] {escape(line)}", highlight=False, soft_wrap=True)
    if not todo:
        library.clean_leftovers()
        for item in library.diagnostics:
            console.print(f"[dim]note:[/] {escape(item.message)}", highlight=False)
        if names and len(impossible) == len(names):
            return 1
        if not impossible and not held:
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
                for problem in record.problems:
                    progress.console.print(f"         [yellow]problem:[/] {escape(problem)}", highlight=False)
            else:
                failures += 1
                progress.console.print(f"[red]failed[/] {proof.name:<24} {result.wall_s:7.2f} s  "
                                       f"{result.describe()}")
                for line in (record.failure.stderr_tail if record.failure else record.stderr[-8:]):
                    progress.console.print(f"         [dim]{line}[/]", markup=False, highlight=False)

        for _ in range(repeat):
            library.run(args.proofs or None, force, on_start=on_start, on_done=on_done)
    if repeat > 1:
        from build_hooks.core.noise import record_noise

        for path in record_noise(library.store, runs, repeat):
            console.print(f"noise of {repeat} runs: {path}", soft_wrap=True, markup=False)
    where = library.store.dir
    where = where.relative_to(library.root) if where.is_relative_to(library.root) else where
    console.print(f"{len(todo)} proof(s) in {time.perf_counter() - started:.2f} s, {failures} failed; "
                  f"records in {where}/")
    for item in library.diagnostics:
        level = "[yellow]warning:[/]" if item.level == "warning" else "[dim]note:[/]"
        console.print(f"{level} {escape(item.message)}", highlight=False)
    return 1 if failures or (names and len(impossible) == len(names)) else 0


def cmd_status(args, library: Library) -> int:
    report = status_report(library, args.proofs or None)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    from rich.table import Table

    table = Table(title=f"Proofs (torch pin {report['pin']}, this host: {report['host']['accelerator'] or 'cpu'})")
    for column in ("proof", "device", "state", "torch", "measured", "wall", "data keys", "why"):
        table.add_column(column)
    colours = {"fresh": "green", "foreign": "cyan", "stale": "yellow", "failed": "red", "missing": "red",
               "corrupt": "red", "problem": "red", "unmeasured": "yellow"}
    for proof in report["proofs"]:
        if not proof["records"]:
            allowed = "; allowed (allow_unmeasured)" if proof["allowed_unmeasured"] else ""
            table.add_row(proof["name"], " or ".join(proof["needs"] or []) or "-",
                          f"[{colours['unmeasured']}]unmeasured[/]", "-", "-", "-", "-",
                          unmeasured_reason(proof["needs"] or []) + allowed)
        for rec in proof["records"]:
            table.add_row(
                proof["name"], rec["device_class"], f"[{colours[rec['state']]}]{rec['state']}[/]",
                rec["torch"] or "-", (rec["measured_at"] or "-")[:10],
                f"{rec['wall_s']:.2f} s" if rec["wall_s"] is not None else "-",
                escape(", ".join(rec["data_keys"]) or "-"), escape("; ".join(rec["reasons"])),
            )
    from rich.console import Console

    console = Console(highlight=False)
    console.print(table)
    for path in report["orphans"]:
        console.print(f"[yellow]orphan:[/] {path} has no proof script any more; delete it")
    for path in report["leftovers"]:
        console.print(f"[yellow]leftover:[/] {path} is from a write that never finished; `ldr run` removes it")
    for proof in report["proofs"]:  # the full text of what a narrow table cell may wrap
        for rec in proof["records"]:
            if rec["state"] in ("corrupt", "problem"):
                for reason in rec["reasons"]:
                    console.print(f"[red]{rec['state']}:[/] {proof['name']} ({rec['device_class']}): "
                                  f"{escape(reason)}", soft_wrap=True)
    return 0


def cmd_check(args, library: Library) -> int:
    report = status_report(library, None)
    bad = [
        (proof["name"], rec)
        for proof in report["proofs"] for rec in proof["records"]
        if rec["state"] not in ("fresh", "foreign") and (not args.device or rec["device_class"] in args.device)
    ]
    unmeasured = [
        proof for proof in report["proofs"]
        if not proof["records"] and not proof["allowed_unmeasured"]
        and (not args.device or set(args.device) & set(proof["needs"] or []))
    ]
    for name, rec in bad:
        why = "; ".join(rec["reasons"]) or rec["state"]
        print(f"{name} ({rec['device_class']}): {rec['state']}: {why}", file=sys.stderr)
    for proof in unmeasured:
        print(f"{proof['name']}: unmeasured: {unmeasured_reason(proof['needs'] or [])}; fix: run it on "
              "such a machine and commit the record, or set \"allow_unmeasured\": True in its PROOF",
              file=sys.stderr)
    for path in report["orphans"]:
        print(f"{path}: orphan: its proof script is gone; delete the record", file=sys.stderr)
    for path in report["leftovers"]:
        print(f"{path}: leftover temporary file of a write that never finished; `ldr run` removes it",
              file=sys.stderr)
    total = sum(len(p["records"]) for p in report["proofs"])
    trouble = len(bad) + len(unmeasured) + len(report["orphans"]) + len(report["leftovers"])
    if trouble:
        print(f"ldr check: {trouble} item(s) need attention; fix: `ldr run` (or `ldr run NAME --force`), "
              "fix reported data lines, delete orphans, and commit proofs/_results/", file=sys.stderr)
        return 1
    allowed = sum(1 for p in report["proofs"] if not p["records"])
    note = f" ({allowed} proof(s) allowed unmeasured here)" if allowed else ""
    print(f"ldr check: {total} record(s) fresh against torch {report['pin']} and their scripts{note}")
    return 0


def cmd_diff(args, library: Library) -> int:
    from build_hooks.core.diff import diff, report

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
    from build_hooks.core.drift import cmd_drift as run_drift

    return run_drift(args, library)


def cmd_merge(args, library: Library) -> int:
    from build_hooks.core.shards import cmd_merge as run_merge

    return run_merge(args, library)


def cmd_notebook(args, library: Library) -> int:
    from build_hooks.core.downloads import cmd_notebook as run_notebook

    return run_notebook(args, library)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["draw"]:
        from build_hooks.drawing import draw_command

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
    check = sub.add_parser("check", help="exit 1 when a record is stale, failed, missing, has "
                           "data-line problems, or a proof has no record at all (for CI)")
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
    notebook = sub.add_parser("notebook", help="write a proof as the Jupyter notebook the site publishes")
    notebook.add_argument("proof")
    notebook.add_argument("-o", "--output", type=Path, metavar="FILE", help="default: standard output")
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
        layout = layout_for(root)  # the plugin's folder and pin options in mkdocs.yml
        store = None
        if getattr(args, "any_torch", False) and not args.shard:
            raise LdrError("--any-torch records under another torch than the pin, so only into a shard: "
                           "add --shard DIR (and bring it home with `ldr merge DIR`)")
        if getattr(args, "shard", None):
            from build_hooks.core.shards import ShardStore

            store = ShardStore(args.shard.resolve(), layout.store(), any_torch=args.any_torch)
        library = Library(root, python=getattr(args, "python", None), slots=getattr(args, "jobs", None),
                          store=store, layout=layout)
        try:
            return {"run": cmd_run, "status": cmd_status, "check": cmd_check, "diff": cmd_diff,
                    "drift": cmd_drift, "merge": cmd_merge, "notebook": cmd_notebook}[args.command](args, library)
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
