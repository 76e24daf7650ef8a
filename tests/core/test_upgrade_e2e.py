"""Upgrade day end to end, with two stand-in torch packages instead of two real wheels.

Each stand-in is a package named ``torch`` with only a version (and the CUDA/MPS answers the
probe asks for), so the whole path runs for real in seconds: the pin moves, `ldr run`
re-measures under the new interpreter and keeps the old record in history, `ldr drift` lists
exactly the values that differ and the claim the new data breaks, and the built page shows its
corrections note. A second real torch would cost gigabytes per run for the same coverage; the
series' own 2.13.0 -> 2.14.1 upgrade was done with real wheels (README, "Upgrading torch").
"""

from __future__ import annotations

import json
import re

STANDIN = '''\
__version__ = "{version}"
class cuda:
    is_available = staticmethod(lambda: False)
class backends:
    mps = None
'''

PROOF = '''\
import json
import torch

new = torch.__version__.startswith("2.99")
print("cost per call:", 3.0 if new else 2.0, "us")
print("COST=" + json.dumps({"us": 3.0 if new else 2.0}))
print("STEADY=" + json.dumps({"n": 7}))
print("SEEN=" + json.dumps({"version": torch.__version__}))
'''

PAGE = """\
# Chapter

One call costs {{ toll.COST.us | .1f }} µs, and the steady count is {{ toll.STEADY.n }}.

```claim
proof: toll
check: COST.us < 2.5
say: One call costs less than 2.5 µs.
```

```corrections
- torch: 2.99.0
  date: 2026-12-01
  note: "The call got dearer; the sentence above was checked."
```

```proof
toll
```
"""


def pin(project, version: str) -> None:
    path = project.root / "pyproject.toml"
    path.write_text(re.sub(r'"torch==[^"]+"', f'"torch=={version}"', path.read_text()))


def test_an_upgrade_is_recorded_compared_and_corrected_on_the_page(project, fake_python):
    old = fake_python("2.98.0", body=STANDIN.format(version="2.98.0"))
    new = fake_python("2.99.0", body=STANDIN.format(version="2.99.0"))
    project.proof("toll", PROOF)
    project.page("index.md", PAGE)

    pin(project, "2.98.0")
    first = project.ldr("run", "--python", old)
    assert first.returncode == 0, first.stderr
    pin(project, "2.99.0")
    status = json.loads(project.ldr("status", "--json").stdout)
    assert status["proofs"][0]["records"][0]["reasons"] == ["recorded under torch 2.98.0, pin is 2.99.0"]
    second = project.ldr("run", "--python", new)
    assert second.returncode == 0, second.stderr
    kept = json.loads((project.root / "proofs" / "_results" / "_history" / "2.98.0" / "toll.cpu.json").read_text())
    assert kept["torch"] == "2.98.0" and kept["data"]["COST"] == {"us": 2.0}

    drift = project.ldr("drift", "--json")
    assert drift.returncode == 0, drift.stderr
    body = json.loads(drift.stdout)
    assert (body["from"], body["to"]) == ("2.98.0", "2.99.0")
    [toll] = body["proofs"]
    changed = {v["key"]: (v["old"], v["new"]) for v in toll["values"]}
    assert changed == {"COST.us": (2.0, 3.0), "SEEN.version": ("2.98.0", "2.99.0")}  # STEADY did not move
    assert [v["quoted_at"] for v in toll["values"] if v["key"] == "COST.us"] == [["docs/index.md:3"]]
    assert [(c["check"], c["status"]) for c in toll["claims"]] == [("COST.us < 2.5", "broke")]

    strict = project.build()
    assert strict.returncode == 1 and "claim does not hold: COST.us < 2.5" in strict.stderr
    built = project.build(strict=False)
    assert built.returncode == 0, built.stderr
    html = project.html()
    note = html[html.index('<aside class="ldr-corrections"'):]
    note = note[: note.index("</aside>")]
    assert "torch 2.98.0 → 2.99.0" in note and "The call got dearer" in note
    # in words, by section, the list one click away
    assert ('<p class="ldr-corrections__summary">1 value quoted on this page changed, in <a href="#chapter">'
            'Chapter</a>. 1 claim no longer holds, in <a href="#chapter">Chapter</a>.</p>') in note
    assert "<code>toll.<wbr>COST.<wbr>us</code>: 2.0 → <strong>3.0</strong>" in note  # in the page's own format
    assert "STEADY" not in note
    assert "ldr-claim--broken" in html
