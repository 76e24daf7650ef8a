"""The package in a site that is not this repo: a fresh mkdocs-material project that only lists
the plugin (no theme/, no pyproject.toml, nothing copied from here) gets styled cards, excerpts,
values and figures, the drawing fonts and working downloads; the wheel carries those assets."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from build_hooks.drawing.palette import ROLES
from build_hooks.proofs.pin import pinned_torch
from build_hooks.site import assets
from build_hooks.site.assets import ASSETS_DIR, BUNDLE_CSS, BUNDLE_JS, STYLESHEETS, site_assets, stylesheets

REPO = Path(__file__).resolve().parents[1]
PIN = pinned_torch(REPO)
CHROMIUM = Path("/usr/bin/chromium")

PROOF = '''"""Counting letters.

Counts the letters of one word, so that the page has a card, an excerpt and a value.
"""
import json

word = "tensor"
print(f"{word} has {len(word)} letters")
print("COUNT=" + json.dumps({"letters": len(word)}))
'''

PAGE = """# Home

The word has {{ hello.COUNT.letters }} letters.

```proof-output
proof: hello
grep: "letters"
```

```figure
src: box.excalidraw
alt: A box with a word in it
caption: One box.
```

```proof
hello
```
"""


def _scene() -> str:
    common = {"x": 0, "y": 0, "angle": 0, "strokeColor": "#1e1e1e", "backgroundColor": "transparent",
              "fillStyle": "solid", "strokeWidth": 2, "strokeStyle": "solid", "roughness": 1, "opacity": 100,
              "groupIds": [], "frameId": None, "roundness": None, "isDeleted": False, "boundElements": None,
              "link": None, "locked": False}
    box = {**common, "id": "box", "type": "rectangle", "width": 160, "height": 80, "seed": 11}
    text = {**common, "id": "word", "type": "text", "x": 20, "y": 25, "width": 60, "height": 25, "seed": 12,
            "text": "tensor", "originalText": "tensor", "fontSize": 20, "fontFamily": 5, "textAlign": "left",
            "verticalAlign": "top", "containerId": None, "lineHeight": 1.25}
    return json.dumps({"type": "excalidraw", "version": 2, "elements": [box, text],
                       "appState": {"viewBackgroundColor": "#ffffff"}, "files": {}})


def make_site(root: Path, plugin: str = "  - ldr\n", proofs: str = "proofs", drawings: str = "drawings") -> Path:
    (root / "docs").mkdir(parents=True)
    (root / proofs).mkdir(parents=True)
    (root / drawings).mkdir(parents=True)
    (root / "mkdocs.yml").write_text(f"site_name: Elsewhere\ntheme:\n  name: material\nplugins:\n{plugin}")
    (root / "docs" / "index.md").write_text(PAGE)
    (root / proofs / "hello.py").write_text(PROOF)
    (root / drawings / "box.excalidraw").write_text(_scene())
    return root


def build(root: Path) -> subprocess.CompletedProcess:
    # The package is importable the way an install makes it (here: this checkout first on the path).
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=path)
    env.pop("LDR_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=root,
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = make_site(tmp_path_factory.mktemp("elsewhere"))
    (root / "requirements.txt").write_text(f"mkdocs-ldr\ntorch=={PIN}  # the proofs' torch\n")
    result = build(root)
    assert result.returncode == 0, result.stderr[-3000:]
    return root


def linked(site: Path, page: str = "index.html") -> dict[str, str]:
    """Stylesheet href -> the file's text in the built site, for every local sheet the page links."""
    html = (site / "site" / page).read_text()
    out = {}
    for href in re.findall(r'<link rel="stylesheet" href="([^"]+)"', html):
        if urlparse(href).scheme:
            continue  # material's web fonts
        target = site / "site" / Path(page).parent / href
        assert target.is_file(), f"{page} links {href}, which the site does not have"
        out[href] = target.read_text()
    return out


def test_no_project_files_were_needed(site):
    assert not (site / "pyproject.toml").exists() and not (site / "theme").exists()
    record = json.loads((site / "proofs" / "_results" / "hello.cpu.json").read_text())
    assert "torch" not in record and record["data"] == {"COUNT": {"letters": 6}}  # plain Python: no torch


