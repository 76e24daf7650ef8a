"""What ``ldr`` prints, and how: coloured on a terminal, plain lines everywhere else.

Nothing printed here is ever parsed as rich markup: the consoles are made with
``markup=False`` and colour comes from ``(text, style)`` pieces, so a proof's output, a
traceback or a file name shows exactly as it is (``[dim]`` stays ``[dim]``); a control
character in it (an ESC that would start a terminal sequence) prints as an escape
(core/textsafe.py), and rich writes its own colour codes to the stream under ``ldr``'s
guard (``SafeStream``), which escapes everything else printed. Off a terminal
(a pipe, a file, CI) tables are plain columns that never cut or wrap a name, and progress
is one line per proof.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from build_hooks.core.textsafe import SafeStream, printable, raw_stream

if TYPE_CHECKING:  # rich is imported when a display starts
    from rich.progress import Progress

Piece = str | tuple[str, str]  # plain text, or (text, rich style)


def console(stderr: bool = False):
    from rich.console import Console

    stream = raw_stream(sys.stderr if stderr else sys.stdout)
    return Console(file=stream, highlight=False, markup=False, emoji=False)


def _safe(piece: Piece) -> Piece:
    return printable(piece) if isinstance(piece, str) else (printable(piece[0]), piece[1])


def text(*pieces: Piece):
    """Pieces as one rich Text; every control character in them escaped."""
    from rich.text import Text

    return Text.assemble(*map(_safe, pieces))


def say(out, *pieces: Piece) -> None:
    """Print one message made of pieces; long lines wrap on a terminal, never elsewhere."""
    out.print(text(*pieces), soft_wrap=not out.is_terminal, crop=False)


def plain_columns(header: list[str], rows: list[list[str]]) -> list[str]:
    """Rows as left-aligned columns two spaces apart; the last column is never padded."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths)] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return lines


def table(out, title: str, header: list[str], rows: list[list[str]], styles: Iterable[str | None]) -> None:
    """A rich table on a terminal (no cell of the first column cut), plain columns otherwise.
    ``styles`` gives one style per row for its third cell (the state)."""
    styles = list(styles)
    title = printable(title)
    header, rows = [printable(c) for c in header], [[printable(c) for c in row] for row in rows]
    every = [header, *rows]
    fixed = sum(max(len(row[i]) for row in every) for i in range(len(header) - 2))
    words = sum(max(len(word) for row in every for word in row[i].split() or [""]) for i in (-2, -1))
    if not out.is_terminal or fixed + words + 3 * len(header) + 1 > out.width:  # a table too narrow
        # to show every name and date whole: plain columns, which the terminal wraps as lines
        print(title, file=out.file)
        for line in plain_columns(header, rows):
            print(line, file=out.file)
        return
    from rich.table import Table

    grid = Table(title=title)
    for index, name in enumerate(header):  # short columns keep their width; the last two wrap
        grid.add_column(name, no_wrap=index < len(header) - 2, overflow="fold")
    for row, style in zip(rows, styles):
        grid.add_row(*[text((cell, style)) if i == 2 and style else text(cell) for i, cell in enumerate(row)])
    out.print(grid)


class RunDisplay:
    """Progress for ``ldr run``: a live bar with the time left on a terminal (standard error),
    else one line per proof (``[2/5] ok  name  0.31 s  cpu: ...; about 8 s left``). The lines
    that say how each proof ended are results: on standard output (``results``), except while
    the bar is live on the same terminal, where they print above it."""

    def __init__(self, out, estimate, first: str = "starting the proof host", results=None):
        self.out, self.estimate = out, estimate
        self.results = results if results is not None else out
        self.live = out.is_terminal
        self.progress: Progress | None = None
        self.first = first

    def __enter__(self) -> RunDisplay:
        from build_hooks.run.progress import seconds

        estimate = self.estimate
        times = f", {estimate.runs} times each" if estimate.runs > 1 else ""
        say(self.out, f"running {len(estimate.expected)} proof(s){times}{estimate.plan_note()}")
        if self.live:
            from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn

            class Left(ProgressColumn):
                def render(self, task):
                    left = estimate.left()
                    return text(("" if left is None else f"about {seconds(left)} left", "dim"))

            self.progress = progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                                                TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                                                Left(), console=self.out, transient=True)
            progress.__enter__()
            self.task = progress.add_task(self.first, total=estimate.count)
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)

    @property
    def printer(self):
        if self.progress is not None and (self.results.is_terminal or self.results is self.out):
            return self.progress.console  # above the bar, on the terminal both streams reach
        return self.results

    def started(self, name: str) -> None:
        self.estimate.started(name)
        if self.progress is not None:
            self.progress.update(self.task, description=printable(f"running {name}"))

    def finished(self, name: str, *pieces: Piece) -> None:
        """One proof ended: ``pieces`` say how; the count (and, off a terminal, the time left)
        comes first."""
        self.estimate.finished(name)
        if self.progress is not None:
            self.progress.advance(self.task)
            say(self.printer, *pieces)
        else:
            say(self.printer, f"[{self.estimate.done}/{self.estimate.count}] ", *pieces,
                self.estimate.left_note())

    def detail(self, *pieces: Piece) -> None:
        say(self.printer, "         ", *pieces)



@contextlib.contextmanager
def guarded_streams(stdout: bool = True):
    """Standard error, and standard output unless it carries a document (``stdout=False``),
    behind :class:`SafeStream` for the duration: whatever any module prints (``print``,
    argparse, a report) reaches the terminal with its control characters escaped."""
    saved = sys.stdout, sys.stderr
    if stdout:
        sys.stdout = SafeStream(raw_stream(sys.stdout))
    sys.stderr = SafeStream(raw_stream(sys.stderr))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
