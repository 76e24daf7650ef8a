"""`zensical build` builds the same site as `mkdocs build` (README, "Zensical").

The acceptance test builds a copy of this repository both ways and compares, page by page, every
element the ldr machinery renders (cards, excerpts, values, claims, figures, instruments, the
depth meter) and the downloads they link. The others use a small project on tmp_path whose
proofs run under a stand-in torch (fast): a proof edit shows on the next build and under
`zensical serve`, errors name the page and line, `--strict` fails on a warning.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
import zensical  # noqa: E402,F401  (the [test] extras install it: a missing one fails, it does not skip)

from build_hooks.core.errors import LdrError  # noqa: E402
from build_hooks.directives.registry import registry  # noqa: E402

FENCES = registry(["build_hooks.series"]).fences
from build_hooks.hosts.zensical import site as zen  # noqa: E402
from build_hooks.hosts.zensical.pages import page_url  # noqa: E402
from build_hooks.site.publish import publish, published  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PIN = next(line for line in (REPO / "pyproject.toml").read_text().splitlines()
           if line.strip().startswith('"torch==')).strip().strip('",').split("==")[1]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


# -- reading a built page ---------------------------------------------------------------------
class LdrElements(HTMLParser):
    """The outermost elements with an ``ldr-`` class, as written (the rail, cards, values...),
    and every link and source in the page."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.found: list[str] = []
        self.links: list[str] = []
        self._open: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        self.links += [value for name, value in attrs if name in ("href", "src") and value]
        text = self.get_starttag_text()
        if self._open is not None:
            self._open.append(text)
            self._depth += tag not in VOID
        elif any(c.startswith("ldr-") for c in (dict(attrs).get("class") or "").split()):
            if tag in VOID:
                self.found.append(text)
            else:
                self._open, self._depth = [text], 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag("br", attrs)  # a void element either way

    def handle_endtag(self, tag):
        if self._open is not None and tag not in VOID:
            self._open.append(f"</{tag}>")
            self._depth -= 1
            if self._depth == 0:
                self.found.append("".join(self._open))
                self._open = None

    def _text(self, text):
        if self._open is not None:
            self._open.append(text)

    def handle_data(self, data):
        self._text(data)

    def handle_entityref(self, name):
        self._text(f"&{name};")

    def handle_charref(self, name):
        self._text(f"&#{name};")

    def handle_comment(self, data):
        self._text(f"<!--{data}-->")


FIGURES = "assets/ldr/figures/"


def read_page(path: Path, site: Path | None = None) -> LdrElements:
    """The ldr elements of a built page; with ``site``, each drawing the page holds as a file
    (MkDocs' lazy_figures: an <img> of it, site/lazyfigures.py) put back as the inline drawing the
    file holds, which is what Zensical's pages (no post-page step) keep."""
    parser = LdrElements()
    # the runs that may be skipped off screen are left out: under MkDocs the first starts further
    # down, since its plugin holds a directive's bulkier parts out while it is placed
    # (hosts/markdown/extension.py, _MarkFar)
    html = unwrap_far(path.read_text(encoding="utf-8"))
    if site is not None:
        html = LAZY.sub(lambda m: inline_drawing(m, site, path.parent), html)
    parser.feed(html)
    return parser


FAR_RUN = re.compile(r'<div class="ldr-far" style="[^"]*">')


def unwrap_far(html: str) -> str:
    """``html`` without the <div class="ldr-far"> around each run of far blocks (their contents kept)."""
    while (m := FAR_RUN.search(html)) is not None:
        depth, end = 0, None
        for tag in re.finditer(r"<div\b|</div>", html[m.start():]):
            depth += -1 if tag.group(0) == "</div>" else 1
            if depth == 0:
                end = m.start() + tag.start()
                break
        assert end is not None, "a run of far blocks is not closed"
        html = html[:m.start()] + html[m.end():end] + html[end + len("</div>"):]
    return html


LAZY = re.compile(r'(<style>[^<]*</style>)?<img class="ldr-drawing-file" src="([^"]+)" alt="([^"]*)" '
                  r'width="([^"]+)" height="([^"]+)" data-ldr-font="([^"]*)" loading="lazy" decoding="async">')


