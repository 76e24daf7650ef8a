"""The theme's shipped assets: one small module per widget, mounted through document$, plain
ES2019 with no network access, every file main.html links present."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from theme_support import ROOT

THEME = ROOT / "theme"
JS = sorted((THEME / "assets" / "js").glob("*.js"))
CSS = sorted((THEME / "assets").glob("*.css"))
MAIN = (THEME / "main.html").read_text(encoding="utf-8")
WIDGETS = ["depth-meter", "toll-meter", "two-clocks", "graph-walker", "library-sizes", "stride-explorer",
           "promotion-table", "inplace-lab", "engine-stepper", "figure-zoom"]


def test_one_module_per_widget_and_main_links_them_all():
    assert {p.stem for p in JS} == {"ldr-common", *WIDGETS}
    for name in ["ldr-common", *WIDGETS]:
        assert f'"{name}"' in MAIN
    for sheet in ("ldr.css", "meter.css", "instruments.css", "figures.css"):
        assert f'"{sheet}"' in MAIN and (THEME / "assets" / sheet).is_file()
    assert MAIN.lstrip().startswith("{#-") and '{% extends "base.html" %}' in MAIN
    assert "partials/ldr-meter.html" in MAIN
    assert "page.meta.ldr_meter" in (THEME / "partials" / "ldr-meter.html").read_text()


@pytest.mark.parametrize("path", JS, ids=lambda p: p.name)
def test_scripts_make_no_request_and_stay_es2019(path):
    text = path.read_text(encoding="utf-8")
    for banned in ("http://", "https://", "fetch(", "XMLHttpRequest", "import(", "WebSocket", "sendBeacon", "?.", "??"):
        assert banned not in text, (path.name, banned)
    if path.stem in WIDGETS:
        assert "ldr.mount(" in text or "ldr.onPage(" in text  # mounted through document$
    assert len(text.encode()) < 6000


@pytest.mark.parametrize("path", CSS, ids=lambda p: p.name)
def test_stylesheets_fetch_nothing(path):
    text = path.read_text(encoding="utf-8")
    assert "@import" not in text and not re.search(r"url\(", text), path.name


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("path", JS, ids=lambda p: p.name)
def test_scripts_parse(path):
    subprocess.run(["node", "--check", str(path)], check=True, capture_output=True)
