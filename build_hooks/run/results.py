"""What running a proof takes and gives back: the job, its result, and how its output is told
(signal names, what limit a timeout reached and how to raise it, the last lines reports quote,
trimmed to the proof's own frames, bytes decoded, this machine's folders neutral)."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from pathlib import Path

from build_hooks.proofs.records import FailureNote, Provenance
from build_hooks.run.timeouts import BACKSTOP


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
    backstop: float | None = None  # the clock's limit, in timeouts (default timeouts.BACKSTOP)


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
    cpu_s: float | None = None  # the CPU time it used (None: not measured)
    hit: str | None = None  # the limit a timeout reached: "cpu" or "wall" (timeouts.py)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self) -> str:
        if self.status == "timeout":
            return timed_out(self.limit, self.hit, self.wall_s, self.cpu_s)
        if self.status == "output-limit":
            return "printed more than its output cap and was stopped"
        if self.signal is not None:
            return f"was killed by signal {self.signal} ({signal_name(self.signal)})"
        return f"exited with status {self.returncode}"


def timed_out(limit: float | None, hit: str | None, wall_s: float, cpu_s: float | None = None) -> str:
    """A timeout in words, with the limit it reached: its CPU time, or the clock (the backstop
    of a proof that waits, or where CPU time cannot be read): see timeouts.py."""
    if limit is None or hit not in ("cpu", "wall"):  # a record that does not say
        return f"timed out after {limit or wall_s:g} s"
    if hit == "cpu":
        return f"timed out after {limit:g} s of CPU time ({wall_s:.1f} s on the clock)"
    used = "" if cpu_s is None else f" with {cpu_s:.2f} s of CPU time"
    if wall_s >= BACKSTOP * limit:
        waited = ": it was waiting, not working" if cpu_s is not None and cpu_s < limit / 2 else ""
        return (f"timed out after {BACKSTOP * limit:g} s on the clock ({BACKSTOP} x its {limit:g} s "
                f"timeout){used}{waited}")
    return f"timed out after {limit:g} s on the clock{used}"


def remedy(status: str, name: str, script: str, timeout: float | None = None, cap: int | None = None) -> str:
    """How the author gets past a failed run, for build warnings and ``ldr run`` (never a card)."""
    if status == "timeout" and timeout:
        return (f'fix: make it finish sooner, or raise its limit in {script}: PROOF = {{"timeout": '
                f"{2 * timeout:g}}} (now {timeout:g} s of CPU time; README: Proofs)")
    if status == "output-limit" and cap:
        return (f'fix: print less, or raise its cap in {script}: PROOF = {{"output_cap": {2 * cap}}} '
                f"(now {cap:,} bytes)")
    return (f"fix: run `python {script}` to see it fail; saving the fixed script reruns it "
            f"(or `ldr run {name} --force`)")


def failed_line(where: str, name: str, p: Provenance, what: FailureNote, script: str, timeout: float,
                cap: int) -> str:
    """A failed run (``what``, of the record ``p``) as a build warning: one line naming the proof,
    how it ended (a timeout: the limit it reached), when, and the fix; then the last lines it
    printed and of its traceback (trimmed to the proof's own frames when recorded: own_frames)."""
    message = what.message
    if what.status == "timeout" and p.failure is None:  # a record that never succeeded keeps no message
        clock = p.wall_s >= BACKSTOP * timeout or not p.os.startswith("Linux")  # see timeouts.py
        message = timed_out(timeout, "wall" if clock else "cpu", p.wall_s)
    under = f" under torch {what.torch}" if what.torch else ""
    lines = "\n    ".join(what.stderr_tail) or "(no output)"
    return (f"{where}: proof {name} ({p.device_class}) failed{under} on {what.measured_at}: it {message}; "
            f"{remedy(what.status, name, script, timeout, cap)}; last lines:\n    {lines}")


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
    return shown(stdout, 6) + shown(own_frames(stderr), 12)


PY_FRAME = re.compile(r'\s*File "(?P<file>[^"]*)", line \d+, in ')  # a traceback's frame
DUMP_FRAME = re.compile(r'\s*File "(?P<file>[^"]*)", line (\d+|\?\?\?) in \S*$')  # faulthandler's
DUMP_HEAD = re.compile(r"(Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):$")
OTHERS = ("/", "~", "<", "site-packages/")  # files neutral() left absolute or named: not the proof's
TOOL = ("build_hooks/run/host.py", "build_hooks/run/hostloop.py", "build_hooks/run/spare.py",  # this tool's,
        "build_hooks/run/processes.py", "build_hooks/run/child.py")  # inside a project


def own_frames(stderr: list[str]) -> list[str]:
    """A proof's stderr with the frames of tracebacks and faulthandler's stacks trimmed to its
    own files (``proofs/x.py``, its helpers): torch's, Python's and this tool's are left out, and
    so is the thread address of a stack (which differs on every run)."""
    out: list[str] = []
    below: int | None = None  # the indent of a traceback frame left out: its source lines go too
    for line in stderr:
        indent = len(line) - len(line.lstrip())
        if below is not None and line.strip() and indent > below:
            continue
        below = None
        frame = PY_FRAME.match(line) or DUMP_FRAME.match(line)
        if (frame and frame.group("file").startswith(OTHERS) or frame and frame.group("file").endswith(TOOL)
                or line.strip() == "<no Python frame>"):
            below = indent if PY_FRAME.match(line) else None
            continue
        head = DUMP_HEAD.match(line)
        out.append(f"{head.group(1)} (most recent call first):" if head else line)
    heads = ("Current thread (most recent call first):", "Thread (most recent call first):")
    return [line for i, line in enumerate(out)  # a stack none of whose frames is the proof's
            if line not in heads or (i + 1 < len(out) and out[i + 1].startswith(" "))]


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
