"""A record: one proof's run on one device class, and its text in the store.

The text (``proofs/_results/<proof>.<device>.json``, written by store.py) is pretty,
key-ordered JSON, output kept as a list of lines so that a re-measurement diffs line by line.
The top level holds the last good run (or, if the proof never succeeded, the failed one);
``failure`` holds a newer failed attempt, so a failure never erases what was recorded before.
It is always standard JSON (a non-finite number is refused on write and makes a record corrupt
on read). Every field is parsed into its strict type on read (schema.py: a PEP 440 torch, an
ISO 8601 UTC time, a proof name, bounded lines...): a text that does not parse, or has a field
of the wrong kind, raises ValueError naming the field (the store reads it as Corrupt, with its
path); what a reader would refuse is never written.

A proof that never imports torch (discovery.py) is recorded without ``torch`` and
``torch_build`` (and its failure without ``torch``): the fields are left out of the file, and
read as ``""``. Records of every proof made before that carry them, and read as before.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any

from build_hooks.core.errors import StoreError
from build_hooks.core.safefs import LIMITS
from build_hooks.store.schema import (
    SURROGATE_ESCAPE,
    check_fields,
    cut_lines,
    non_finite,
    refuse_constant,
    show,
)

FORMAT = 1
LATER_FIELDS = ("problems", "helpers")
TORCH_FIELDS = ("torch", "torch_build")  # absent from the record of a proof that never imports torch


@dataclass
class Failure:
    status: str
    returncode: int | None
    signal: int | None
    torch: str
    script_sha256: str
    measured_at: str
    wall_s: float
    message: str
    stderr_tail: list[str] = field(default_factory=list)
    helpers: dict = field(default_factory=dict)


@dataclass
class Record:
    proof: str
    device_class: str
    script_sha256: str
    torch: str
    torch_build: str
    python: str
    os: str
    machine: str
    device: str
    measured_at: str
    wall_s: float
    status: str
    returncode: int | None
    signal: int | None
    stdout: list[str]
    stderr: list[str]
    data: dict
    failure: Failure | None = None
    format: int = FORMAT
    problems: list[str] = field(default_factory=list)
    helpers: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def latest_sha256(self) -> str:
        return self.failure.script_sha256 if self.failure else self.script_sha256

    @property
    def latest_torch(self) -> str:
        return self.failure.torch if self.failure else self.torch

    @property
    def latest_helpers(self) -> dict:
        return self.failure.helpers if self.failure else self.helpers

    def bounded(self) -> Record:
        """The record with each output line over schema.MAX_LINE characters cut (and marked);
        in a good run each cut is also a problem, reported on every build until the proof is
        fixed (as a bad data line is). The store writes records through it."""
        stdout, cut_out = cut_lines("stdout", self.stdout)
        stderr, cut_err = cut_lines("stderr", self.stderr)
        failure = self.failure
        if failure is not None:
            failure = replace(failure, stderr_tail=cut_lines("stderr_tail", failure.stderr_tail)[0])
        if not (cut_out or cut_err or failure != self.failure):
            return self
        problems = self.problems + ((cut_out + cut_err) if self.ok else [])
        return replace(self, stdout=stdout, stderr=stderr, failure=failure, problems=problems)

    def to_text(self) -> str:
        body: dict[str, Any] = {"format": self.format}
        for f in fields(self):
            if f.name != "format":
                value = getattr(self, f.name)
                body[f.name] = asdict(value) if isinstance(value, Failure) else value
        _drop_empty(body)
        if body["failure"]:
            _drop_empty(body["failure"])
        try:
            self.checked_body(json.loads(json.dumps(body)))  # what a reader would refuse is never written
        except (ValueError, TypeError) as exc:
            if non_finite(body) is None:
                raise StoreError(f"proof {self.proof} ({self.device_class}): {exc}; the record was "
                                 "not written (a reader would refuse it). Fix: the run's field must "
                                 "be of its kind (README, How a build treats proofs, 3)") from None
        try:
            return json.dumps(body, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        except ValueError:
            where = non_finite(body) or "?"
            raise StoreError(
                f"proof {self.proof} ({self.device_class}): {where} is not a finite number, which "
                "standard JSON cannot hold; the record was not written. Fix: print it as a string "
                "or null (e.g. `None if math.isnan(x) else x`)"
            ) from None

    @classmethod
    def from_text(cls, text: str) -> Record:
        return cls.from_checked(cls.checked_fields(text))

    @classmethod
    def from_checked(cls, kwargs: dict) -> Record:
        """The record of :meth:`checked_fields` (plain types, already checked)."""
        if kwargs.get("failure") is not None:
            kwargs = {**kwargs, "failure": Failure(**kwargs["failure"])}
        return cls(**kwargs)

    @classmethod
    def checked_fields(cls, text: str) -> dict:
        """A record's text as the record's fields, every one type-checked (raises ValueError)."""
        if len(text) > LIMITS["record"]:
            raise ValueError(f"{len(text):,} characters, over the record limit of {LIMITS['record']:,}")
        try:
            body = json.loads(text, parse_constant=refuse_constant)
        except RecursionError:
            raise ValueError("nested too deeply to parse") from None
        # A lone surrogate can only come from a \\uD800-\\uDFFF escape in the text (a str decoded
        # from UTF-8 holds none): without one, the per-field search for it (a JSON dump of each
        # field, three quarters of a record's check) has nothing to find.
        return cls.checked_body(body, surrogates=SURROGATE_ESCAPE.search(text) is not None)

    @classmethod
    def checked_body(cls, body, surrogates: bool = True) -> dict:
        """:meth:`checked_fields` of a parsed JSON value (raises ValueError); ``surrogates``
        False: the caller knows no string of it holds a lone surrogate."""
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ValueError(f"not a format-{FORMAT} record")
        names, optional = _names(cls)
        missing = names - set(body) - optional - set(TORCH_FIELDS)
        if missing:
            raise ValueError(f"missing fields: {', '.join(sorted(missing))}")
        kwargs = {k: v for k, v in body.items() if k in names}
        check_fields(kwargs, cls, "", surrogates)
        kwargs.update({name: "" for name in TORCH_FIELDS if name not in kwargs})  # a proof without torch
        if kwargs.get("failure") is not None:
            failure = kwargs["failure"]
            if not isinstance(failure, dict):
                raise ValueError(f"field failure must be null or an object, not {show(failure)}")
            known = _names(Failure)[0]
            absent = known - set(failure) - {"stderr_tail", "helpers", "torch"}
            if absent:
                raise ValueError(f"field failure lacks {', '.join(sorted(absent))}")
            failure = {k: v for k, v in failure.items() if k in known}
            check_fields(failure, Failure, "failure.", surrogates)
            failure.setdefault("torch", "")
            kwargs["failure"] = failure
        return kwargs


_NAMES: dict[type, tuple[frozenset[str], frozenset[str]]] = {}


def _names(kind: type) -> tuple[frozenset[str], frozenset[str]]:
    """A dataclass's field names, and those of them that have a default: read for every record
    a build parses, and ``fields`` walks the class's fields each time it is asked."""
    if kind not in _NAMES:
        _NAMES[kind] = (frozenset(f.name for f in fields(kind)),
                        frozenset(f.name for f in fields(kind)
                                  if f.default is not MISSING or f.default_factory is not MISSING))
    return _NAMES[kind]


def _drop_empty(body: dict) -> None:
    """Fields added after format 1 began are written only when they hold something, so that
    older records read and rewrite byte for byte; so are the torch fields of a proof that never
    imports torch (no version is made up for it)."""
    for name in (*LATER_FIELDS, *TORCH_FIELDS):
        if name in body and not body[name]:
            del body[name]
