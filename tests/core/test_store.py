import os
import threading
from pathlib import Path as _Path

import pytest

from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.store.record import Failure, Record
from build_hooks.store.store import Corrupt, Store

PIN = _pinned(_Path(__file__).resolve().parents[2])



def make(proof="p", **kw):
    base = dict(proof=proof, device_class="cpu", script_sha256="a" * 64, torch=PIN,
                torch_build=f"{PIN}+cpu", python="3.11.7", os="Linux-x", machine="x86_64",
                device="CPU", measured_at="2026-01-01T00:00:00Z", wall_s=0.5, status="ok",
                returncode=0, signal=None, stdout=["line one", "X=1"], stderr=[], data={"X": 1})
    base.update(kw)
    return Record(**base)


def test_round_trip_is_deterministic_and_line_based(tmp_path):
    store = Store(tmp_path)
    record = make(failure=Failure("failed", 1, None, PIN, "b" * 64, "2026-01-02T00:00:00Z",
                                  0.1, "exited with status 1", ["Traceback", "ValueError: x"]))
    path = store.write(record)
    text = path.read_text()
    assert path == tmp_path / "_results" / "p.cpu.json"
    assert '  "stdout": [\n    "line one",\n    "X=1"\n  ],' in text
    assert store.read("p", "cpu") == record
    assert Record.from_text(text).to_text() == text


def test_identical_write_leaves_the_file_alone(tmp_path):
    store = Store(tmp_path)
    path = store.write(make())
    os.utime(path, (1, 1))
    store.write(make())
    assert path.stat().st_mtime == 1
    store.write(make(wall_s=0.6))
    assert path.stat().st_mtime != 1


def test_failed_write_keeps_the_old_record_and_no_temp_file(tmp_path, monkeypatch):
    store = Store(tmp_path)
    path = store.write(make())
    before = path.read_text()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        store.write(make(wall_s=9.0))
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir()] == ["p.cpu.json"]


def test_readers_never_see_half_a_record(tmp_path):
    store = Store(tmp_path)
    store.write(make())
    big = make(stdout=[f"line {i}" * 20 for i in range(4000)])
    stop = threading.Event()
    seen = []

    def reader():
        while not stop.is_set():
            item = store.read("p", "cpu")
            seen.append(isinstance(item, Record))

    thread = threading.Thread(target=reader)
    thread.start()
    for i in range(30):
        store.write(big if i % 2 else make(wall_s=float(i)))
    stop.set()
    thread.join()
    assert seen and all(seen)


@pytest.mark.parametrize("text, fragment", [
    ("{not json", "JSONDecodeError"),
    ('{"format": 99}', "not a format-1 record"),
    ('{"format": 1, "proof": "p"}', "missing fields"),
])
def test_corrupt_record_reads_as_corrupt_with_its_path(tmp_path, text, fragment):
    store = Store(tmp_path)
    store.dir.mkdir()
    store.path("p", "cpu").write_text(text)
    item = store.read("p", "cpu")
    assert isinstance(item, Corrupt) and item.path == store.path("p", "cpu") and fragment in item.reason


def test_record_for_another_proof_is_corrupt(tmp_path):
    store = Store(tmp_path)
    store.dir.mkdir()
    store.path("q", "cpu").write_text(make("p").to_text())
    assert "holds p.cpu" in store.read("q", "cpu").reason
