"""A proof's recorded result as pages, instruments, notebooks and downloads see it: typed.

The store's :class:`~build_hooks.store.record.Record` is the file; :class:`ProofData` is what a
page may show of it, with its :class:`Provenance` (where, when and under which torch it was
measured, and whether it is still current). The library makes them (run/library.py); renderers
read attributes, never keys. A mapping given as ``provenance`` (a test's fixture, a widget's
sample record) is parsed into a Provenance, with its types checked, when the ProofData is made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from build_hooks.core.errors import LdrError


@dataclass(frozen=True)
class FailureNote:
    """The latest run failed, over an older good record that pages still show."""

    status: str
    message: str
    torch: str
    """Empty for a proof that never imports torch."""
    measured_at: str
    stderr_tail: tuple[str, ...] = ()

    @property
    def under(self) -> str:
        """`` under torch 2.14.1``, or "" for a proof without torch."""
        return f" under torch {self.torch}" if self.torch else ""


@dataclass(frozen=True)
class Provenance:
    proof: str
    torch: str = ""
    """The torch it ran under; "" for a proof that never imports torch (it needs only Python)."""
    device_class: str = "cpu"
    """cpu, cuda or mps."""
    device: str = ""
    """The CPU or GPU model."""
    python: str = ""
    os: str = ""
    machine: str = ""
    measured_at: str = ""
    """ISO date (YYYY-MM-DD)."""
    wall_s: float = 0.0
    status: str = "ok"
    """ok, failed, timeout, output-limit or killed."""
    stale: bool = False
    """The script, a helper or the pin changed since this record."""
    reasons: tuple[str, ...] = ()
    """Why it is stale, in words."""
    problems: tuple[str, ...] = ()
    failure: FailureNote | None = None
    accelerator: str = "none"
    """The proof's own ``accelerator`` option: none, prefer or require."""
    foreign: bool = False
    """Recorded under another torch than the pin (kept from another machine)."""
    pin: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def runtime(self) -> str:
        """What it ran under, in words: ``torch 2.14.1``, or ``Python 3.11.7`` for a proof that
        never imports torch (never a torch version it did not use)."""
        return f"torch {self.torch}" if self.torch else f"Python {self.python}".rstrip()

    @property
    def under(self) -> str:
        """`` under torch 2.14.1``, or "" for a proof without torch."""
        return f" under torch {self.torch}" if self.torch else ""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON types, for the data a widget embeds for its script."""
        out = asdict(self)
        out["reasons"], out["problems"] = list(self.reasons), list(self.problems)
        if self.failure is not None:
            out["failure"]["stderr_tail"] = list(self.failure.stderr_tail)
        return out

    def texts(self, fix: Callable[[str], str]) -> Provenance:
        """Every text field passed through ``fix`` (render/safe.py makes control characters visible)."""
        failure = self.failure
        if failure is not None:
            failure = replace(failure, status=fix(failure.status), message=fix(failure.message),
                              torch=fix(failure.torch), measured_at=fix(failure.measured_at),
                              stderr_tail=tuple(fix(line) for line in failure.stderr_tail))
        changed: dict[str, Any] = {f.name: fix(getattr(self, f.name)) for f in fields(self)
                                   if isinstance(getattr(self, f.name), str)}
        return replace(self, **changed, reasons=tuple(fix(r) for r in self.reasons),
                       problems=tuple(fix(p) for p in self.problems), failure=failure)

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Provenance:
        """A mapping with these fields (unknown ones are an error), types checked."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - names)
        if unknown:
            raise LdrError(f"provenance: unknown field(s) {', '.join(map(str, unknown))}; known: "
                           f"{', '.join(sorted(names))}")
        values = dict(raw)
        for key in ("reasons", "problems"):
            if key in values:
                values[key] = tuple(str(item) for item in values[key] or ())
        failure = values.get("failure")
        if isinstance(failure, Mapping):
            values["failure"] = FailureNote(
                str(failure.get("status", "")), str(failure.get("message", "")),
                str(failure.get("torch", "")), str(failure.get("measured_at", "")),
                tuple(str(line) for line in failure.get("stderr_tail") or ()))
        made = cls(**values)
        _check_types(made)
        return made


_TEXT = ("proof", "torch", "device_class", "device", "python", "os", "machine", "measured_at", "status",
         "accelerator")


def _check_types(p: Provenance) -> None:
    wrong = [name for name in _TEXT if not isinstance(getattr(p, name), str)]
    if not isinstance(p.wall_s, (int, float)) or isinstance(p.wall_s, bool):
        wrong.append("wall_s")
    if not isinstance(p.stale, bool):
        wrong.append("stale")
    if not isinstance(p.foreign, bool):
        wrong.append("foreign")
    if p.pin is not None and not isinstance(p.pin, str):
        wrong.append("pin")
    if p.failure is not None and not isinstance(p.failure, FailureNote):
        wrong.append("failure")
    if wrong:
        raise LdrError(f"provenance of {p.proof!r}: wrong type for {', '.join(wrong)}")


@dataclass(frozen=True)
class ProofData:
    """One proof's recorded result for one device class, as pages and instruments see it."""

    name: str
    data: dict
    provenance: Provenance = field(default=None)  # type: ignore[assignment]  # made in __post_init__
    stdout: str = ""
    stderr: str = ""

    def __post_init__(self) -> None:
        given: Any = self.provenance
        if given is None:
            object.__setattr__(self, "provenance", Provenance(proof=self.name))
        elif isinstance(given, Mapping):
            object.__setattr__(self, "provenance", Provenance.of({"proof": self.name, **given}))
        elif not isinstance(given, Provenance):
            raise LdrError(f"proof {self.name}: provenance must be a Provenance, not {type(given).__name__}")
