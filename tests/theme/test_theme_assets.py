"""The theme's and the package's shipped assets: one small module per widget in the source, mounted
through document$, plain ES2019 with no network access; one stylesheet and one script per page,
joined at build time from the files mkdocs.yml lists (theme.ldr_assets) after the package's own."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml
from theme_support import ROOT

from build_hooks.core.errors import LdrError
from build_hooks.site import assets

THEME = ROOT / "theme"
JS = sorted((THEME / "assets" / "js").glob("*.js"))
CSS = sorted((THEME / "assets").glob("*.css"))
PACKAGE_JS = sorted(assets.ASSETS_DIR.glob("*.js"))
WIDGETS = ["depth-meter", "scroll-boxes", "toll-meter", "two-clocks", "graph-walker", "library-sizes",
           "stride-explorer", "promotion-table", "inplace-lab", "engine-stepper"]


class _Loader(yaml.SafeLoader):
    """mkdocs.yml with its !ENV and !!python tags read as null."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)
CONFIG = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
LISTED = CONFIG["theme"]["ldr_assets"]


def test_one_module_per_widget_and_mkdocs_yml_lists_every_file_once():
    assert {p.stem for p in JS} == {"ldr-common", *WIDGETS}
    assert [p.name for p in PACKAGE_JS] == ["ldr-figure-files.js", "ldr-figures.js"]
    assert assets.SCRIPTS == ("ldr-figure-files.js", "ldr-figures.js")  # the files' drawings in place first
    assert sorted(LISTED) == sorted({p.relative_to(THEME).as_posix() for p in [*CSS, *JS]})
    assert len(LISTED) == len(set(LISTED))
    # the tokens first, and the helpers before the modules that call them
    assert LISTED[0] == "assets/ldr.css"
    assert [n for n in LISTED if n.endswith(".js")][0] == "assets/js/ldr-common.js"
    main = (THEME / "main.html").read_text(encoding="utf-8")
    assert main.lstrip().startswith("{#-") and '{% extends "base.html" %}' in main
    assert "<link" not in main and "<script" not in main  # nothing linked one by one
    assert "partials/ldr-meter.html" in main
    assert "page.meta.ldr_meter" in (THEME / "partials" / "ldr-meter.html").read_text()
    # Zensical runs no plugin: mkdocs.yml links the two bundles itself, and nothing else of ours
    assert CONFIG["extra_css"] == assets.stylesheets() == ["assets/ldr/bundle.css"]
    assert CONFIG["extra_javascript"] == assets.scripts() == ["assets/ldr/bundle.js"]


def test_the_bundles_join_the_package_and_the_theme_in_order():
    made = dict(assets.bundles(THEME, LISTED))
    css, js = made[assets.BUNDLE_CSS].decode(), made[assets.BUNDLE_JS].decode()
    sources = ([assets.ASSETS_DIR / n for n in assets.STYLESHEETS] + [THEME / n for n in LISTED if n.endswith(".css")],
               [assets.ASSETS_DIR / n for n in assets.SCRIPTS] + [THEME / n for n in LISTED if n.endswith(".js")])
    # each file whole and in order, less the comments its authors wrote for themselves
    for bundle, files, lean in zip((css, js), sources, (assets._uncommented, assets._lean)):
        at = [bundle.find(lean(path.read_text(encoding="utf-8")).strip()) for path in files]
        assert -1 not in at, [p.name for p, a in zip(files, at) if a < 0]
        assert at == sorted(at), "out of order"
        assert [bundle.find(f"/* {p.relative_to(ROOT).as_posix()} */") for p in files] == \
            sorted(bundle.find(f"/* {p.relative_to(ROOT).as_posix()} */") for p in files)
    assert "/* Proof cards" not in css and "The series' visual language" not in css  # comments go
    assert "Depth meter: marks the floor" not in js
    # the fonts stay where the package's stylesheet names them: the bundle sits beside it
    assert 'url("fonts/Excalifont-latin.woff2")' in css
    # without a theme: the package's own parts alone
    alone = dict(assets.bundles())
    assert alone[assets.BUNDLE_CSS].decode().count("/* build_hooks/assets/") == len(assets.STYLESHEETS)
    # a host whose pages declare their own fonts (the MkDocs plugin) gets the same, less the faces
    lean = dict(assets.bundles(THEME, LISTED, faces=False))[assets.BUNDLE_CSS].decode()
    assert "@font-face" in css and "@font-face" not in lean and "font-display" not in lean
    assert lean == assets._FONT_FACE.sub("", css) and len(lean) < len(css) - 2000
    # a face cut to the drawings' text (drawing/subset.py) is named in place of the shipped one
    cut = dict(assets.bundles(THEME, LISTED, renamed={"Excalifont-latin.woff2": "Excalifont-latin.abc.woff2"}))
    renamed = cut[assets.BUNDLE_CSS].decode()
    assert 'url("fonts/Excalifont-latin.abc.woff2")' in renamed and 'url("fonts/Excalifont-latin.woff2")' not in renamed
    assert 'url("fonts/Excalifont-latin-ext.woff2")' in renamed


