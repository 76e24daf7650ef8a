"""``ldr``: run proofs, inspect the store, check it in CI, render drawings."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from build_hooks.core.errors import LdrError
from build_hooks.core.writeerrors import explain
from build_hooks.hosts.cli.args import DATA_COMMANDS, build_parser, command_of, draw_argv
from build_hooks.hosts.cli.console import RunDisplay, console, guarded_streams, say
from build_hooks.hosts.cli.report import cmd_check, cmd_status, shown
from build_hooks.hosts.siteconfig import layout_for, site_config
from build_hooks.run.library import Library
from build_hooks.run.results import last_lines, remedy
from build_hooks.run.status import ended as _ended


def find_root(start: Path) -> Path:
    for folder in [start, *start.parents]:
        if site_config(folder) or ((folder / "pyproject.toml").is_file() and (folder / "proofs").is_dir()):
            return folder
    raise LdrError(f"no project found from {start}: expected mkdocs.yml (or pyproject.toml and proofs/) "
                   "in a parent folder; run ldr inside the project or pass --root")


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
    from build_hooks.run.progress import Estimate

    err, out = console(stderr=True), console()  # progress and problems; results
    names = args.proofs or None
    repeat = max(1, args.repeat or 1)
    force = args.force or repeat > 1
    todo = library.plan(names, force)
    impossible, held = _not_run(library, names, todo)
    for line in impossible:
        say(err, ("cannot run: ", "yellow"), line)
    for line in held:
        say(err, ("not rerun: ", "red"), line)
    if not todo:
        library.clean_leftovers()
        for item in library.diagnostics:
            say(err, ("note: ", "dim"), item.message)
        if names and len(impossible) == len(names):
            return 1
        if not impossible and not held:
            say(out, ("Nothing to run:", "green"), " every selected record is fresh (use --force to rerun).")
        return 0
    failures = 0
    started = time.perf_counter()
    runs: dict[tuple[str, str], list] = {}
    with RunDisplay(err, Estimate.for_run(library, todo, repeat), results=out) as display:

        def on_done(proof, result, record):
            nonlocal failures
            runs.setdefault((proof.name, record.device_class), []).append(record)
            where = f"{record.device_class}: {record.device}"
            if result.ok:
                display.finished(proof.name, ("ok    ", "green"), f" {proof.name:<24} {result.wall_s:7.2f} s  {where}")
                for problem in record.problems:
                    display.detail(("problem: ", "yellow"), problem)
            else:
                failures += 1
                display.finished(proof.name, ("failed", "red"),
                                 f" {proof.name:<24} {result.wall_s:7.2f} s  {result.describe()}")
                tail = record.failure.stderr_tail if record.failure else last_lines(record.stdout, record.stderr)
                for line in tail:
                    display.detail((line, "dim"))  # a proof's own text: shown, never parsed
                display.detail((remedy(result.status, proof.name, library.layout.shown(proof.path),
                                       proof.timeout, proof.output_cap), "yellow"))

        for _ in range(repeat):
            library.run(names, force, on_start=lambda proof: display.started(proof.name), on_done=on_done)
    if repeat > 1:
        from build_hooks.store.noisestore import record_noise

        for path in record_noise(library.store, runs, repeat):
            say(out, f"noise of {repeat} runs: {path}")
    say(out, f"{len(todo)} proof(s) in {time.perf_counter() - started:.2f} s, {failures} failed; "
             f"records in {shown(library.store.dir, library.root)}/")
    for item in library.diagnostics:
        say(err, ("warning: ", "yellow") if item.level == "warning" else ("note: ", "dim"), item.message)
    return 1 if failures or (names and len(impossible) == len(names)) else 0


def cmd_diff(args, library: Library) -> int:
    from build_hooks.upgrade.diff import diff, report

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
    from build_hooks.render.drift import html_document, text_report
    from build_hooks.upgrade.drift import compute

    report = compute(library.root, library.store, args.from_version, args.to_version, library.proofs,
                     docs=library.layout.pages)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    elif args.html:
        Path(args.html).write_text(html_document(report), encoding="utf-8")
        print(f"ldr drift: wrote {args.html} ({len(report.proofs)} changed record(s))")
    else:
        print(text_report(report))
    return 0


def cmd_forget(args, library: Library) -> int:
    """Remove the named records, under the store's lock; say each one (git still has it)."""
    from build_hooks.store.lock import store_lock

    library.select(args.proofs)  # an unknown name is an error naming the proofs
    removed = 0
    with store_lock(library.lock_path):
        for name in args.proofs:
            for device in args.device:
                path = library.store.forget(name, device)
                if path is None:
                    print(f"{name} ({device}): no record", file=sys.stderr)
                else:
                    removed += 1
                    print(f"removed {shown(path, library.root)} (`git checkout` brings it back until you commit)")
    return 0 if removed else 1


