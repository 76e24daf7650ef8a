"""Library sizes: the chart shows the _C extension against the libraries `import torch` loads,
and folds the shipped-but-unloaded files into one row."""

from __future__ import annotations

import json
import re

from theme_support import ROOT, make_ctx

from build_hooks.proofs.records import ProofData
from build_hooks.series.instruments import render_fence
from build_hooks.series.instruments.library_sizes import chart_rows

EXT = "_C.cpython-311-x86_64-linux-gnu.so"


def _files(loaded: bool | None = True) -> list[dict]:
    rows = [("libtorch_cpu.so", 400e6, True), ("libtorchbind_test.so", 9e5, False), (EXT, 8.7e3, True),
            ("libc10.so", 1.5e6, True), ("libjitbackend_test.so", 2e5, False)]
    return [{"name": n, "bytes": b, "folder": "torch" if n == EXT else "torch/lib",
             "loaded": (flag if loaded else None)} for n, b, flag in rows]


def test_rows_put_the_extension_first_then_loaded_libraries_then_the_rest_in_one():
    rows = chart_rows(_files(), EXT)
    assert [r["name"] for r in rows] == [EXT, "libtorch_cpu.so", "libc10.so", "2 other files, not loaded"]
    assert [r["kind"] for r in rows] == ["stub", "file", "file", "rest"]
    assert rows[-1]["bytes"] == 9e5 + 2e5
    assert rows[-1]["members"] == ["libtorchbind_test.so", "libjitbackend_test.so"]


def test_without_load_information_every_file_is_a_row():
    rows = chart_rows(_files(loaded=None), EXT)
    assert [r["name"] for r in rows] == [f["name"] for f in _files()]


def test_the_real_record_draws_no_test_library_and_says_what_import_loads():
    rec = json.loads((ROOT / "proofs" / "_results" / "where_code_lives.cpu.json").read_text())
    prov = {"proof": "where_code_lives", "torch": rec["torch"], "device_class": "cpu", "device": rec["device"],
            "python": rec["python"], "os": rec["os"], "machine": rec["machine"],
            "measured_at": rec["measured_at"][:10], "wall_s": rec["wall_s"], "status": "ok", "stale": False}
    ctx = make_ctx({"where_code_lives": {"cpu": ProofData("where_code_lives", rec["data"], prov)}})
    html = render_fence({"arg": "library-sizes"}, ctx)
    labels = re.findall(r'class="ldr-row-label"[^>]*>([^<]+)<', html)
    assert labels[0] == rec["data"]["EXTENSION"]["name"]
    assert not any("test" in label for label in labels)
    assert "loads" in html and "import torch" in html


def test_the_page_embeds_each_row_as_the_script_reads_it():
    """Name, folder and bytes per drawn row, in the chart's order: the load flags and row kinds
    the chart was drawn from are not shipped again."""
    prov = {"proof": "where_code_lives", "torch": "2.14.1", "device_class": "cpu", "device": "cpu",
            "python": "3.11", "os": "Linux", "machine": "x86_64", "measured_at": "2026-12-01", "wall_s": 1.0,
            "status": "ok", "stale": False}
    data = {"LIBRARIES": {"files": _files(), "total_bytes": 4e8, "system": "Linux", "suffix": ".so"},
            "EXTENSION": {"name": EXT}}
    ctx = make_ctx({"where_code_lives": {"cpu": ProofData("where_code_lives", data, prov)}})
    html = render_fence({"arg": "library-sizes"}, ctx)
    [payload] = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html).group(1))
    assert payload["rows"] == [{"name": row["name"], "folder": row["folder"], "bytes": row["bytes"]}
                               for row in chart_rows(_files(), EXT)]
    assert payload["rows"][0] == {"name": EXT, "folder": "torch", "bytes": 8700}
