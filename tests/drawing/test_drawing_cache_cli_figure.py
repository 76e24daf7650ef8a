"""The content-hash cache, the ``ldr draw`` command and the figure directive."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from drawing_support import el, scene

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.drawing import cache, draw_command, render_file
from build_hooks.drawing.figure import render_fence

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, *elements) -> Path:
    path.write_text(json.dumps(scene(*elements)))
    return path


# --- cache ------------------------------------------------------------------------------------

def test_render_file_uses_memory_then_disk(tmp_path, cache_dir, monkeypatch):
    f = _write(tmp_path / "a.excalidraw", el("rectangle", seed=3))
    first = render_file(f, cache_dir=cache_dir)
    files = list(cache_dir.glob("*.svg"))
    assert len(files) == 1 and files[0].read_text().endswith("\n" + first)  # after the entry's seal (core/cache.py)
    cache.clear_memory()
    calls = []
    monkeypatch.setattr("build_hooks.drawing.render_svg", lambda *a, **k: calls.append(1) or "<svg/>")
    assert render_file(f, cache_dir=cache_dir) == first  # from disk, no render
    assert calls == []


def test_key_changes_with_content_and_options(tmp_path, cache_dir):
    f = _write(tmp_path / "a.excalidraw", el("rectangle", seed=3))
    render_file(f, cache_dir=cache_dir)
    render_file(f, cache_dir=cache_dir, dark=True)
    _write(f, el("rectangle", seed=4))
    render_file(f, cache_dir=cache_dir)
    assert len(list(cache_dir.glob("*.svg"))) == 3


def test_key_follows_the_renderer_code(tmp_path, cache_dir, monkeypatch):
    f = _write(tmp_path / "a.excalidraw", el("rectangle", seed=3))
    key = cache.cache_key(f.read_bytes(), source="a.excalidraw")
    monkeypatch.setattr(cache, "renderer_fingerprint", lambda: "another-renderer")
    assert cache.cache_key(f.read_bytes(), source="a.excalidraw") != key


def test_corrupt_entry_reads_as_a_miss(tmp_path, cache_dir):
    f = _write(tmp_path / "a.excalidraw", el("ellipse"))
    good = render_file(f, cache_dir=cache_dir)
    entry = next(cache_dir.glob("*.svg"))
    entry.write_text(good[: len(good) // 2])  # a torn write
    cache.clear_memory()
    assert render_file(f, cache_dir=cache_dir) == good
    assert entry.read_text().endswith("\n" + good)  # repaired
    entry.write_bytes(b"\xff\xfe\x00garbage")
    cache.clear_memory()
    assert render_file(f, cache_dir=cache_dir) == good


def test_writes_are_atomic(tmp_path, monkeypatch):
    d = tmp_path / "c"
    cache.write(d, "k", "<svg>one</svg>")
    real_replace = cache.os.replace

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(cache.os, "replace", boom)
    with pytest.raises(OSError):
        cache.write(d, "k", "<svg>two</svg>")
    monkeypatch.setattr(cache.os, "replace", real_replace)
    cache.clear_memory()
    assert cache.read(d, "k") == "<svg>one</svg>"  # the old entry is intact
    assert len(list(d.iterdir())) == 1  # no temp file left behind


# --- ldr draw -----------------------------------------------------------------------------------

def test_draw_command_writes_svg(tmp_path):
    f = _write(tmp_path / "in.excalidraw", el("rectangle", strokeColor="#1e1e1e"))
    out = tmp_path / "out" / "x.svg"
    assert draw_command([str(f), str(out)]) == 0
    assert "var(--ldr-ink, #1f2a44)" in out.read_text()  # the theme's light ink as fallback
    assert draw_command([str(f), str(out), "--raw"]) == 0
    assert 'stroke="#1e1e1e"' in out.read_text()
    assert draw_command([str(f), str(out), "--dark"]) == 0
    assert "var(--ldr-ink, #e6e9f2)" in out.read_text()  # and its dark ink


def test_draw_command_reports_errors(tmp_path, capsys):
    f = tmp_path / "bad.excalidraw"
    f.write_text("{nope")
    assert draw_command([str(f), str(tmp_path / "o.svg")]) == 1
    assert "bad.excalidraw: invalid JSON at line 1" in capsys.readouterr().err


def test_draw_command_frame(tmp_path):
    fr = el("frame", id="F", x=0, y=0, width=50, height=40, name="one")
    f = _write(tmp_path / "in.excalidraw", fr, el("rectangle", frameId="F", x=5, y=5, width=10, height=10))
    out = tmp_path / "o.svg"
    assert draw_command([str(f), str(out), "--frame", "one"]) == 0
    assert 'viewBox="0 0 50 40"' in out.read_text()


# --- the figure directive -------------------------------------------------------------------------

@pytest.fixture
def project(tmp_path, cache_dir):
    (tmp_path / "drawings").mkdir()
    box = el("rectangle", id="b", boundElements=[{"type": "text", "id": "t"}])
    label = el("text", id="t", containerId="b", text="the <kernel>")
    arrow = el("arrow", id="a", boundElements=[{"type": "text", "id": "l"}], x=200)
    alabel = el("text", id="l", containerId="a", text="go")
    _write(tmp_path / "drawings" / "one.excalidraw", box, label, arrow, alabel)
    _write(tmp_path / "drawings" / "two.excalidraw", box, label, arrow, alabel)
    return Context(root=tmp_path, page="part-00.md", base_url="../")


def test_figure_markup(project):
    html = render_fence({"src": "one.excalidraw", "alt": "A box", "caption": "The <first> box."}, project)
    assert html.startswith('<figure class="ldr-figure" id="figure-one" data-ldr-zoom>')
    assert '<svg role="img" aria-label="A box" ' in html
    # the caption is the caption alone: it names the figure, so the download is not in it
    assert html.endswith("<figcaption>The &lt;first&gt; box.</figcaption></figure>")
    # the download: a short link in a row of its own, between the drawing and the caption; how to
    # open the scene is its tooltip
    tools = re.search(r'</svg>(<p class="ldr-figure-tools">.*?</p>)<figcaption>', html)
    assert tools, html[-600:]
    link = re.fullmatch(r'<p class="ldr-figure-tools"><a class="ldr-figure-edit" href="../drawings/one.excalidraw" '
                        r'download title="([^"]+)">([^<]+)</a></p>', tools.group(1))
    assert link, tools.group(1)
    assert link.group(2) == "Download the scene (.excalidraw)" and len(link.group(2).split()) <= 5
    assert "excalidraw.com" in link.group(1) and "Open" in link.group(1)
    assert "the &lt;kernel&gt;" in html and "<kernel>" not in html


def test_a_figure_without_a_caption_has_no_figcaption(project):
    html = render_fence({"src": "one.excalidraw"}, project)
    assert "<figcaption" not in html and 'class="ldr-figure-edit"' in html


def test_figure_bare_arg_and_alt_from_scene_text(project):
    html = render_fence({"arg": "one.excalidraw"}, project)
    assert 'aria-label="the &lt;kernel&gt;, go"' in html


def test_two_figures_on_a_page_have_distinct_ids(project):
    a = render_fence({"src": "one.excalidraw"}, project)
    b = render_fence({"src": "two.excalidraw"}, project)
    ids_a = set(re.findall(r' id="([^"]+)"', a))
    ids_b = set(re.findall(r' id="([^"]+)"', b))
    assert len(ids_a) >= 2 and not ids_a & ids_b
    for ref in re.findall(r'url\(#([^)]+)\)', a):
        assert ref in ids_a  # every reference resolves inside its own figure


@pytest.mark.parametrize("options,needle", [
    ({"src": "missing.excalidraw"}, "drawings/missing.excalidraw does not exist"),
    ({"src": "../secrets.excalidraw"}, "not a .excalidraw file under drawings/"),
    ({}, "no drawing given"),
    ({"src": "one.excalidraw", "colour": "red"}, "unknown option(s) colour"),
    ({"src": "one.excalidraw", "frame": "nowhere"}, "no frame named 'nowhere'"),
])
def test_figure_errors(project, options, needle):
    with pytest.raises(DirectiveError) as exc:
        render_fence(options, project)
    assert needle in str(exc.value)


def test_figure_bad_scene_names_file_and_element(project):
    _write(project.root / "drawings" / "bad.excalidraw", el("blob", id="x1"))
    with pytest.raises(DirectiveError) as exc:
        render_fence({"src": "bad.excalidraw"}, project)
    assert "bad.excalidraw" in str(exc.value) and "'x1'" in str(exc.value)


def test_the_real_floors_figure(cache_dir):
    ctx = Context(root=ROOT, base_url="")
    html = render_fence({"src": "floors.excalidraw", "caption": "The floors."}, ctx)
    assert 'id="figure-floors"' in html
    # The floors' names are drawn as SVG text (not only named in the caption or the alt text).
    drawn = " ".join(re.findall(r"<text\b[^>]*>(.*?)</text>", html, flags=re.S))
    for floor in ("Dispatcher", "Autograd"):
        assert floor in drawn, floor
    assert 'href="drawings/floors.excalidraw"' in html
