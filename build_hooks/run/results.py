"""What running a proof takes and gives back: the job, its result, and how its output is told
(signal names, the last lines reports quote, bytes decoded, this machine's folders neutral)."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Job:
    name: str
    script: Path
    timeout: float
    cap: int
    parallel: bool = False
    env: dict | None = None
    display: str | None = None  # the name tracebacks show, e.g. proofs/x.py (default: the file name)
    root: Path | None = None  # the project root, made relative in the output


@dataclass
class RunResult:
    name: str
    status: str  # ok | failed | timeout | killed | output-limit
    returncode: int | None
    signal: int | None
    wall_s: float
    stdout: str
    stderr: str
    limit: float | None = None  # the timeout it ran under
    leftovers: int = 0  # processes it left running after it ended (killed by the host)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self) -> str:
        if self.status == "timeout":
            return f"timed out after {self.limit or self.wall_s:g} s"
        if self.status == "output-limit":
            return "printed more than its output cap and was stopped"
        if self.signal is not None:
            return f"was killed by signal {self.signal} ({signal_name(self.signal)})"
        return f"exited with status {self.returncode}"


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def last_lines(stdout: list[str], stderr: list[str]) -> list[str]:
    """What reports of a failed run quote (its record's ``failure.stderr_tail``, ``ldr status``,
    ``ldr run``, the build warning): the last lines it printed (up to 6), then the last of its
    stderr (up to 12: a traceback, or at a timeout faulthandler's stack), blank lines left out.
    A timeout's stack never hides what the proof printed before it."""
    shown = lambda lines, count: [line for line in lines if line.strip()][-count:]  # noqa: E731
    return shown(stdout, 6) + shown(stderr, 12)


def decode(raw: bytes) -> str:
    """Proof output as text; bytes that are not UTF-8 show as ``\\xNN`` escapes."""
    return raw.decode("utf-8", errors="backslashreplace").replace("\r\n", "\n")


def neutral(text: str, folders: list[tuple[str, str]]) -> str:
    """``text`` with each absolute folder replaced by its neutral form, longest first. A
    folder matches only whole; the form ``""`` drops it with its slash (``root/proofs/x.py``
    reads ``proofs/x.py``) and reads ``.`` alone."""
    for folder, form in sorted(folders, key=lambda f: -len(f[0])):
        if len(folder) < 2 or folder not in text:
            continue
        pattern = re.compile(r"(?<![\w.~/-])" + re.escape(folder) + r"(/|(?![\w.-]))")
        def replace(m: re.Match[str], form: str = form) -> str:
            return form + m.group(1) if form else ("" if m.group(1) else ".")

        text = pattern.sub(replace, text)
    return text