def inline_drawing(m: re.Match, site: Path, here: Path) -> str:
    rules, src, alt, w, h, font = m.groups()
    text = (here / src).resolve().read_text(encoding="utf-8")
    assert (here / src).resolve().is_relative_to(site.resolve()), src
    inner = text[text.index('<g id="ldr-drawing">') + len('<g id="ldr-drawing">'):text.rindex("</g></svg>")]
    return (f'<svg role="img" aria-label="{alt}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" '
            f'width="{w}" height="{h}" class="ldr-drawing" font-family="{font}" '
            f'style="content-visibility: auto; aspect-ratio: {w} / {h}">'
            f'{f"<defs>{rules}</defs>" if rules else ""}{inner}</svg>')


def resolves(site: Path, page: Path, link: str) -> bool:
    """A relative link of a built page names a file of the site."""
    target = link.split("#", 1)[0].split("?", 1)[0]
    if not target:
        return True
    here = page.parent.relative_to(site).as_posix()
    path = site / posixpath.normpath(posixpath.join(here, target))
    return path.is_file() or (path / "index.html").is_file()


def is_local(link: str) -> bool:
    return not link.startswith(("http:", "https:", "mailto:", "data:", "javascript:", "//", "#"))


# -- running the two generators -------------------------------------------------------------------
def run(args: list[str], cwd: Path, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    merged = dict(os.environ, NO_MKDOCS_2_WARNING="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True,
                          env=merged, timeout=timeout, stdin=subprocess.DEVNULL)


def copy_repo(target: Path) -> Path:
    """The repository's files (tracked, and new ones git does not ignore), nothing generated."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(source.read_bytes())
    return target


@pytest.fixture(scope="module")
def both_sites(tmp_path_factory):
    """This repository built by Zensical (first, so that its downloads sit in docs/) and then by
    MkDocs, from the same copy."""
    root = copy_repo(tmp_path_factory.mktemp("repo"))
    zensical_build = run(["zensical", "build"], root)
    assert zensical_build.returncode == 0, zensical_build.stdout + zensical_build.stderr
    mkdocs = run(["mkdocs", "build", "--strict", "-d", "site-mkdocs"], root)
    assert mkdocs.returncode == 0, mkdocs.stdout + mkdocs.stderr
    return root, root / "site", root / "site-mkdocs", zensical_build.stdout + zensical_build.stderr


def test_every_page_has_the_same_ldr_elements(both_sites):
    root, zsite, msite, _ = both_sites
    pages = sorted(p.relative_to(msite) for p in msite.rglob("index.html"))
    assert len(pages) >= 14
    compared = lazy = 0
    for page in pages:
        # MkDocs publishes the drawings past a page's first screens as files: the same drawings
        want, got = read_page(msite / page, msite).found, read_page(zsite / page).found
        assert got == want, f"{page}: Zensical renders the ldr elements differently"
        lazy += (msite / page).read_text(encoding="utf-8").count('class="ldr-drawing-file"')
        compared += len(want)
    # Cards, excerpts, values, claims, figures, instruments and the meter were all compared.
    home = "".join(read_page(msite / "part-00-the-map" / "index.html").found)
    for marker in ('class="ldr-proof', 'class="ldr-excerpt', 'class="ldr-value', 'class="ldr-claim',
                   'class="ldr-figure', 'class="ldr-instrument', 'class="ldr-rail', 'class="ldr-meter'):
        assert marker in home, marker
    assert compared > 200 and lazy >= 3


def test_downloads_are_published_and_resolve(both_sites):
    root, zsite, msite, _ = both_sites

    def downloads(site: Path) -> set[str]:  # proofs/index.html is a page (the proofs index)
        return {p.relative_to(site).as_posix() for folder in ("proofs", "drawings")
                for p in (site / folder).rglob("*") if p.is_file() and p.name != "index.html"}

    assert downloads(zsite) == downloads(msite)
    assert {"proofs/dispatch_cost.py", "proofs/dispatch_cost.ipynb", "proofs/dispatch_cost.py.html",
            "drawings/floors.excalidraw"} <= downloads(zsite)
    assert not any(name.startswith("proofs/_results") for name in downloads(zsite))
    for name in downloads(zsite):
        assert (zsite / name).read_bytes() == (msite / name).read_bytes(), name
    broken = []
    for page in zsite.rglob("index.html"):
        parsed = read_page(page)
        for link in parsed.links:
            if is_local(link) and ("proofs/" in link or "drawings/" in link or link.endswith(".excalidraw")):
                if not resolves(zsite, page, link):
                    broken.append(f"{page.relative_to(zsite)}: {link}")
    # Each proof's source page (the same bytes both ways): its links back to the card and to
    # the downloads resolve in Zensical's site too.
    sources = sorted(zsite.glob("proofs/*.py.html"))
    assert len(sources) == len(list((root / "proofs").glob("[!_]*.py")))
    for page in sources:
        links = [link for link in read_page(page).links if is_local(link)]
        assert any("#proof-" in link or link == "../index.html" for link in links), page.name  # the card, or home
        broken += [f"{page.relative_to(zsite)}: {link}" for link in links if not resolves(zsite, page, link)]
    assert not broken, broken
    part0 = read_page(zsite / "part-00-the-map" / "index.html").links
    assert sum(1 for link in part0 if link.endswith((".py", ".excalidraw"))) >= 10


def test_pages_load_the_same_stylesheets_and_scripts(both_sites):
    root, zsite, msite, _ = both_sites
    own = ("assets/stylesheets/", "assets/javascripts/")  # each generator's theme brings its own

    def loaded(site: Path, page: Path) -> list[str]:
        text = (site / page).read_text(encoding="utf-8")
        found = re.findall(r'<link rel="stylesheet" href="([^"]+)"|<script src="([^"]+)"', text)
        links = [a or b for a, b in found]
        for link in links:
            assert resolves(site, site / page, link), f"{site.name}/{page}: {link} is not in the site"
        here = page.parent.as_posix()  # "./assets/x.css" and "assets/x.css" name the same file
        return [posixpath.normpath(posixpath.join(here, link)) for link in links
                if not any(part in link for part in own)]

    for page in sorted(p.relative_to(msite) for p in msite.rglob("index.html")):
        assert loaded(zsite, page) == loaded(msite, page), page
    assert loaded(zsite, Path("part-00-the-map/index.html")) == ["assets/ldr/bundle.css", "assets/ldr/bundle.js"]


def test_no_theme_data_or_notes_in_either_site(both_sites):
    root, zsite, msite, _ = both_sites
    for site in (zsite, msite):
        leaked = {p.relative_to(site).as_posix() for p in site.rglob("*")
                  if p.suffix in (".yml", ".yaml") or p.name.lower().startswith("readme")}
        assert not leaked, f"{site.name}: {sorted(leaked)}"


def test_the_same_files_are_published(both_sites):
    root, zsite, msite, _ = both_sites
    # Each generator brings its own theme scripts, search index and sitemap; the rest is the site's.
    own = ("assets/javascripts/", "assets/stylesheets/", "assets/images/", "search/", "search.json",
           "sitemap.xml", "404.html")

    def files(site: Path) -> set[str]:
        names = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
        return {n for n in names if not n.startswith(own)}

    # but for the drawings MkDocs publishes as files (Zensical's pages keep them inline)
    figures = {n for n in files(msite) if n.startswith(FIGURES)}
    assert figures and files(zsite) == files(msite) - figures
    # Zensical's pages take the drawing fonts from the bundle: it names the face cut to the
    # drawings' text (drawing/subset.py), which both sites publish
    cut = re.search(r'url\("fonts/(Excalifont-latin\.[0-9a-f]{10}\.woff2)"\)',
                    (zsite / "assets" / "ldr" / "bundle.css").read_text(encoding="utf-8"))
    assert cut and (zsite / "assets" / "ldr" / "fonts" / cut.group(1)).is_file()


def test_a_warm_build_leaves_git_clean(both_sites):
    root, zsite, msite, output = both_sites
    written = published(root / "docs")
    assert "proofs/dispatch_cost.py" in written
    # What Zensical wrote into docs/ is ignored by git, in this repository's own .gitignore.
    marks = [f"docs/.ldr-inputs/{path.name}" for path in (root / "docs" / ".ldr-inputs").iterdir()]
    assert len(marks) == 1  # one digest of the inputs (what Zensical's whole-second watch misses)
    names = [f"docs/{uri}" for uri in sorted(written)] + ["docs/.ldr-published.json", *marks]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *names], cwd=REPO,
                             capture_output=True, text=True, timeout=60).stdout.split()
    assert sorted(ignored) == sorted(names)
    before = {p: p.stat().st_mtime_ns for p in (root / "docs").rglob("*") if p.is_file()}
    again = run(["zensical", "build"], root)
    assert again.returncode == 0, again.stderr
    assert {p: p.stat().st_mtime_ns for p in (root / "docs").rglob("*") if p.is_file()} == before


def test_mkdocs_yml_lists_every_fence_for_zensical():
    import yaml

    class Loader(yaml.Loader):
        pass

    Loader.add_constructor("!ENV", lambda loader, node: None)
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set()
    for entry in yaml.load(text, Loader=Loader)["markdown_extensions"]:
        if isinstance(entry, dict) and "pymdownx.superfences" in entry:
            listed = {fence["name"] for fence in entry["pymdownx.superfences"]["custom_fences"]}
    assert listed >= set(FENCES), f"mkdocs.yml's custom_fences lacks {sorted(set(FENCES) - listed)}"


# -- a small project under a stand-in torch ----------------------------------------------------------
def fence_lines() -> str:
    target = "build_hooks.hosts.markdown.extension"
    return "".join(f"        - {{name: {name}, class: ldr-{name}, format: !!python/name:{target}.fence_format , "
                   f"validator: !!python/name:{target}.fence_validator }}\n" for name in FENCES)


class Small:
    def __init__(self, root: Path):
        self.root = root
        for folder in ("proofs", "docs"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        (root / "pyproject.toml").write_text(
            f'[project]\nname = "t"\nversion = "0"\ndependencies = [\n    "torch=={PIN}",\n]\n')
        (root / "mkdocs.yml").write_text(
            "site_name: Test\n"
            "watch: !!python/object/apply:build_hooks.hosts.zensical.site.prepare []\n"
            "theme:\n  name: material\n  font: false\n"
            "plugins:\n  - ldr\n"
            "markdown_extensions:\n  - attr_list\n  - pymdownx.superfences:\n      custom_fences:\n"
            + fence_lines() + "  - build_hooks.hosts.markdown.extension\n")
        fake = root.parent / f"{root.name}-torch"
        (fake / "torch").mkdir(parents=True, exist_ok=True)
        (fake / "torch" / "__init__.py").write_text(
            f"__version__ = {PIN!r}\nclass cuda:\n    is_available = staticmethod(lambda: False)\n"
            "class backends:\n    mps = None\n")
        python = root.parent / f"{root.name}-python"
        python.write_text(f"#!/bin/sh\nPYTHONPATH={fake} exec {sys.executable} \"$@\"\n")
        python.chmod(0o755)
        self.env = {"LDR_PYTHON": str(python),
                    "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        return path

    def proof(self, name: str, says: str) -> Path:
        return self.write(f"proofs/{name}.py", f'"""Says a word.\n\nPrints it."""\nimport json\n\n'
                          f'print({says!r})\nprint("WORD=" + json.dumps({says!r}))\n')

    def proof_in_the_same_second(self, name: str, says: str) -> Path:
        """Edit a proof and keep its whole-second time: what Zensical's own watch compares."""
        path = self.root / "proofs" / f"{name}.py"
        before = path.stat().st_mtime_ns
        self.proof(name, says)
        same = before + 1 if (before + 1) // 10**9 == before // 10**9 else before - 1
        os.utime(path, ns=(same, same))
        return path

    def zensical(self, *args: str) -> subprocess.CompletedProcess:
        return run(["zensical", "build", *args], self.root, self.env)

    def html(self, page: str) -> str:
        return (self.root / "site" / page / "index.html").read_text(encoding="utf-8")  # "" for home


@pytest.fixture
def small(tmp_path) -> Small:
    return Small(tmp_path / "site-src")


def test_a_proof_edit_shows_on_the_next_build(small):
    small.proof("word", "first")
    small.write("docs/index.md", "# Home\n\nSee [the page](page.md).\n")
    small.write("docs/page.md", "---\ntitle: A page\n---\n# Words\n\nThe word is {{ word.WORD }}.\n\n"
                                "```proof\nword\n```\n")
    built = small.zensical()
    assert built.returncode == 0, built.stderr
    assert "The word is" in small.html("page") and ">first<" in small.html("page")
    assert (small.root / "site" / "proofs" / "word.py").read_text() == (small.root / "proofs" / "word.py").read_text()
    small.proof_in_the_same_second("word", "second")
    built = small.zensical()  # no --clean
    assert built.returncode == 0, built.stderr
    page = small.html("page")
    assert ">second<" in page and ">first<" not in page
    assert "print('second')" in (small.root / "site" / "proofs" / "word.py").read_text()
    # --clean empties Zensical's cache (.cache/), not what the downloads' bookkeeping needs.
    assert small.zensical("--clean").returncode == 0
    rebuilt = small.zensical()
    assert rebuilt.returncode == 0, rebuilt.stderr


def test_a_build_keeps_where_the_pages_directives_are_for_the_next(small):
    # Zensical has no end-of-build hook: the spot book (pages/spotbook.py) is written when the
    # process ends, so the next build need not parse unchanged pages with markdown-it again
    small.proof("word", "first")
    small.write("docs/index.md", "# Home\n\nThe word is {{ word.WORD }}.\n\n```proof\nword\n```\n")
    assert small.zensical().returncode == 0  # runs the proof: its record changes the inputs mid-build
    spots = small.root / ".cache" / "ldr" / "spots"
    shutil.rmtree(spots)
    built = small.zensical()  # nothing changes now: one build, from start to exit
    assert built.returncode == 0, built.stderr
    books = list(spots.iterdir())
    assert len(books) == 1
    text = books[0].read_text(encoding="utf-8")
    assert '"proof"' in text and "{{ word.WORD }}" in text  # the page's fence and its value


def test_ldr_run_false_builds_from_the_records_only(small):
    small.proof("word", "first")
    small.write("docs/index.md", "# Home\n\nThe word is {{ word.WORD }}.\n")
    assert small.zensical().returncode == 0
    record = small.root / "proofs" / "_results" / "word.cpu.json"
    before = record.read_bytes()
    small.proof_in_the_same_second("word", "second")
    built = run(["zensical", "build"], small.root, {**small.env, "LDR_RUN": "false"})
    assert built.returncode == 0, built.stderr
    assert record.read_bytes() == before and "running" not in built.stderr
    assert ">first<" in small.html("")


def test_records_put_back_in_the_same_second_still_rebuild(small):
    """As after `git checkout` of a proof and its record: what Zensical compares (paths and
    whole-second times) is the same as at the last build, and the page must change anyway."""
    small.proof("word", "first")
    small.write("docs/index.md", "# Home\n\nThe word is {{ word.WORD }}.\n")
    assert small.zensical().returncode == 0
    record = small.root / "proofs" / "_results" / "word.cpu.json"
    script = small.root / "proofs" / "word.py"
    first = record.read_bytes(), script.read_bytes()
    small.proof("word", "second")
    assert small.zensical().returncode == 0 and ">second<" in small.html("")
    for path, data in zip((record, script), first):
        before = path.stat().st_mtime_ns
        path.write_bytes(data)
        same = before + 1 if (before + 1) // 10**9 == before // 10**9 else before - 1
        os.utime(path, ns=(same, same))
    built = run(["zensical", "build"], small.root, {**small.env, "LDR_RUN": "false"})
    assert built.returncode == 0, built.stderr
    assert ">first<" in small.html("") and ">second<" not in small.html("")


def test_a_directive_error_names_the_page_and_line(small):
    small.proof("word", "first")
    small.write("docs/index.md", "---\ntitle: Home\n---\n# Home\n\n```proof-output\nproof: word\ngerp: x\n```\n"
                                 "\nThe word is {{ word.WROD }}.\n")
    built = small.zensical()
    assert built.returncode != 0
    output = built.stdout + built.stderr
    # Every error of the page, each with its line in the file (front matter counted).
    assert "docs/index.md:6" in output and "did you mean grep" in output
    assert "docs/index.md:11" in output and "no data key 'WROD'" in output


def test_strict_fails_on_a_claim_that_does_not_hold(small):
    small.proof("word", "first")
    small.write("docs/index.md", "# Home\n\n```claim\nproof: word\ncheck: WORD == 'second'\n```\n")
    loose = small.zensical()
    assert loose.returncode == 0, loose.stderr
    assert "Warning: ldr: docs/index.md:3" in loose.stderr
    strict = small.zensical("--clean", "--strict")
    assert strict.returncode != 0
    assert "docs/index.md:3" in strict.stdout + strict.stderr


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _wait_for(url: str, needle: str, proc: subprocess.Popen, log: Path, deadline_s: float = 90) -> str:
    end = time.monotonic() + deadline_s
    body = None
    while time.monotonic() < end:
        assert proc.poll() is None, "zensical serve ended:\n" + log.read_text()
        body = _get(url)
        if body is not None and needle in body:
            return body
        time.sleep(0.3)
    pytest.fail(f"{url} never showed {needle!r}; last page:\n{body}\nserver log:\n{log.read_text()}")


def test_serve_shows_a_proof_edit_and_errors_in_place(small, tmp_path):
    small.proof("word", "first")
    small.write("docs/index.md", "# Home\n\n```proof\nword\n```\n")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "zensical", "serve", "-a", f"127.0.0.1:{port}"],
                                cwd=small.root, env=dict(os.environ, **small.env), stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_for(url, ">first<", proc, log)
        small.proof_in_the_same_second("word", "second")
        _wait_for(url, ">second<", proc, log)
        small.write("docs/index.md", "# Home\n\n```proof\nnot_a_proof\n```\n")
        page = _wait_for(url, 'class="ldr-error"', proc, log)
        assert "docs/index.md:3" in page and "unknown proof" in page
        assert proc.poll() is None  # the server keeps answering
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)
    assert "Warning: ldr: docs/index.md:3" in log.read_text()