def test_package_stylesheets_are_linked_and_style_every_generic_class(site):
    sheets = linked(site)
    assert stylesheets() == [BUNDLE_CSS]  # one stylesheet of ours: the package's, joined
    assert BUNDLE_CSS in sheets, f"index.html does not link {BUNDLE_CSS}; it links {sorted(sheets)}"
    for name in STYLESHEETS:  # each whole, less its comments and its font faces (the pages declare those)
        assert f"/* build_hooks/assets/{name} */" in sheets[BUNDLE_CSS], name
        whole = assets._FONT_FACE.sub("", assets._uncommented((ASSETS_DIR / name).read_text()))
        assert whole in sheets[BUNDLE_CSS], name
    assert f'<script src="{BUNDLE_JS}"' in (site / "site" / "index.html").read_text()
    html = (site / "site" / "index.html").read_text()
    assert 'class="ldr-proof"' in html and 'class="ldr-excerpt' in html and 'class="ldr-value"' in html
    assert '<figure class="ldr-figure"' in html
    css = "\n".join(sheets.values())
    used = {c for attr in re.findall(r'class="([^"]*)"', html) for c in attr.split() if c.startswith("ldr-")}
    unstyled = sorted(c for c in used if not re.search(rf"\.{re.escape(c)}(?![\w-])", css))
    # Hooks that look like the text around them: the source block's wrapper (Pygments' colours),
    # the heading's anchor link and the device name in the provenance line.
    assert set(unstyled) <= {"ldr-source", "ldr-proof__anchor", "ldr-proof__device"}, unstyled


def test_drawing_fonts_are_served_and_match_the_package(site):
    # the page declares the faces its drawings name in its head, relative to itself; the one
    # stylesheet declares none (instant navigation reloads it, and a reloaded @font-face makes
    # the browser lay out every text on the page again). A face the drawings' text falls in is
    # cut to those characters (drawing/subset.py) and named by its bytes; the others are the
    # package's files as shipped.
    from fontTools.ttLib import TTFont

    html = (site / "site" / "index.html").read_text()
    head = html[:html.index("</head>")]
    faces = re.findall(r'font-family: "([^"]+)"; src: url\("([^"]+)"\)', head)
    assert faces and 'font-family="Excalifont' in html and "Excalifont" in {f for f, _ in faces}
    texts = "".join(re.findall(r"<text[^>]*>([^<]*)</text>", html))
    cut = 0
    for family, url in faces:
        served = site / "site" / urljoin("index.html", url)
        name = url.split("assets/ldr/fonts/", 1)[1]
        stem, _, rest = name.partition(".")
        if rest == "woff2":  # as shipped
            assert served.read_bytes() == (ASSETS_DIR / "fonts" / name).read_bytes(), family
            continue
        cut += 1
        assert re.fullmatch(r"[0-9a-f]{10}\.woff2", rest), name  # named by its bytes
        shipped = ASSETS_DIR / "fonts" / f"{stem}.woff2"
        mine, theirs = (set(TTFont(path).getBestCmap()) for path in (served, shipped))
        assert mine < theirs and len(served.read_bytes()) < len(shipped.read_bytes()), name
        assert {ord(ch) for ch in texts if ord(ch) in theirs} <= mine, name  # every drawn character
    assert cut == 1  # Excalifont's Latin face: the drawings' text is all Latin
    assert "@font-face" not in (site / "site" / BUNDLE_CSS).read_text()


def test_downloads_resolve(site):
    html = (site / "site" / "index.html").read_text()
    download = re.search(r'<a class="ldr-proof__download" href="([^"]+)"', html)
    assert download, "the card has no download link"
    assert (site / "site" / download.group(1)).read_text() == PROOF
    edit = re.search(r'<a class="ldr-figure-edit" href="([^"]+)"', html).group(1)
    assert (site / "site" / edit).read_text() == (site / "drawings" / "box.excalidraw").read_text()
    value = re.search(r'<span class="ldr-value" data-card="([^"]+)"', html).group(1)  # text, not a link
    assert value.endswith("#proof-hello") and 'id="proof-hello"' in html


