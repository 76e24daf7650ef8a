"""The directives' registry: one list the hosts read, widgets joining it by configuration, and
``reads`` held true for what a directive must not depend on."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from build_hooks.core.errors import DirectiveError, LdrError
from build_hooks.directives.context import Context
from build_hooks.directives.registry import CORE, READS, registry
from build_hooks.hosts.markdown.fences import custom_fences

SERIES = ["build_hooks.series"]


def test_the_core_and_the_series_fences():
    core = registry()
    assert core.fences == tuple(d.name for d in CORE)
    assert {"proof", "proof-output", "claim", "source", "figure", "drift-report", "corrections",
            "proofs-index", "exercises"} == set(core.fences)
    assert not {"instrument", "robot", "reading-lines"} & set(core.fences)
    series = registry(SERIES)
    assert series.fences[: len(core.fences)] == core.fences
    assert {"instrument", "robot", "reading-lines"} <= set(series.fences)
    assert series.widget_proofs["toll-meter"] == "dispatch_cost"
    assert [f["name"] for f in custom_fences(SERIES)] == list(series.fences)
    assert all(d.reads <= READS for d in series.directives.values())


def test_a_directive_checks_the_options_it_declares():
    claim = registry().get("claim")
    claim.check({"proof": "x", "check": "x > 1"})
    with pytest.raises(DirectiveError, match=r"did you mean check for chek"):
        claim.check({"proof": "x", "chek": "x > 1"})
    registry().get("exercises").check({"any_proof_name": "free text"})  # its body is its own mapping


def _widget_module(name: str, directives) -> str:
    module = types.ModuleType(name)
    module.DIRECTIVES = directives  # type: ignore[attr-defined]
    sys.modules[name] = module
    return name


def test_a_widget_module_must_list_directives_and_take_free_names(monkeypatch):
    from build_hooks.directives.registry import make

    monkeypatch.setitem(sys.modules, "w_none", types.ModuleType("w_none"))
    with pytest.raises(LdrError, match=r"w_none has no DIRECTIVES.*fix"):
        registry(["w_none"])
    taken = make("claim", "a second claim", (), (), lambda options, ctx: "")
    _widget_module("w_taken", (taken,))
    try:
        with pytest.raises(LdrError, match=r"registers the 'claim' fence, which is taken"):
            registry(["w_taken"])
    finally:
        sys.modules.pop("w_taken", None)
    with pytest.raises(LdrError, match=r"unknown `reads`"):
        make("x", "x", (), {"network"}, lambda options, ctx: "")
    with pytest.raises(LdrError, match=r"cannot import no_such_module.*fix"):
        registry(["no_such_module"])


def _no_records(name: str):
    raise AssertionError(f"read the records of {name} though it declares it reads none")


@pytest.mark.parametrize("fence, options", [
    ("robot", {"says": "Hello."}),
    ("reading-lines", {}),
])
def test_what_reads_no_records_never_asks_for_them(fence, options):
    """``reads`` is held true: a directive that does not list ``records`` renders without a
    lookup (one that tried would fail here)."""
    directive = registry(SERIES).get(fence)
    assert "records" not in directive.reads
    root = Path(__file__).resolve().parents[2]  # the series' data/ (reading lines)
    ctx = Context(root=root, page="index.md", lookup=_no_records)
    first = directive.handler(options, ctx)
    again = directive.handler(options, Context(root=root, page="index.md", lookup=_no_records))
    assert first == again and first.strip()


def test_figure_reads_drawings_not_records(tmp_path):
    drawings = tmp_path / "drawings"
    drawings.mkdir()
    (drawings / "box.excalidraw").write_text(
        '{"type": "excalidraw", "version": 2, "elements": [{"id": "a", "type": "rectangle", "x": 0, '
        '"y": 0, "width": 40, "height": 20, "angle": 0, "strokeColor": "#1e1e1e", "backgroundColor": '
        '"transparent", "fillStyle": "solid", "strokeWidth": 2, "strokeStyle": "solid", "roughness": 1, '
        '"opacity": 100, "seed": 1, "version": 1, "isDeleted": false, "groupIds": [], "roundness": null, '
        '"boundElements": [], "frameId": null, "link": null, "locked": false}], "appState": {}, "files": {}}')
    directive = registry().get("figure")
    assert directive.reads == {"drawings"}
    html = directive.handler({"src": "box.excalidraw", "alt": "a box"}, Context(root=tmp_path, lookup=_no_records))
    assert "<svg" in html
