"""Another site, as the README tells an adopter to make it (README, "Using the package in another
site"): its configuration, taken from the README, builds under MkDocs and under Zensical, with
directory URLs and without; the home page shows a card of a plain-Python proof and other pages
quote it (an inline value, an excerpt, a claim, the proofs index). Every link and anchor in the
built pages resolves: each ``href`` and ``src`` from the page's own URL, each inline value's
``data-card`` from the site's root (its own page's for ``#...``), to a file the site has and, for
a fragment, to an ``id`` in that file. A configuration Zensical cannot build from fails and names
what to add.

The site has no torch: ``import torch`` fails in the builds and in the proofs (a package that
raises ImportError comes first on their path). The proofs run once; each build then reads their
records, which name no torch.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

HELLO = '''"""Counting letters.

Counts the letters of one word, in plain Python.
"""
import json

word = "tensor"
print(f"{word} has {len(word)} letters")
print("COUNT=" + json.dumps({"letters": len(word)}))
'''

OTHER = '''"""Counting again.

Another word, shown on another page.
"""
import json

print("graph has 5 letters")
print("COUNT=" + json.dumps({"letters": 5}))
'''

PAGES = {
    # The home page holds a card, quotes another page's card and links every other page.
    "index.md": """# Home

The word has {{ hello.COUNT.letters }} letters, the other {{ other.COUNT.letters }}.

```proof-output
proof: other
grep: "letters"
```

```proof
hello
```

See [a page](page.md), [a deeper one](sub/deep.md), [a folder](sub/index.md) and [every proof](all.md).
""",
    # A page beside the home page: its links to the home page's card must not read as its own.
    "page.md": """# A page

The word has {{ hello.COUNT.letters }} letters.

```proof-output
proof: hello
grep: "letters"
```

```claim
proof: hello
check: COUNT.letters == 6
```

```proof
other
```
""",
    "sub/deep.md": """# Deeper

The word has {{ hello.COUNT.letters }} letters, the other {{ other.COUNT.letters }}.

```proof-output
proof: hello
grep: "letters"
```

```proof-output
proof: other
grep: "letters"
```
""",
    "sub/index.md": """# A folder

```claim
proof: hello
check: COUNT.letters > 5
```

The other word has {{ other.COUNT.letters }} letters.
""",
    "all.md": """# Every proof

```proofs-index
```
""",
}


# -- the README's configuration ----------------------------------------------------------------
def readme_config() -> str:
    """The first ```yaml block of the README's section for another site: the adopter's mkdocs.yml."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Using the package in another site", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"^```yaml\n(.*?)^```", section, re.M | re.S)
    assert found, "README's 'Using the package in another site' has no ```yaml block"
    return found.group(1)


class _Tolerant(yaml.SafeLoader):
    pass


_Tolerant.add_multi_constructor("", lambda loader, suffix, node: None)


def without_line(config: str, pattern: str) -> str:
    """The configuration less its lines that match ``pattern`` (comments aside)."""
    kept = [line for line in config.splitlines(keepends=True)
            if not re.fullmatch(pattern, line.split(" #", 1)[0].strip())]
    assert len(kept) < len(config.splitlines()), f"the README's config has no line {pattern!r}"
    return "".join(kept)


# -- a site and its builds ---------------------------------------------------------------------
class Site:
    def __init__(self, root: Path, config: str, tools: Path):
        self.root = root
        (root / "proofs").mkdir(parents=True)
        (root / "mkdocs.yml").write_text(config)
        for name, text in PAGES.items():
            (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "docs" / name).write_text(text)
        (root / "proofs" / "hello.py").write_text(HELLO)
        (root / "proofs" / "other.py").write_text(OTHER)
        fake = tools / "no-torch"  # first on the path of the builds and the proofs: no torch at all
        if not fake.exists():
            (fake / "torch").mkdir(parents=True)
            (fake / "torch" / "__init__.py").write_text(
                "raise ImportError('no torch here: an adopter site without torch (the test stands it in)')\n")
            python = tools / "python"
            python.write_text(f'#!/bin/sh\nPYTHONPATH={fake} exec {sys.executable} "$@"\n')
            python.chmod(0o755)
        path = os.pathsep.join(p for p in (str(fake), str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        self.env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=path, LDR_PYTHON=str(tools / "python"))
        self.env.pop("LDR_CACHE_DIR", None)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", *args], cwd=self.root, capture_output=True, text=True,
                              env=self.env, timeout=300, stdin=subprocess.DEVNULL)

    def build(self, generator: str) -> Path:
        if generator == "mkdocs":
            done = self.run("mkdocs", "build", "--strict", "-d", "site")
        else:
            done = self.run("zensical", "build", "--strict")
        assert done.returncode == 0, f"{generator} build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return self.root / "site"


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> Path:
    """A site whose proofs have run once: each test copies it (records included)."""
    base = tmp_path_factory.mktemp("adopter")
    site = Site(base / "site-src", readme_config(), base)
    ran = site.run("build_hooks", "run")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    records = sorted((site.root / "proofs" / "_results").glob("*.json"))
    assert [p.name for p in records] == ["hello.cpu.json", "other.cpu.json"]
    for record in records:  # plain-Python proofs: their records carry no torch
        assert "torch" not in json.loads(record.read_text()), record.name
    return site.root


def copy_site(measured: Path, target: Path, config: str) -> Site:
    site = Site(target, config, measured.parent)
    shutil.copytree(measured / "proofs" / "_results", target / "proofs" / "_results")
    return site