def test_in_a_browser_the_card_is_styled_and_the_figure_font_loads(site):
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium (apt-get install chromium); never `playwright install`")
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"]
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
            page = browser.new_page()
            page.route(re.compile(r"^https?://(?!127\.0\.0\.1)"), lambda route: route.abort())  # offline
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
            seen = page.evaluate("""async () => {
              await document.fonts.ready;
              const card = getComputedStyle(document.querySelector('.ldr-proof'));
              const label = getComputedStyle(document.querySelector('.ldr-proof__label'));
              const faces = [...document.fonts].filter(f => f.family.replace(/"/g, '') === 'Excalifont');
              await Promise.all(faces.map(f => f.load().catch(() => null)));
              // the figure's viewer comes with the package: no theme of ours on this site
              const open = document.querySelector('figure.ldr-figure[data-ldr-ready] .ldr-figure-tools button');
              if (open) open.click();
              return {border: card.borderLeftWidth, label: label.color,
                      loaded: faces.filter(f => f.status === 'loaded').length,
                      viewer: !!document.querySelector('dialog.ldr-zoom[open] svg.ldr-drawing')};
            }""")
            browser.close()
    finally:
        server.shutdown()
    assert float(seen["border"].removesuffix("px")) > 2, seen
    light = ROLES["subject"][0]
    assert seen["label"] == "rgb({}, {}, {})".format(*(int(light[i:i + 2], 16) for i in (1, 3, 5))), seen
    assert seen["loaded"] >= 1, seen
    assert seen["viewer"], seen  # "Enlarge" opened the drawing full screen


def test_folders_and_the_pin_come_from_the_plugin_options(site, tmp_path):
    plugin = ("  - ldr:\n      proofs_dir: src/proofs\n      drawings_dir: art\n      results_dir: records\n"
              f'      torch: "{PIN}"\n      run: false\n')
    root = make_site(tmp_path / "other", plugin, proofs="src/proofs", drawings="art")
    (root / "records").mkdir()
    shutil.copy(site / "proofs" / "_results" / "hello.cpu.json", root / "records")  # same script, same pin
    result = build(root)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (root / "site" / "proofs" / "hello.py").read_text() == PROOF
    assert (root / "site" / "drawings" / "box.excalidraw").is_file()
    assert "tensor has 6 letters" in (root / "site" / "index.html").read_text()
    assert not (root / "src" / "proofs" / "_results").exists()
    # `ldr` run in the site reads the same options from mkdocs.yml.
    status = subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", "status", "--json"], cwd=root / "docs",
                            capture_output=True, text=True, timeout=120,
                            env=dict(os.environ,
                                     PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])))
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert report["pin"] == PIN and [p["name"] for p in report["proofs"]] == ["hello"]
    assert report["proofs"][0]["state"] == "fresh", report["proofs"][0]
    assert report["proofs"][0]["records"][0]["path"].startswith("records/")


def test_no_pin_anywhere_names_every_place_it_looked(tmp_path):
    """A proof that imports torch needs the pin (a site of plain-Python proofs needs none:
    tests/core/test_no_torch.py)."""
    root = make_site(tmp_path / "nopin")
    (root / "proofs" / "tensor.py").write_text('"""Uses torch."""\nimport torch\n')
    (root / "requirements.txt").write_text("mkdocs-material\n")
    result = build(root)
    assert result.returncode != 0
    message = result.stderr
    assert "no torch pin found" in message and "the `torch` option: not set" in message
    assert f"{root / 'pyproject.toml'}: not found" in message
    assert f"{root / 'requirements.txt'}: has no exact torch pin" in message


def test_palette_defaults_match_the_renderer_fallbacks():
    css = (ASSETS_DIR / "ldr-palette.css").read_text()
    light, dark = css.split('[data-md-color-scheme="slate"]', 1)
    for role, (day, night) in ROLES.items():
        assert f"--ldr-{role}: {day};" in light and f"--ldr-{role}: {night};" in dark, role
    assert all(":where(" in head for head in re.findall(r"^[^\s/*].*\{", css, re.M))  # zero specificity


def test_the_wheel_ships_every_asset(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source)
    shutil.copytree(REPO / "build_hooks", source / "build_hooks", ignore=shutil.ignore_patterns("__pycache__"))
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                             "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"build_hooks/assets/{path.relative_to(ASSETS_DIR).as_posix()}" for _, path in site_assets()}
    assert expected and expected <= names, sorted(expected - names)
    assert "build_hooks/assets/fonts/README.md" in names  # the fonts' sources and licences
