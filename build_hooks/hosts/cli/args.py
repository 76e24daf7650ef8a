"""The ``ldr`` command line: its options, which every subcommand takes in any position."""

from __future__ import annotations

import argparse
from pathlib import Path


def version() -> str:
    from importlib import metadata

    try:
        number = metadata.version("mkdocs-ldr")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        from build_hooks import __version__ as number
    return f"ldr {number}"


def _at_least_one(text: str) -> int:
    """A count on the command line: a whole number of 1 or more (``--repeat 0`` ran once)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _common() -> argparse.ArgumentParser:
    """Options every subcommand takes, before or after its name (``ldr --root X status`` and
    ``ldr status --root X``); SUPPRESS keeps a subcommand from erasing a value given before it."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", type=Path, default=argparse.SUPPRESS,
                        help="the project folder (default: found from the current folder up)")
    common.add_argument("--version", action="version", version=version(), help="print the version and exit")
    return common


def draw_argv(argv: list[str]) -> list[str] | None:
    """The arguments of ``ldr [--root X] draw ...`` (draw has its own parser), else None."""
    rest, index = [], 0
    while index < len(argv):
        token = argv[index]
        if token == "--root":
            index += 2
            continue
        if not token.startswith("--root="):
            rest.append(token)
        index += 1
    return rest[1:] if rest[:1] == ["draw"] else None


def command_of(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option or --root's value)."""
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == "--root":
            index += 2
            continue
        if not token.startswith("-"):
            return token
        index += 1
    return None


DATA_COMMANDS = ("draw", "notebook")
"""Commands whose standard output is a document (an SVG, a notebook): piped, it is written as
it is, and only their messages pass the terminal guard; on a terminal it is escaped too."""


def build_parser(description: str) -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(prog="ldr", description=description, parents=[common])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, **kwargs) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], **kwargs)

    run = command("run", help="run missing or stale proofs and record them")
    run.add_argument("proofs", nargs="*", help="proof names (default: all)")
    run.add_argument("--force", action="store_true", help="rerun even when the record is fresh")
    run.add_argument("--jobs", type=_at_least_one, help="cores for proofs marked parallel")
    run.add_argument("--python", help="interpreter for proofs (default: this one)")
    run.add_argument("--shard", type=Path, metavar="DIR",
                     help="record into DIR instead of proofs/_results (bring it home with `ldr merge`)")
    run.add_argument("--any-torch", action="store_true",
                     help="with --shard: run under this interpreter's torch even when it is not the pin "
                          "(its accelerator records merge as foreign)")
    run.add_argument("--repeat", type=_at_least_one, metavar="N",
                     help="run each selected proof N times and record the spread of its values (noise)")
    status = command("status", help="list every proof and the state of its records")
    status.add_argument("proofs", nargs="*")
    status.add_argument("--json", action="store_true", help="the stable machine-readable form")
    check = command("check", help="exit 1 when a record is stale, failed, missing, has "
                           "data-line problems, or a proof has no record at all (for CI)")
    check.add_argument("--device", action="append", choices=("cpu", "cuda", "mps"),
                       help="only check these device classes")
    moved = command("diff", help="values and output that moved since a git revision, and where prose quotes them")
    moved.add_argument("rev", nargs="?", default="HEAD", help="git revision to compare with (default: HEAD)")
    moved.add_argument("--json", action="store_true")
    drift = command("drift", help="what changed between two recorded torch versions")
    drift.add_argument("--from", dest="from_version", metavar="V",
                       help="default: the newest history version older than --to")
    drift.add_argument("--to", dest="to_version", metavar="V", help="default: the current records' version")
    drift_out = drift.add_mutually_exclusive_group()
    drift_out.add_argument("--json", action="store_true", help="the stable machine-readable form")
    drift_out.add_argument("--html", type=Path, metavar="FILE", help="write a standalone HTML report")
    forget = command("forget", help="remove records from the store (e.g. a CPU record of a proof that now "
                                    "requires an accelerator)")
    forget.add_argument("proofs", nargs="+", metavar="PROOF")
    forget.add_argument("--device", action="append", choices=("cpu", "cuda", "mps"), required=True,
                        help="the device class whose record goes (repeat for several)")
    merge = command("merge", help="bring shards recorded elsewhere (ldr run --shard) into the store")
    merge.add_argument("shards", nargs="+", metavar="DIR")
    notebook = command("notebook", help="write a proof as the Jupyter notebook the site publishes")
    notebook.add_argument("proof")
    notebook.add_argument("-o", "--output", type=Path, metavar="FILE", help="default: standard output")
    sub.add_parser("draw", help="render an Excalidraw scene: ldr draw IN OUT.svg [--dark]")
    return parser
