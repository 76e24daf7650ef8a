"""In a real browser: a figure's strokes, fills and text follow the scheme toggle (no filter), and
its fonts come from the package's ldr-drawing.css."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest
from drawing_support import CHROMIUM, el, need_chromium, scene
from fidelity import CHROMIUM_ARGS

from build_hooks.drawing import render_svg
from build_hooks.drawing.palette import dark_variant

ROOT = Path(__file__).resolve().parents[2]

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="drawing/ldr-drawing.css">
<style>
  [data-md-color-scheme="default"] { --ldr-ink: #101010; --ldr-subject: #f08c00; --ldr-paper: #ffffff;
    --ldr-context: #868e96; --ldr-subject-soft: #ffd8a8; }
  [data-md-color-scheme="slate"] { --ldr-ink: #eeeeee; --ldr-subject: #ffa94d; --ldr-paper: #1e2129;
    --ldr-context: #9aa1a9; --ldr-subject-soft: #5a3b14; }
</style></head>
<body data-md-color-scheme="default"><figure class="ldr-figure">FIGURE</figure></body></html>"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    need_chromium()
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(ROOT / "build_hooks" / "assets", site / "drawing")
    s = scene(
        el("rectangle", id="ink", strokeColor="#1e1e1e", x=0, y=0),
        el("rectangle", id="subject", strokeColor="#f08c00", x=150, y=0),
        el("rectangle", id="blue", strokeColor="#1e1e1e", backgroundColor="#a5d8ff", fillStyle="solid", x=300, y=0),
        el("text", id="label", strokeColor="#1e1e1e", text="hello", fontFamily=5, x=0, y=100, width=50),
    )
    (site / "index.html").write_text(PAGE.replace("FIGURE", render_svg(s, source="browser.excalidraw")))
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


@pytest.fixture(scope="module")
def page(page_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        pg = browser.new_page()
        pg.goto(page_url)
        pg.evaluate("() => document.fonts.ready")
        yield pg
        browser.close()


COLOURS = """() => {
  const g = [...document.querySelectorAll('svg.ldr-drawing > g')];
  const stroke = (i) => getComputedStyle(g[i].querySelector('path[fill="none"]')).stroke;
  const fill = getComputedStyle(g[2].querySelector('path[stroke="none"]')).fill;
  const text = getComputedStyle(document.querySelector('svg.ldr-drawing text')).fill;
  const bg = document.querySelector('svg.ldr-drawing > rect') ? 'own background' : 'the page';
  const filter = getComputedStyle(document.querySelector('svg.ldr-drawing')).filter;
  return {ink: stroke(0), subject: stroke(1), blue: fill, text, bg, filter};
}"""


def _rgb(hexc: str) -> str:
    return "rgb({}, {}, {})".format(*(int(hexc[i:i + 2], 16) for i in (1, 3, 5)))


def test_strokes_change_colour_with_the_scheme_toggle(page):
    light = page.evaluate(COLOURS)
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'slate')")
    dark = page.evaluate(COLOURS)
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'default')")
    assert light["ink"] == _rgb("#101010") and dark["ink"] == _rgb("#eeeeee")
    assert light["subject"] == _rgb("#f08c00") and dark["subject"] == _rgb("#ffa94d")
    assert light["text"] == _rgb("#101010") and dark["text"] == _rgb("#eeeeee")
    assert light["bg"] == dark["bg"] == "the page"  # no white card in the dark scheme
    # a colour outside the palette keeps its value in light mode and takes the figure's dark rule
    assert light["blue"] == _rgb("#a5d8ff") and dark["blue"] == _rgb(dark_variant("#a5d8ff"))
    assert light["filter"] == "none" and dark["filter"] == "none"


def test_fonts_come_from_drawing_css(page):
    loaded = page.evaluate("""async () => {
      await document.fonts.load('20px Excalifont', 'hello');
      return [...document.fonts].filter(f => f.family.replace(/"/g, '') === 'Excalifont' && f.status === 'loaded')
                                .length;
    }""")
    assert loaded >= 1
    assert page.evaluate("() => document.fonts.check('20px Excalifont', 'hello')")
