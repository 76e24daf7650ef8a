"""Fuzzing the store's edge: random bytes, truncations and a change of type for every field
(top level and failure.*) of a real record file never give a traceback or a hang.

Reading gives a Record or a Corrupt with a one-line reason; a record that reads gives every
consumer strict values (its version folder stays inside the store, its time is a time);
`ldr check`, `ldr status` and `ldr merge` (real subprocesses) exit with their usual codes and
name each file. The RNG is seeded, so a failure is reproducible (the case is in the message).
"""

import json
import random
from dataclasses import fields
from pathlib import Path

from build_hooks.core.errors import StoreError
from build_hooks.proofs.pin import pinned_torch
from build_hooks.store import history, noisestore
from build_hooks.store.merge import rank
from build_hooks.store.record import Failure, Record
from build_hooks.store.shards import read_shard_file
from build_hooks.store.store import Corrupt, Store

from .recordkit import SCRIPT, record, snapshot

PIN = pinned_torch(Path(__file__).resolve().parents[2])
SEED = 16
DEEP = "[" * 5000 + "]" * 5000
VALUES = [None, True, False, 0, -1, 2**64, 10**400, 1.5, -0.0, 1e308, "", " ", "nightly",
          "../../../../tmp/x", "zzzz", "2026-13-45T99:99:99Z", "x" * 20_000, "\u0000\n\u2028",
          [], ["a"], [1, None], [[["deep"]]], {}, {"a": 1}, {"A": {"B": []}}, {"BIG": 10**400},
          {"A": {"B": -(10**309)}}, {"A": "DEEP"}, "DEEP"]


def base_body(project) -> dict:
    """A full record: failure, helpers and problems set, so every field is there to break."""
    project.proof("p", SCRIPT)
    body = json.loads(record(project, "p", data={"TOLL": {"small_us": 1.0}, "ROWS": [1, 2]},
                             folder=project.root / "base").read_text())
    body["problems"] = ["output line 3: BAD= is not valid JSON"]
    body["helpers"] = {"_common.py": "b" * 64}
    body["failure"] = {"status": "timeout", "returncode": None, "signal": 9, "torch": PIN,
                       "script_sha256": body["script_sha256"], "measured_at": "2026-11-02T00:00:00Z",
                       "wall_s": 120.0, "message": "timed out after 120 s",
                       "stderr_tail": ["Traceback (most recent call last):", "KeyboardInterrupt"],
                       "helpers": {"_common.py": "b" * 64}}
    assert isinstance(Record.from_text(json.dumps(body)), Record)  # the base itself is good
    return body


def dumped(body: dict) -> str:
    return json.dumps(body, indent=2).replace('"DEEP"', DEEP)