# -- publish() ------------------------------------------------------------------------------------------
def test_publish_writes_changes_only_and_removes_what_it_wrote(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    script = tmp_path / "a.py"
    script.write_text("print(1)\n")
    assert publish(tmp_path, docs, [("proofs/a.py", script), ("proofs/a.ipynb", b"{}")]) == [
        "proofs/a.ipynb", "proofs/a.py"]
    stamp = (docs / "proofs" / "a.py").stat().st_mtime_ns
    assert publish(tmp_path, docs, [("proofs/a.py", script), ("proofs/a.ipynb", b"{}")]) == []
    assert (docs / "proofs" / "a.py").stat().st_mtime_ns == stamp
    assert publish(tmp_path, docs, [("drawings/b.excalidraw", b"{}")]) == ["drawings/b.excalidraw"]
    assert not (docs / "proofs").exists()  # emptied folders go too
    assert published(docs) == {"drawings/b.excalidraw"}


def test_publish_never_replaces_an_authors_file(tmp_path):
    docs = tmp_path / "docs"
    (docs / "proofs").mkdir(parents=True)
    (docs / "proofs" / "a.py").write_text("mine\n")
    with pytest.raises(LdrError, match=r"docs/proofs/a.py: .* fix: remove or rename"):
        publish(tmp_path, docs, [("proofs/a.py", b"theirs\n")])
    assert (docs / "proofs" / "a.py").read_text() == "mine\n"
    # The same content is taken over (its bookkeeping was lost), and then removed when unlisted.
    assert publish(tmp_path, docs, [("proofs/a.py", b"mine\n")]) == []
    assert published(docs) == {"proofs/a.py"}
    publish(tmp_path, docs, [])
    assert not (docs / "proofs").exists()


def test_prepare_does_nothing_under_mkdocs():
    assert not zen.running()
    assert zen.prepare() == []


def test_page_urls_follow_the_generators():
    assert page_url("index.md") == ""
    assert page_url("part-00-the-map.md") == "part-00-the-map/"
    assert page_url("drift/2.13.0-to-2.14.1.md") == "drift/2.13.0-to-2.14.1/"
    assert page_url("drift/index.md") == "drift/"
    assert page_url("a.md", directory_urls=False) == "a.html"
