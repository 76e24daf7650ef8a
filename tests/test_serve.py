"""`mkdocs serve` never freezes: a real dev server on a free loopback port over a tmp project.

Proofs here wait for a "release" file the test writes, so "the other page answered while the
proof was still running" is a fact the test arranges, not a timing it measures. Every wait
has a generous hang guard only. The tests share one server and run in file order; the last
one stops it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from serve_support import Server, alive, make_project, write_page, write_proof

GUARD = 60.0  # seconds: a hang guard, never a timing assertion

GATED = '''\
import json, os, time
from pathlib import Path
Path({started!r}).write_text(json.dumps({{"pid": os.getpid(), "ppid": os.getppid()}}))
deadline = time.monotonic() + 240  # "for ever": released, or killed by the restart
while not Path({release!r}).exists() and time.monotonic() < deadline:
    time.sleep(0.05)
print("alpha {version} here")
print("DATA=" + json.dumps({{"v": {number}}}))
Path({finished!r}).write_text("done")
'''


class Gate:
    """One gated run of the proof: files it writes when it starts and ends, one it waits for."""

    def __init__(self, root: Path, tag: str):
        self.started, self.release, self.finished = (root / f".{tag}-{kind}" for kind in
                                                      ("started", "release", "finished"))

    def source(self, version: str, number: int) -> str:
        return GATED.format(started=str(self.started), release=str(self.release),
                            finished=str(self.finished), version=version, number=number)

    def pids(self) -> dict:
        return json.loads(self.started.read_text())


def output_block(text: str) -> str:
    return f'<pre class="ldr-proof__output"><code>{text}'


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("serve") / "project")
    first = Gate(root, "first")
    write_proof(root, "slow", first.source("v1", 1))
    write_page(root, "index.md", """\
        # Home

        The value is {{ slow.DATA.v }}.

        ```proof-output
        proof: slow
        grep: "alpha"
        ```

        ```proof
        slow
        ```
        """)
    write_page(root, "other.md", "# Other\n\nPlain prose, first version.\n")
    write_page(root, "quote.md", '# Quote\n\nA quote:\n\n```proof-output\nproof: slow\ngrep: "alpha"\n```\n')
    server = Server(root)
    server.first_gate = first
    yield server
    server.cleanup()


def test_a_proof_with_no_record_shows_a_running_card_and_the_page_reloads_with_it(site):
    gate = site.first_gate
    page = site.wait_for("", lambda b: "Home" in b, GUARD)
    # The proof is blocked on its release file: this page was served while it runs.
    assert not gate.finished.exists()
    assert "<strong>Running now</strong>: <code>proofs/slow.py</code> has no recorded result yet" in page
    assert 'class="ldr-pending" data-proof="slow"' in page  # the value and the excerpt
    assert "ldr-error" not in page
    status, other, _ = site.get("other/", GUARD)
    assert status == 200 and "first version" in other and not gate.finished.exists()
    gate.release.write_text("go")
    page = site.wait_for("", lambda b: output_block("alpha v1 here") in b, GUARD)
    assert "Running now" not in page and "ldr-pending" not in page and ">1</span>" in page


def test_editing_a_proof_reruns_it_in_the_background_while_pages_answer(site):
    root = site.root
    gate = Gate(root, "second")
    record = root / "proofs" / "_results" / "slow.cpu.json"
    assert json.loads(record.read_text())["data"] == {"DATA": {"v": 1}}
    write_proof(root, "slow", gate.source("v2", 2))
    page = site.wait_for("", lambda b: "<strong>Re-running</strong>" in b, GUARD)
    # The edited page still shows the previous output and value, marked.
    assert output_block("alpha v1 here") in page and ">1</span>" in page
    assert "script changed since it was recorded" in page and "ldr-excerpt__stale" in page
    # Another page answers while the proof is still running (it cannot end before release).
    status, other, _ = site.get("other/", GUARD)
    assert status == 200 and "Other" in other
    assert not gate.finished.exists()
    deadline = time.monotonic() + GUARD
    while not gate.started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gate.started.exists(), "the background run never started"
    status, _, _ = site.get("quote/", GUARD)
    assert status == 200 and not gate.finished.exists()
    gate.release.write_text("go")
    # settled: a rebuild may show the new record while the run is still listed as running
    page = site.wait_for("", lambda b: output_block("alpha v2 here") in b and "Re-running" not in b, GUARD)
    assert ">2</span>" in page
    assert json.loads(record.read_text())["data"] == {"DATA": {"v": 2}}


def test_a_proof_changed_while_it_runs_is_restarted_not_waited_for(site):
    root = site.root
    stuck, fixed = Gate(root, "stuck"), Gate(root, "fixed")
    write_proof(root, "slow", stuck.source("v3", 3))  # think of a hang: it waits for ever
    deadline = time.monotonic() + GUARD
    while not stuck.started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stuck.started.exists(), "the background run never started"
    write_proof(root, "slow", fixed.source("v4", 4))
    fixed.release.write_text("go")
    page = site.wait_for("", lambda b: output_block("alpha v4 here") in b and "Re-running" not in b, GUARD)
    assert ">4</span>" in page
    assert not stuck.finished.exists() and not alive(stuck.pids()["pid"])
    assert "slow: changed while running; restarted" in site.output()


def test_a_directive_error_is_shown_on_the_page_and_the_server_keeps_going(site):
    root = site.root
    quote = root / "docs" / "quote.md"
    good = quote.read_text()
    quote.write_text(good.replace('grep: "alpha"', 'grep: "no such line"'))
    page = site.wait_for("quote/", lambda b: "ldr-error" in b, GUARD)
    box = page[page.index('<div class="ldr-error" role="alert">'):]
    box = box[: box.index("</div>")]
    assert "docs/quote.md:5: no output line contains &#x27;no such line&#x27;" in box
    assert "check it with `ldr status`" in box  # the fix
    assert "WARNING" in site.output() and "docs/quote.md:5: no output line contains" in site.output()
    # Other pages answer, and the server still rebuilds on edits.
    status, _, _ = site.get("", GUARD)
    assert status == 200
    (root / "docs" / "other.md").write_text("# Other\n\nPlain prose, second version.\n")
    site.wait_for("other/", lambda b: "second version" in b, GUARD)
    quote.write_text(good)
    page = site.wait_for("quote/", lambda b: "ldr-error" not in b, GUARD)
    assert '<figure class="ldr-excerpt" data-proof="slow"><pre><code>alpha v4 here' in page


def test_stopping_serve_stops_the_proof_host_and_a_running_proof(site):
    root = site.root
    gate = Gate(root, "third")
    record = root / "proofs" / "_results" / "slow.cpu.json"
    before = record.read_text()
    write_proof(root, "slow", gate.source("v5", 5))
    deadline = time.monotonic() + GUARD
    while not gate.started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gate.started.exists(), "the background run never started"
    pids = gate.pids()  # the proof and its parent, the proof host
    assert alive(pids["pid"]) and alive(pids["ppid"])
    assert site.stop() == 0, site.output()
    assert not alive(pids["pid"]), "the proof outlived mkdocs serve"
    assert not alive(pids["ppid"]), "the proof host outlived mkdocs serve"
    assert record.read_text() == before  # the killed run recorded nothing
    assert not gate.finished.exists()
    assert "Traceback" not in site.output()