def mutations(body: dict, rng: random.Random):
    """(label, text): every field deleted and changed to every kind of value, then bytes."""
    text = dumped(body)
    names = [f.name for f in fields(Record)] + [f"failure.{f.name}" for f in fields(Failure)]
    for name in names:
        for value in ["<deleted>", *VALUES, rng.randbytes(12).decode("latin-1")]:
            changed = json.loads(json.dumps(body))
            holder, key = (changed["failure"], name[8:]) if name.startswith("failure.") else (changed, name)
            if value == "<deleted>":
                holder.pop(key, None)
            else:
                holder[key] = value
            yield f"{name}={value!r:.40}", dumped(changed)
    raw = text.encode()
    for case in range(400):
        flipped = bytearray(raw)
        for _ in range(rng.randint(1, 6)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        yield f"flip#{case}", bytes(flipped).decode("utf-8", "replace")
    for case in range(200):
        yield f"cut#{case}", text[: rng.randrange(len(text))]
    for case in range(40):
        yield f"noise#{case}", rng.randbytes(rng.randrange(1, 4000)).decode("latin-1")


def test_no_mutation_of_a_record_gives_a_traceback(project, tmp_path):
    rng = random.Random(SEED)
    cases = list(mutations(base_body(project), rng))
    assert len(cases) > 1500
    outcomes = {"record": 0, "corrupt": 0}
    for number, (label, text) in enumerate(cases):
        store = Store(tmp_path / f"case{number}")  # its own folder: nothing cached across cases
        store.dir.mkdir(parents=True)
        store.path("p", "cpu").write_text(text, encoding="utf-8")
        item = store.read("p", "cpu")
        where = f"case {number} ({label}), seed {SEED}"
        assert isinstance(item, (Record, Corrupt)), where
        shard = read_shard_file(store.path("p", "cpu"), store.dir)
        assert type(shard) is type(item), where
        if isinstance(item, Corrupt):
            outcomes["corrupt"] += 1
            line = item.describe(tmp_path)
            assert line and "\n" not in line and "fix: `ldr run p --force`" in line, where
            assert len(line) < 1000, where
            continue
        outcomes["record"] += 1
        # A record that reads holds strict values: every consumer can use them as they are.
        rank(item, PIN)
        rank(item, None)  # as for a proof without torch
        if item.torch:  # a record without torch (a plain-Python proof's) has no version folders
            assert history.version_store(store, item.torch).dir.parent == store.dir / "_history", where
            assert noisestore.folder(store, item.torch).parent == store.dir / "_noise", where
        try:
            assert Record.from_text(item.to_text()) == item, where
        except StoreError:
            raise AssertionError(f"{where}: a record that reads must write") from None
    assert outcomes["record"] > 20 and outcomes["corrupt"] > 1400, outcomes


def test_the_cli_names_every_broken_record_in_one_line(project, tmp_path):
    rng = random.Random(SEED + 1)
    body = base_body(project)
    broken = []
    for label, text in mutations(body, rng):
        if isinstance(_read(tmp_path / "probe", text), Corrupt):
            broken.append((label, text))
    picks = rng.sample(broken, 6)
    for number, (_, text) in enumerate(picks[:3]):  # three proofs with a broken record each
        project.proof(f"p{number}", SCRIPT)
        path = project.record(f"p{number}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace('"proof": "p"', f'"proof": "p{number}"'), encoding="utf-8")
    record(project, "p")
    check, status, as_json = project.ldr("check"), project.ldr("status"), project.ldr("status", "--json")
    for out in (check, status, as_json):
        assert "Traceback" not in out.stdout + out.stderr, out.stdout + out.stderr
    assert check.returncode == 1 and status.returncode == 0 and as_json.returncode == 0
    for number in range(3):
        named = [line for line in check.stdout.splitlines() if f"proofs/_results/p{number}.cpu.json:" in line]
        assert len(named) == 1 and f"fix: `ldr run p{number} --force` rewrites it" in named[0], check.stdout
    states = {p["name"]: p["state"] for p in json.loads(as_json.stdout)["proofs"]}
    assert states == {"p": "fresh", "p0": "corrupt", "p1": "corrupt", "p2": "corrupt"}

    shard = tmp_path / "shard"
    for number, (_, text) in enumerate(picks):
        folder = shard / f"artifact{number}"
        folder.mkdir(parents=True)
        (folder / "p.cpu.json").write_text(text, encoding="utf-8")
    before = snapshot(project.root / "proofs" / "_results")
    merge = project.ldr("merge", str(shard))
    assert "Traceback" not in merge.stdout + merge.stderr, merge.stdout + merge.stderr
    assert merge.returncode == 1
    for number in range(len(picks)):
        assert f"corrupt, skipped: {shard / f'artifact{number}' / 'p.cpu.json'}: " in merge.stdout
    assert f"0 record(s) brought home, 0 refused, {len(picks)} corrupt shard file(s) skipped" in merge.stdout
    assert snapshot(project.root / "proofs" / "_results") == before


def _read(folder: Path, text: str):
    """What the store makes of ``text`` as the record of proof p (in a file of its own)."""
    store = Store(folder.parent, folder / str(len(list(folder.iterdir())) if folder.is_dir() else 0))
    store.dir.mkdir(parents=True)
    store.path("p", "cpu").write_text(text, encoding="utf-8")
    return store.read("p", "cpu")
