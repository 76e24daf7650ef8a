"""The result store: one text record per proof per device class, committed to git.

``proofs/_results/<proof>.<device>.json``: pretty, key-ordered JSON, output kept as a list of
lines so that a re-measurement diffs line by line. The top level holds the last good run (or,
if the proof never succeeded, the failed one); ``failure`` holds a newer failed attempt, so a
failure never erases what was recorded before. Writes go to a temporary file in the same
folder and replace the record atomically; a record that does not parse reads as missing and
is reported with its path.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

FORMAT = 1
DEVICE_CLASSES = ("cpu", "cuda", "mps")
RESULTS_DIR = "_results"


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

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def latest_sha256(self) -> str:
        return self.failure.script_sha256 if self.failure else self.script_sha256

    @property
    def latest_torch(self) -> str:
        return self.failure.torch if self.failure else self.torch

    def to_text(self) -> str:
        body = {"format": self.format}
        for f in fields(self):
            if f.name != "format":
                value = getattr(self, f.name)
                body[f.name] = asdict(value) if isinstance(value, Failure) else value
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_text(cls, text: str) -> "Record":
        body = json.loads(text)
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ValueError(f"not a format-{FORMAT} record")
        names = {f.name for f in fields(cls)}
        missing = names - set(body) - {"failure", "format"}
        if missing:
            raise ValueError(f"missing fields: {', '.join(sorted(missing))}")
        kwargs = {k: v for k, v in body.items() if k in names}
        if kwargs.get("failure") is not None:
            kwargs["failure"] = Failure(**kwargs["failure"])
        if not isinstance(kwargs["stdout"], list) or not isinstance(kwargs["data"], dict):
            raise ValueError("stdout must be a list of lines and data a mapping")
        return cls(**kwargs)


@dataclass
class Corrupt:
    path: Path
    reason: str


_PARSED: dict[str, tuple[tuple[int, int, int], "Record | Corrupt | None"]] = {}


class Store:
    def __init__(self, proofs_dir: Path):
        self.dir = Path(proofs_dir) / RESULTS_DIR

    def path(self, proof: str, device_class: str) -> Path:
        return self.dir / f"{proof}.{device_class}.json"

    def read(self, proof: str, device_class: str) -> Record | Corrupt | None:
        """The record, or None, or Corrupt; unchanged files are parsed once per process.

        Records are shared between callers: treat them as read-only (use dataclasses.replace).
        """
        path = self.path(proof, device_class)
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return Corrupt(path, str(exc))
        stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        seen = _PARSED.get(str(path))
        if seen is not None and seen[0] == stamp:
            return seen[1]
        item = self._parse(path, proof, device_class)
        _PARSED[str(path)] = (stamp, item)
        return item

    def _parse(self, path: Path, proof: str, device_class: str) -> Record | Corrupt | None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            return Corrupt(path, str(exc))
        try:
            record = Record.from_text(text)
        except (ValueError, TypeError, KeyError) as exc:
            return Corrupt(path, f"{type(exc).__name__}: {exc}")
        if record.proof != proof or record.device_class != device_class:
            return Corrupt(path, f"holds {record.proof}.{record.device_class}, not {proof}.{device_class}")
        return record

    def records(self, proof: str) -> dict[str, Record | Corrupt]:
        found = {}
        for device_class in DEVICE_CLASSES:
            item = self.read(proof, device_class)
            if item is not None:
                found[device_class] = item
        return found

    def write(self, record: Record) -> Path:
        """Atomically replace the record: readers see the old or the new file, never half."""
        path = self.path(record.proof, record.device_class)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = record.to_text()
        with contextlib.suppress(OSError):
            if path.read_text(encoding="utf-8") == text:
                return path  # identical: leave the file (and git) untouched
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return path

    def known(self) -> set[tuple[str, str]]:
        """(proof, device class) of every record file present."""
        out = set()
        if self.dir.is_dir():
            for path in self.dir.glob("*.json"):
                parts = path.name[: -len(".json")].rsplit(".", 1)
                if len(parts) == 2 and parts[1] in DEVICE_CLASSES:
                    out.add((parts[0], parts[1]))
        return out


@contextlib.contextmanager
def store_lock(lock_path: Path):
    """An exclusive lock held while proofs run and records are written, so that a build and
    a running `mkdocs serve` never run the same proof at once (POSIX; elsewhere a no-op)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
