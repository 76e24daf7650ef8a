"""Drawings past a page's first screens are published as files (site/lazyfigures.py): the page
holds an <img> of the file, and the file holds the drawing as the page would have shown it."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from build_hooks.site.defer import defer
from build_hooks.site.lazyfigures import EARLY_TEXT, ROOT_ID, lazy_figures

REPO_DRAWINGS = Path(__file__).resolve().parents[2] / "drawings"
DRAWING = ('<svg role="img" aria-label="Two &quot;clocks&quot; &amp; a queue" xmlns="http://www.w3.org/2000/svg" '
           'viewBox="0 0 300 120.5" width="300" height="120.5" class="ldr-drawing" font-family="Excalifont, cursive" '
           'style="content-visibility: auto; aspect-ratio: 300 / 120.5">'
           '<path d="M10 10c50 0 100 0 200 0" style="stroke:var(--ldr-ink, #1f2a44)" stroke-width="2" fill="none"/>'
           + '<text x="20" y="60" font-size="16px" style="fill:var(--ldr-ink, #1f2a44)">a label</text>' * 40
           + "</svg>")


def figure(ident: str, svg: str = DRAWING) -> str:
    return (f'<figure class="ldr-figure" id="figure-{ident}" data-ldr-zoom>{svg}<p class="ldr-figure-tools">'
            f'<a class="ldr-figure-edit" href="../drawings/{ident}.excalidraw" download>Download</a></p></figure>')


def prose(chars: int) -> str:
    return "<p>" + ("word " * (chars // 5)) + "</p>\n"


def page(*parts: str) -> tuple[str, dict[str, str]]:
    """The page as the extension leaves it: bulky blocks held out (defer.py)."""
    return defer("".join(parts))


def test_a_drawing_past_the_first_screens_becomes_a_file_and_an_img_of_it():
    html, stash = page(prose(EARLY_TEXT + 100), figure("later"))
    files = lazy_figures(html, stash, lambda uri: "../" + uri)
    assert len(files) == 1
    uri, body = files[0]
    digest = hashlib.sha256(body).hexdigest()[:10]
    assert uri == f"assets/ldr/figures/later.{digest}.svg"
    text = body.decode()
    # a file of its own: the drawing's size and font, its name as a title, its content in the group
    assert text.startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 120.5" width="300" '
                           'height="120.5" font-family="Excalifont, cursive"><title>Two &quot;clocks&quot; '
                           f'&amp; a queue</title><g id="{ROOT_ID}"><path ')
    assert text.count("<text ") == 40 and "content-visibility" not in text and "role=" not in text
    (img,) = [block for block in stash.values() if block.startswith("<img")]
    assert img == (f'<img class="ldr-drawing-file" src="../{uri}" alt="Two &quot;clocks&quot; &amp; a queue" '
                   'width="300" height="120.5" data-ldr-font="Excalifont, cursive" loading="lazy" decoding="async">')
    assert not any("<svg" in block for block in stash.values())


def test_a_drawings_slate_colours_stay_in_the_page_and_out_of_its_file():
    rules = '<style>[data-md-color-scheme="slate"] svg.ldr-drawing { --ldr-c-1971c2: #56a2e8; }</style>'
    coloured = DRAWING.replace("<path ", f"<defs>{rules}</defs><path ", 1)
    html, stash = page(prose(EARLY_TEXT + 100), figure("coloured", coloured))
    ((uri, body),) = lazy_figures(html, stash, lambda uri: uri)
    assert "<style" not in body.decode() and "<defs>" not in body.decode()
    (held,) = stash.values()
    assert held.startswith(rules + '<img class="ldr-drawing-file" src="' + uri + '"')
    # anything more in that style, and the drawing stays as it is
    for other in ('{ --ldr-c-1971c2: #56a2e8; } svg { fill: red }', "</style><style>x"):
        odd = coloured.replace("{ --ldr-c-1971c2: #56a2e8; }", other)
        html, stash = page(prose(EARLY_TEXT + 100), figure("odd", odd))
        assert lazy_figures(html, stash, lambda uri: uri) == [], other


def test_a_drawing_near_the_top_or_one_a_use_cannot_draw_stays_inline():
    masked = DRAWING.replace("<path ", '<mask id="m1"><rect/></mask><path mask="url(#m1)" ', 1)
    styled = DRAWING.replace("<path ", "<style>.x{fill:red}</style><path ", 1)
    plot = DRAWING.replace('class="ldr-drawing"', 'class="ldr-plot"')
    html, stash = page(prose(100), figure("early"), prose(EARLY_TEXT), figure("masked", masked),
                       figure("styled", styled), figure("plot", plot), "<div>" + DRAWING + "</div>")
    before = dict(stash)
    assert lazy_figures(html, stash, lambda uri: uri) == []
    assert stash == before


def test_text_is_counted_without_tags_and_each_later_drawing_gets_its_own_file():
    tags = "<p>" + '<span class="x">ab</span>' * (EARLY_TEXT // 2 - 10) + "</p>"  # short of the mark in text
    html, stash = page(tags, figure("first"), prose(100), figure("second"),
                       figure("third", DRAWING.replace("a label", "another label")))
    files = lazy_figures(html, stash, lambda uri: uri)
    assert [re.sub(r"\.[0-9a-f]{10}\.svg$", "", uri) for uri, _ in files] == [
        "assets/ldr/figures/second", "assets/ldr/figures/third"]
    assert files[0][1] != files[1][1] and files[0][0] != files[1][0]  # named by their bytes
    assert sum(block.startswith("<svg") for block in stash.values()) == 1  # "first" stays


SCENE_PAGE = """\
# Figures

```figure
src: two-clocks.excalidraw
alt: Near the top
```

{prose}

```figure
src: later.excalidraw
alt: Further down
```
"""


def test_a_build_publishes_the_later_drawing_and_lazy_figures_false_keeps_it_inline(project):
    (project.root / "drawings").mkdir()
    for name in ("two-clocks", "later"):
        shutil.copy(REPO_DRAWINGS / "two-clocks.excalidraw", project.root / "drawings" / f"{name}.excalidraw")
    words = "Words of the page, about the drawing below. " * (EARLY_TEXT // 40)
    project.page("index.md", SCENE_PAGE.format(prose=words))
    built = project.build()
    assert built.returncode == 0, built.stderr
    html = project.html()
    assert html.count('<svg role="img" aria-label="Near the top"') == 1
    (src,) = re.findall(r'<figure class="ldr-figure" id="figure-later" data-ldr-zoom><img class="ldr-drawing-file" '
                        r'src="([^"]+)" alt="Further down"', html)
    assert re.fullmatch(r"assets/ldr/figures/later\.[0-9a-f]{10}\.svg", src)
    body = (project.root / "site" / src).read_text()
    assert body.startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox=') and f'<g id="{ROOT_ID}">' in body
    assert "<text " in body and "Further down" in body
    # the same drawing, inline, with the option off
    yml = project.root / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("  - ldr\n", "  - ldr:\n      lazy_figures: false\n"))
    assert project.build().returncode == 0
    html = project.html()
    assert "ldr-drawing-file" not in html and html.count('class="ldr-drawing"') == 2
    assert not (project.root / "site" / "assets" / "ldr" / "figures").exists()