def cmd_merge(args, library: Library) -> int:
    from build_hooks.store.merge import cmd_merge as run_merge

    return run_merge(args, library)


def cmd_notebook(args, library: Library) -> int:
    from build_hooks.site.downloads import cmd_notebook as run_notebook

    return run_notebook(args, library)


def main(argv: list[str] | None = None) -> int:
    """``ldr``. Every line it prints passes the terminal guard (a control character from a
    record, a proof's output or a file name prints as an escape: core/textsafe.py); a file it
    cannot write (a full disk, a read-only tree, a cache of another user) is one error line
    naming the path and the fix (core/writeerrors.py), exit status 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    document = command_of(argv) in DATA_COMMANDS and not sys.stdout.isatty()  # an SVG or notebook, piped
    with guarded_streams(stdout=not document):
        try:
            return _main(argv)
        except BrokenPipeError:  # `ldr --help | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except OSError as exc:
            print(f"ldr: error: {explain(exc)}", file=sys.stderr)
            return 2


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    drawing = draw_argv(argv)
    if drawing is not None and not {"-h", "--help", "--version"} & set(argv[: argv.index("draw")]):
        from build_hooks.drawing import draw_command

        return draw_command(drawing)
    parser = build_parser("Run proofs, inspect the result store, check it in CI, render drawings.")
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
        root = (getattr(args, "root", None) or find_root(Path.cwd())).resolve()
        layout = layout_for(root)  # the plugin's folder and pin options in mkdocs.yml
        store = None
        if getattr(args, "any_torch", False) and not args.shard:
            raise LdrError("--any-torch records under another torch than the pin, so only into a shard: "
                           "add --shard DIR (and bring it home with `ldr merge DIR`)")
        if getattr(args, "shard", None):
            from build_hooks.store.shards import ShardStore
            from build_hooks.store.store import Store

            store = ShardStore(args.shard.resolve(), Store(layout.proofs, layout.results), any_torch=args.any_torch)
        library = Library(root, python=getattr(args, "python", None), slots=getattr(args, "jobs", None),
                          store=store, layout=layout)
        try:
            commands = {"run": cmd_run, "status": cmd_status, "check": cmd_check, "diff": cmd_diff,
                        "forget": cmd_forget, "drift": cmd_drift, "merge": cmd_merge, "notebook": cmd_notebook}
            return commands[args.command](args, library)
        finally:
            library.close()
    except LdrError as exc:
        print(f"ldr: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `ldr status | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        running = getattr(exc, "running", [])
        what = (f"stopped {len(running)} running proof(s), nothing recorded for them" if args.command != "merge"
                else "the merge stopped part-way: each record is the store's or the shard's whole, and any it "
                     "replaced is kept in history; run the same `ldr merge` again to bring home the rest")
        print(f"ldr: {'terminated' if stopped_by else 'interrupted'}; {what}", file=sys.stderr)
        return 128 + (stopped_by[0] if stopped_by else signal.SIGINT)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
