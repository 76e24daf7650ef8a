"""Every proof is also a notebook: valid nbformat, runs on a real ipykernel, prints what the
script prints, carries the recorded output and its provenance, and is published by a build."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import ipykernel  # noqa: E402,F401
import nbclient  # noqa: E402  (the [test] extras install nbclient and ipykernel: a missing one fails)
import nbformat
import pytest

from build_hooks.proofs.records import ProofData
from build_hooks.run.library import Library
from build_hooks.site.downloads import downloads, for_library
from build_hooks.site.notebook import build, code_cells, dumps, notebook_text

REPO = Path(__file__).resolve().parents[2]
# Proofs whose output depends on nothing but torch's arithmetic and its version: run as a
# notebook they must print exactly what the script prints (the others time things, or read
# the installation's files).
DETERMINISTIC = ("dtype_bits", "view_ops", "type_promotion", "scalar_promotion")

SCRIPT = '''"""Two *doubles* and a <b>bold</b> claim.

Adds `x + x` for a few x; the helper `_twice.py` does the work.
"""
import json

from _twice import twice

PROOF = {"timeout": 30}

# %%
values = [1, 2, 3]
doubled = [twice(v) for v in values]
print("doubled:", doubled)
len(doubled)

# %% the data line
print("TWICE=" + json.dumps({"values": doubled}))
'''


def stdout_of(nb) -> str:
    return "".join(out["text"] for cell in nb.cells if cell.cell_type == "code"
                   for out in cell.outputs if out.output_type == "stream" and out.name == "stdout")


def non_stream(nb) -> list[str]:
    return [out.output_type for cell in nb.cells if cell.cell_type == "code"
            for out in cell.outputs if out.output_type != "stream"]


def primary(records: dict) -> ProofData | None:
    return next((records[d] for d in ("cuda", "mps", "cpu") if d in records), None)


def test_every_real_proof_is_a_valid_notebook_that_runs_on_a_real_kernel(tmp_path):
    """All the proofs of the series on one kernel (reset between notebooks, so each starts with
    an empty namespace; torch is imported once): none raises, the deterministic ones print the
    script's output exactly. No proof is skipped: the slowest takes about 3.4 s.

    The reset (``%reset -f``) ends in two full garbage collections, which walked every object
    torch's import made: 0.4 to 1 s a notebook, a third of the test. The reset cell therefore
    also moves what survives it into the collector's permanent generation (``gc.freeze()``, no
    name left behind), so the next reset walks only what the proof made; the proofs, their
    outputs and the checks are the same."""
    check_every_proof_as_a_notebook(REPO, tmp_path)


def test_a_proof_without_a_record_is_still_a_notebook_that_runs(project, tmp_path):
    """Any valid content holds: a proof not run yet has no record to compare, but its notebook
    is checked and run like the others (this once raised KeyError 'torch')."""
    project.proof("fresh", "print('never run')\n")
    project.proof("uses", "from _help import H\nprint(H)\n")
    (project.root / "proofs" / "_help.py").write_text("H = 2\n")
    kernel_dir = tmp_path / "kernel"
    kernel_dir.mkdir()
    assert check_every_proof_as_a_notebook(project.root, kernel_dir) == ["fresh", "uses"]


def check_every_proof_as_a_notebook(root: Path, cwd: Path) -> list[str]:
    """Each proof of the project at ``root`` as a valid notebook run on one real kernel; a proof
    with a record also carries its provenance and output. Returns the proofs without a record."""
    from jupyter_client.manager import KernelManager

    library = Library(root)
    assert library.proofs, f"{root}: no proofs"
    unrecorded = []
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(cwd))
    kc = None  # one client for every notebook: a new one waits for the kernel again (0.2 s each)
    try:
        for name, proof in library.proofs.items():
            record = primary(library.lookup(name))
            helpers = tuple(helper for helper, _ in proof.helpers)
            for helper in helpers:  # a reader downloads them beside the notebook, as it says
                shutil.copyfile(library.layout.proofs / helper, cwd / helper)
            nb = nbformat.reads(notebook_text(name, proof.source, record, helpers), as_version=4)
            nbformat.validate(nb)
            assert nb.cells[0].source.startswith("# "), name
            recorded = stdout_of(nb)
            if record is None:
                unrecorded.append(name)
                assert recorded == "", f"{name}: no record, yet the notebook carries output"
            else:
                assert nb.metadata["ldr"]["record"]["torch"] == record.provenance.torch, name
                assert nb.metadata["ldr"]["record"]["wall_s"] == record.provenance.wall_s, name
                assert recorded.rstrip("\n") == record.stdout.rstrip("\n"), name
            nb.cells.insert(0, nbformat.v4.new_code_cell(RESET))
            client = nbclient.NotebookClient(nb, km=km, timeout=120, allow_errors=False)
            client.kc = kc
            try:
                client.execute()
            finally:
                kc = client.kc  # the one it made (first notebook) is stopped below, even on a failure
            assert non_stream(nb) == [], f"{name}: a cell displayed a value the script does not print"
            if name in DETERMINISTIC and record is not None:
                assert stdout_of(nb) == recorded, name
    finally:
        if kc is not None:
            kc.stop_channels()
        km.shutdown_kernel(now=True)
    return unrecorded


# An empty namespace for each notebook (``%reset -f``), then what survived the reset out of the
# garbage collector's way (see the test above); ``__import__`` leaves no name behind.
RESET = '%reset -f\n__import__("gc").freeze()'


def test_a_notebook_in_a_fresh_kernel_prints_what_the_script_prints(tmp_path):
    (tmp_path / "twice.py").write_text(SCRIPT)
    (tmp_path / "_twice.py").write_text("def twice(x):\n    return x + x\n")
    script = subprocess.run([sys.executable, "twice.py"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=60)
    assert script.returncode == 0, script.stderr
    nb = nbformat.reads(notebook_text("twice", SCRIPT, None, ("_twice.py",)), as_version=4)
    nbformat.validate(nb)
    # The docstring is text: only backticks stay markup.
    assert nb.cells[0].source == ("# Two \\*doubles\\* and a \\<b\\>bold\\</b\\> claim\n\n"
                                  "Adds `x + x` for a few x; the helper `_twice.py` does the work.")
    assert "It needs `_twice.py` beside it." in nb.cells[1].source  # plain Python: no torch
    assert "No run of it is recorded yet" in nb.cells[1].source
    codes = [c.source for c in nb.cells if c.cell_type == "code"]
    # Cut at the # %% markers; the bare `len(doubled)` is quieted with a `;`.
    assert codes[0].startswith("import json\n\nfrom _twice import twice\n\nPROOF")
    assert codes[1].endswith("len(doubled);")
    assert codes[2] == '# the data line\nprint("TWICE=" + json.dumps({"values": doubled}))'
    assert all(not c.outputs for c in nb.cells if c.cell_type == "code")
    nbclient.NotebookClient(nb, timeout=60, resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert non_stream(nb) == []
    assert stdout_of(nb) == script.stdout


def record_of(stdout: str, **provenance) -> ProofData:
    p = {"proof": "x", "torch": "2.14.1", "device_class": "cpu", "device": "Xeon", "python": "3.11.7",
         "os": "Linux-6", "machine": "x86_64", "measured_at": "2026-12-01", "wall_s": 1.5,
         "status": "ok", "stale": False, "reasons": [], "failure": None}
    p.update(provenance)
    return ProofData("x", {}, p, stdout, "")


def test_provenance_is_text_and_metadata_and_the_output_sits_under_the_last_cell():
    script = '"""X."""\nprint("a")\nprint("a")\n\nprint("b")\nprint("b")\n'
    nb = build("x", script, record_of("a\na\nb\nb", device="<img src=x onerror=alert(1)> *Xeon*"))
    note = nb.cells[1].source
    assert "\\<img src=x onerror=alert(1)\\> \\*Xeon\\*" in note and "<img" not in note.replace("\\<img", "")
    assert "torch 2.14.1" in note and "2026-12-01" in note and "1.50 s" in note
    assert nb.metadata["ldr"]["record"] == {
        "torch": "2.14.1", "device_class": "cpu", "device": "<img src=x onerror=alert(1)> *Xeon*",
        "python": "3.11.7", "os": "Linux-6", "measured_at": "2026-12-01", "wall_s": 1.5, "status": "ok"}
    codes = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in codes] == ['print("a")\nprint("a")', 'print("b")\nprint("b")']
    assert codes[0].outputs == []
    assert codes[-1].outputs == [nbformat.v4.new_output("stream", name="stdout", text="a\na\nb\nb\n")]


def test_a_failed_or_stale_record_says_so_and_a_failed_one_shows_no_output():
    script = '"""X."""\nprint("a")\n'
    failed = build("x", script, record_of("Traceback", status="failed"))
    assert "No good run recorded" in failed.cells[1].source
    assert all(not c.outputs for c in failed.cells if c.cell_type == "code")
    stale = build("x", script, record_of("a", stale=True, reasons=["script changed since it was recorded"]))
    assert "The record is stale: script changed since it was recorded." in stale.cells[1].source
    assert stale.metadata["ldr"]["record"]["stale"] == ["script changed since it was recorded"]


def test_setup_cells_merge_and_a_lone_line_joins_the_next_cell():
    code = ('import json\n\nimport torch\n\nPROOF = {}\n\nx = torch.ones(2)\n\nprint(x)\n\n'
            'def f():\n    return 1\n\nprint(f())\n')
    assert code_cells(code) == [("code", "import json\n\nimport torch\n\nPROOF = {}"),
                                ("code", "x = torch.ones(2)\n\nprint(x)"),
                                ("code", "def f():\n    return 1"), ("code", "print(f())")]


def test_same_input_same_bytes():
    library = Library(REPO)
    proof = library.proofs["dtype_bits"]
    record = primary(library.lookup("dtype_bits"))
    first = notebook_text("dtype_bits", proof.source, record)
    assert first == notebook_text("dtype_bits", proof.source, record)
    assert json.loads(first)["cells"][0]["id"] == "dtype-bits-0"
    assert dumps(build("dtype_bits", proof.source, record)) == first


def test_downloads_list_scripts_used_helpers_notebooks_source_pages_and_drawings(project):
    project.proof("uses", "from _help import H\nprint(H)\n")
    project.proof("plain", "print(1)\n")
    (project.root / "proofs" / "_help.py").write_text("H = 2\n")
    (project.root / "proofs" / "_unused.py").write_text("U = 3\n")
    (project.root / "drawings").mkdir()
    (project.root / "drawings" / "map.excalidraw").write_text("{}")
    library = Library(project.root)
    found = dict(downloads(project.root, library.proofs))
    assert sorted(found) == ["drawings/map.excalidraw", "proofs/_help.py", "proofs/plain.ipynb",
                             "proofs/plain.py", "proofs/plain.py.html", "proofs/uses.ipynb", "proofs/uses.py",
                             "proofs/uses.py.html"]
    assert found["proofs/uses.py"] == project.root / "proofs" / "uses.py"
    page = found["proofs/uses.py.html"].decode()  # no host told it where the card is: back to the site
    assert '<a href="../index.html">&larr; Back to the site</a>' in page
    assert '<a href="_help.py" download>' in page
    cards = {"uses": [("part.md", "part/")]}
    linked = dict(downloads(project.root, library.proofs, cards=cards))["proofs/uses.py.html"].decode()
    assert '<a href="../part/#proof-uses">&larr; Back to the card</a>' in linked
    nb = nbformat.reads(found["proofs/uses.ipynb"].decode(), as_version=4)
    assert "It needs `_help.py` beside it." in nb.cells[1].source  # plain Python: no torch
    assert [uri for uri, _ in for_library(library)] == sorted(found)


def test_a_build_publishes_the_notebook_beside_the_script_and_the_card_links_it(project):
    project.proof("twice", "print('doubled:', [2, 4])\nprint('TWICE=[2, 4]')\n", doc="Doubles.\n\nIt doubles.")
    project.page("index.md", "# Home\n\n```proof\ntwice\n```\n")
    first = project.build()
    assert first.returncode == 0, first.stderr
    published = project.root / "site" / "proofs" / "twice.ipynb"
    nb = nbformat.read(published, as_version=4)
    nbformat.validate(nb)
    record = json.loads(project.record("twice").read_text())
    assert stdout_of(nb) == "\n".join(record["stdout"]) + "\n"
    assert nb.metadata["ldr"]["record"]["measured_at"] == record["measured_at"][:10]
    html = project.html()
    assert ('<a class="ldr-proof__notebook" href="proofs/twice.ipynb" download>'
            "or as a notebook, <code>twice.ipynb</code></a>") in html
    before = published.read_bytes()
    second = project.build()  # warm: runs nothing, writes the same bytes
    assert second.returncode == 0 and "running" not in second.stderr
    assert published.read_bytes() == before
    assert not (project.root / "site" / "proofs" / "_results").exists()
    cli = project.ldr("notebook", "twice", "-o", "twice.ipynb")
    assert cli.returncode == 0, cli.stderr
    assert (project.root / "twice.ipynb").read_bytes() == before


def test_the_notebook_cache_follows_the_script_and_the_record(project):
    from build_hooks.site.downloads import cached_notebook

    project.proof("x", 'print("a")\nprint("b")\n')
    proof = Library(project.root).proofs["x"]
    first = cached_notebook(project.root, proof, record_of("a\nb"))
    assert first == notebook_text("x", proof.source, record_of("a\nb"))
    assert list((project.root / ".cache" / "ldr" / "notebook").glob("*.ipynb"))
    moved = cached_notebook(project.root, proof, record_of("a\nc", measured_at="2026-12-02"))
    assert stdout_of(nbformat.reads(moved, as_version=4)) == "a\nc\n"
    project.proof("x", 'print("a")\nprint("cc")\n')
    edited = Library(project.root).proofs["x"]
    assert 'print(\\"cc\\")' in cached_notebook(project.root, edited, None)


def test_a_notebook_is_published_as_made_never_from_the_cache_and_follows_a_rewritten_record(project):
    from build_hooks.site import downloads as module

    project.proof("x", 'print("first")\n')
    assert project.build().returncode == 0
    [made] = [source for uri, source in module.for_library(Library(project.root)) if uri == "proofs/x.ipynb"]
    assert isinstance(made, bytes)  # not a path into .cache/ (a cache entry is a hint: core/cache.py)
    assert made == (project.root / "site" / "proofs" / "x.ipynb").read_bytes()
    # A record rewritten in place (same script): the published notebook shows it.
    record = project.record("x")
    record.write_text(record.read_text().replace('"first"', '"rewritten"'))
    assert project.build().returncode == 0
    published = nbformat.reads((project.root / "site" / "proofs" / "x.ipynb").read_text(), as_version=4)
    assert stdout_of(published) == "rewritten\n"


def test_a_new_record_of_an_unchanged_script_needs_no_jupytext(project, monkeypatch):
    import jupytext

    from build_hooks.site.downloads import cached_notebook

    project.proof("x", '"""Doc."""\nimport json\n\nprint("a")\n\nprint("b")\n')
    proof = Library(project.root).proofs["x"]
    first = cached_notebook(project.root, proof, record_of("a\nb"))
    assert list((project.root / ".cache" / "ldr" / "notebook-cells").glob("*.json"))
    monkeypatch.setattr(jupytext, "reads", lambda *a, **k: pytest.fail("jupytext split the script again"))
    moved = cached_notebook(project.root, proof, record_of("a\nc", measured_at="2026-12-02"))
    assert stdout_of(nbformat.reads(moved, as_version=4)) == "a\nc\n"
    assert code_cells_of(moved) == code_cells_of(first)
    # A torn entry is split again, not trusted.
    for path in (project.root / ".cache" / "ldr" / "notebook-cells").glob("*.json"):
        path.write_text("[[")
    from build_hooks.core import cache as cache_module
    cache_module.clear_memory()
    monkeypatch.undo()
    again = cached_notebook(project.root, proof, record_of("a\nd", measured_at="2026-12-03"))
    assert code_cells_of(again) == code_cells_of(first)


def code_cells_of(text: str) -> list[str]:
    return [cell.source for cell in nbformat.reads(text, as_version=4).cells if cell.cell_type == "code"]