def test_a_theme_stylesheet_keeps_its_urls_and_may_not_import(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.css").write_text('.a { background: url("img/x.png"); } .b { background: url(data:x); }')
    css = dict(assets.bundles(tmp_path, ["assets/a.css"]))[assets.BUNDLE_CSS].decode()
    assert 'url("../img/x.png")' in css and "url(data:x)" in css  # from assets/ldr/ to assets/img/
    (tmp_path / "assets" / "b.css").write_text('@import "a.css";')
    with pytest.raises(LdrError, match="@import"):
        assets.bundles(tmp_path, ["assets/b.css"])
    with pytest.raises(LdrError, match="missing.css"):
        assets.bundles(tmp_path, ["assets/missing.css"])
    for wrong in (["assets/a.txt"], [{"src": "assets/a.css"}]):
        with pytest.raises(LdrError, match="not a .css or .js"):
            assets.bundles(tmp_path, wrong)
    (tmp_path / "outside.css").write_text(".x {}")
    with pytest.raises(LdrError):
        assets.bundles(tmp_path / "assets", ["../outside.css"])


@pytest.mark.parametrize("path", [*JS, *PACKAGE_JS], ids=lambda p: p.name)
def test_scripts_make_no_request_and_stay_es2019(path):
    text = path.read_text(encoding="utf-8")
    for banned in ("http://", "https://", "fetch(", "XMLHttpRequest", "import(", "WebSocket", "sendBeacon", "?.", "??"):
        assert banned not in text, (path.name, banned)
    if path.stem in WIDGETS:
        assert "ldr.mount(" in text or "ldr.onPage(" in text  # mounted through document$
    if path in PACKAGE_JS:  # the package's script needs no theme: it mounts through document$ itself
        assert "document$" in text and "ldr." not in text
    assert len(text.encode()) < (9000 if path in PACKAGE_JS else 6000)


@pytest.mark.parametrize("path", CSS, ids=lambda p: p.name)
def test_stylesheets_fetch_nothing(path):
    text = path.read_text(encoding="utf-8")
    assert "@import" not in text and not re.search(r"url\(", text), path.name


def test_the_figure_viewers_styles_ship_with_its_script():
    """The package's figures are self-sufficient: the viewer's script and its styles both ship in
    build_hooks/assets/, and the theme styles no part of it."""
    drawing = (assets.ASSETS_DIR / "ldr-drawing.css").read_text(encoding="utf-8")
    script = (assets.ASSETS_DIR / "ldr-figures.js").read_text(encoding="utf-8")
    for cls in ("ldr-zoom", "ldr-zoom__pane", "ldr-zoom__bar", "ldr-figure-open", "ldr-figure-tools"):
        assert cls in script or cls in (ROOT / "build_hooks" / "drawing" / "figure.py").read_text(), cls
        assert f".{cls}" in drawing, cls
        for sheet in CSS:
            assert f".{cls}" not in sheet.read_text(encoding="utf-8"), (sheet.name, cls)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("path", [*JS, *PACKAGE_JS], ids=lambda p: p.name)
def test_scripts_parse(path):
    subprocess.run(["node", "--check", str(path)], check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_script_bundle_parses(tmp_path):
    (tmp_path / "bundle.js").write_bytes(dict(assets.bundles(THEME, LISTED))[assets.BUNDLE_JS])
    subprocess.run(["node", "--check", str(tmp_path / "bundle.js")], check=True, capture_output=True)


def test_comments_go_and_code_stays():
    css = assets._uncommented('a { content: "/* kept */"; } /* gone */\n\n/* two\nlines */ b { c: \'\\\'/*\'; }')
    assert css == 'a { content: "/* kept */"; }\n b { c: \'\\\'/*\'; }'
    js = assets._lean("/* a */ x();\n  // gone\ny(); // kept\n/* one\n two */\nz(); /* kept */\n")
    assert js == "/* a */ x();\ny(); // kept\nz(); /* kept */\n"