# -- reading the built site -------------------------------------------------------------------
class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.cards: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"])
        if tag == "a" and found.get("name"):
            self.ids.add(found["name"])
        self.links += [found[name] for name in ("href", "src") if found.get(name)]
        if found.get("data-card"):
            self.cards.append(found["data-card"])

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> Links:
    parsed = Links()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def broken_links(site: Path, directory_urls: bool) -> tuple[list[str], int]:
    """Every in-site link of every page that names no file, or a fragment its target lacks; and how
    many links to a card (``#proof-...``) were checked."""
    parsed: dict[Path, Links] = {}

    def read(path: Path) -> Links:
        if path not in parsed:
            parsed[path] = parse(path)
        return parsed[path]

    broken, cards = [], 0
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        if name.startswith(("assets/", "search/")) or name == "404.html":
            continue  # the generator's own
        here = posixpath.dirname(name)
        found = read(page)
        # data-card is from the site's root (README, inline values), or this page's "#..."
        checks = [(link, here) for link in found.links] + [
            (card, here if card.startswith("#") else "") for card in found.cards]
        for link, base in checks:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("data:"):
                continue
            cards += parts.fragment.startswith("proof-")
            target = page
            if parts.path:
                target = site / posixpath.normpath(posixpath.join(base, unquote(parts.path)))
                if target.is_dir():
                    if not directory_urls:  # such a site is read from files: a folder is no page
                        broken.append(f"{name}: {link} names a folder")
                        continue
                    target = target / "index.html"
                if not target.is_file():
                    broken.append(f"{name}: {link} names no file")
                    continue
            if parts.fragment and target.suffix == ".html" and parts.fragment not in read(target).ids:
                broken.append(f"{name}: {link}: {target.relative_to(site).as_posix()} has no "
                              f"id {parts.fragment!r}")
    return broken, cards


def page_file(site: Path, source: str, directory_urls: bool) -> Path:
    stem = source.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return site / stem.removesuffix("index") / "index.html"
    return site / (f"{stem}/index.html" if directory_urls else f"{stem}.html")


# -- the tests ------------------------------------------------------------------------------------
@pytest.mark.parametrize("directory_urls", [True, False], ids=["directory-urls", "file-urls"])
@pytest.mark.parametrize("generator", ["mkdocs", "zensical"])
def test_every_link_to_a_card_resolves(measured, tmp_path, generator, directory_urls):
    config = readme_config() + ("" if directory_urls else "use_directory_urls: false\n")
    site = copy_site(measured, tmp_path / "site-src", config).build(generator)
    # The pages are rendered: the home page's card, values and excerpts, no directive left as code.
    for source in PAGES:
        page = page_file(site, source, directory_urls)
        text = "".join(parse(page).text)
        assert "{{" not in text and "```" not in text, f"{generator}: {source} was not rendered"
    home = page_file(site, "index.md", directory_urls).read_text()
    assert 'id="proof-hello"' in home and "needs nothing but Python" in home and "torch 2." not in home
    assert 'class="ldr-value"' in page_file(site, "page.md", directory_urls).read_text()
    assert (site / "proofs" / "hello.py.html").is_file() and (site / "proofs" / "hello.py").is_file()
    broken, cards = broken_links(site, directory_urls)
    assert not broken, f"{generator}, use_directory_urls: {directory_urls}:\n" + "\n".join(broken)
    assert cards >= 15  # values, excerpts, claims, the index and the source pages' links back


def test_the_link_checker_sees_a_link_to_a_missing_anchor(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text('<h2 id="x">x</h2>')
    (tmp_path / "a" / "index.html").write_text('<a href="#x">same page</a><a href="../#x">home</a>'
                                              '<span data-card="./#x"></span><span data-card="#y"></span>')
    broken, cards = broken_links(tmp_path, True)
    assert broken == ["a/index.html: #x: a/index.html has no id 'x'",
                      "a/index.html: #y: a/index.html has no id 'y'"] and cards == 0
    broken, _ = broken_links(tmp_path, False)
    assert "a/index.html: ../#x names a folder" in broken


@pytest.mark.parametrize("missing,fix", [
    (r"watch: .*", "watch: !!python/object/apply:build_hooks.hosts.zensical.site.prepare []"),
    (r"- ldr", "- ldr"),
], ids=["no-watch-call", "no-extension"])
def test_zensical_names_what_the_config_lacks(measured, tmp_path, missing, fix):
    """Zensical runs no MkDocs plugin: a configuration that gives it half of what it needs
    fails, naming the file and the line to add, instead of building pages with code blocks."""
    site = copy_site(measured, tmp_path / "site-src", without_line(readme_config(), missing))
    done = site.run("zensical", "build")
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert str(site.root / "mkdocs.yml") in said and fix in said, said


@pytest.mark.parametrize("listed", [
    "  - pymdownx.superfences\n  - ldr\n",  # superfences is built before the extension runs
    "  - ldr\n  - pymdownx.superfences:\n      custom_fences:\n        - {name: text, class: text}\n",
], ids=["superfences-first", "superfences-after-with-fences-of-its-own"])
def test_zensical_gets_the_fences_wherever_superfences_is_listed(measured, tmp_path, listed):
    config = re.sub(r"^markdown_extensions:\n(  .*\n)+", "markdown_extensions:\n" + listed,
                    readme_config(), flags=re.M)
    assert listed in config
    site = copy_site(measured, tmp_path / "site-src", config)
    (site.root / "docs" / "page.md").write_text(PAGES["page.md"] + "\n```text\nplain\n```\n")
    built = site.build("zensical")
    for source in PAGES:  # the first page rendered, whichever it is, and the later ones
        page = page_file(built, source, True)
        assert "```" not in "".join(parse(page).text) and 'class="ldr-' in page.read_text(), source
    if "name: text" in listed:  # the site's own fence is kept
        assert '<pre class="text">' in page_file(built, "page.md", True).read_text()
