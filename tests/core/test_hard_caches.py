"""Caches are hints, never truth (issue 16): whatever lies under ``.cache/`` (garbage, a torn
write, flipped bytes, content of another type, a FIFO, a symlink to /dev/zero or out of the
folder, a folder) a build's pages are byte-identical to a clean build's, it exits 0 and prints
no traceback, and it never hangs. Real ``mkdocs build`` processes on a tmp site with two proofs
that have records, an inline value, an excerpt and a drawing; seeded, a few rounds in which
every cache file is damaged at once."""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from build_hooks.core import cache

REPO = Path(__file__).resolve().parents[2]
SEED = 16
BUILD_TIMEOUT = 60  # a hang on a FIFO is a failure, not a stuck test run

MKDOCS_YML = """\
site_name: Test
theme:
  name: material
  font: false
plugins:
  - ldr:
      run: !ENV [LDR_RUN, true]
markdown_extensions:
  - attr_list
  - pymdownx.superfences
"""

PAGE = """\
# Caches

The cost is {{ cost.DATA.us | .2f }} us.

```proof
cost
```

```proof-output
proof: other
grep: "second"
```

```figure
src: bits.excalidraw
caption: The bits of a float.
```
"""

PAGE_TWO = """\
# Another

```proof
other
```
"""


def mkdocs_build(root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, LDR_RUN="false", NO_MKDOCS_2_WARNING="1")
    try:
        return subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site"], cwd=root,
                              capture_output=True, text=True, env=env, timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the build hung on a damaged cache (over {BUILD_TIMEOUT} s): {exc.stderr!r}")


def site_files(root: Path) -> dict[str, bytes]:
    """Every file of the built site (the gzipped sitemap holds the time it was written)."""
    site = root / "site"
    return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted(site.rglob("*"))
            if path.is_file() and path.name != "sitemap.xml.gz"}


def cache_files(root: Path) -> list[Path]:
    """Every entry under .cache/ that is not a folder: regular files, FIFOs and symlinks alike."""
    out = []
    for folder, dirs, files in os.walk(root / ".cache"):
        out += [Path(folder) / name for name in files]
        out += [Path(folder) / name for name in dirs if os.path.islink(Path(folder) / name)]
    return sorted(out)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A site built once with its proofs run, then the clean build every round is compared with."""
    root = tmp_path_factory.mktemp("hard-caches")
    pin = next(line for line in (REPO / "pyproject.toml").read_text().splitlines()
               if line.strip().startswith('"torch=='))
    (root / "pyproject.toml").write_text(f'[project]\nname = "t"\nversion = "0"\ndependencies = [\n    {pin}\n]\n')
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "proofs").mkdir()
    (root / "proofs" / "cost.py").write_text(
        '"""What one op costs.\n\nIt costs little."""\nimport json\nprint("0.5 us per op")\n'
        'print("DATA=" + json.dumps({"us": 0.512}))\n')
    (root / "proofs" / "other.py").write_text('"""Another.\n\nTwo lines."""\nprint("first")\nprint("second")\n')
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text(PAGE)
    (root / "docs" / "two.md").write_text(PAGE_TWO)
    (root / "drawings").mkdir()
    shutil.copy(REPO / "drawings" / "part1-float-bits.excalidraw", root / "drawings" / "bits.excalidraw")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    first = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "site"], cwd=root,
                           capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == 0, first.stderr
    assert sorted(p.name for p in (root / "proofs" / "_results").glob("*.json")) == ["cost.cpu.json", "other.cpu.json"]
    again = mkdocs_build(root)  # with every cache filled
    assert again.returncode == 0, again.stderr
    built = site_files(root)
    page = built["index.html"].decode()
    assert ">0.51<" in page and "0.5 us per op" in page and "second" in page and "<svg" in page
    kinds = {path.relative_to(root / ".cache" / "ldr").parts[0] for path in cache_files(root)}
    assert {"templates", "highlight", "drawings", "notebook"} <= kinds, kinds
    return root, built


def garbage(rng: random.Random, data: bytes) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2 * len(data) + 8)))


def truncated(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data))] if data else b""


def flipped(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data or b"\0")
    for _ in range(rng.randrange(1, 8)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def other_type(rng: random.Random, data: bytes) -> bytes:
    """What the entry holds, as another JSON type (or another cache's form of it)."""
    return rng.choice([b"[]", b"{}", b"0", b"null", b'"<svg></svg>"', b'[["proof", 1, "x"]]',
                       b'{"title": 5, "imports": 7}', b"<svg>forged</svg>", b"}\n"])


def fifo(path: Path) -> None:
    os.mkfifo(path)


def to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def outside(path: Path) -> None:
    path.symlink_to(REPO / "README.md")  # a regular file, but outside the cache's folder


def folder(path: Path) -> None:
    path.mkdir()


CONTENT = {"garbage": garbage, "truncated": truncated, "flipped": flipped, "other-type": other_type}
TYPES = {"fifo": fifo, "dev-zero": to_dev_zero, "outside": outside, "folder": folder}


def damage(path: Path, kind: str, rng: random.Random) -> None:
    try:
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
    except OSError:
        data = b""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    if kind in CONTENT:
        path.write_bytes(CONTENT[kind](rng, data))
    else:
        TYPES[kind](path)


@pytest.mark.parametrize("kind", ["truncated", "garbage", "flipped", "other-type", "fifo", "dev-zero",
                                  "outside", "folder", "mixed"])
def test_a_damaged_cache_leaves_every_built_file_as_a_clean_build_makes_it(clean, kind):
    root, built = clean
    rng = random.Random(f"{SEED}-{kind}")
    entries = [p for p in cache_files(root) if p.name != "store.lock"]  # a lock, not a cache
    assert len(entries) > 30
    for path in entries:
        damage(path, rng.choice([*CONTENT, *TYPES]) if kind == "mixed" else kind, rng)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    rebuilt = site_files(root)
    assert sorted(rebuilt) == sorted(built)
    differ = [name for name in built if rebuilt[name] != built[name]]
    assert differ == [], f"{kind}: these built files differ from a clean build's: {differ[:8]}"
    # What the build read is written over with a good entry: the caches heal.
    healed = [p for p in cache_files(root) if stat.S_ISREG(os.lstat(p).st_mode)]
    assert len(healed) > 20


def test_a_cache_folder_that_cannot_be_written_still_builds(clean):
    root, built = clean
    shutil.rmtree(root / ".cache")
    (root / ".cache").write_text("a file where the cache folder was: nothing can be written under it")
    try:
        done = mkdocs_build(root)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        rebuilt = site_files(root)
        assert [name for name in built if rebuilt.get(name) != built[name]] == []
    finally:
        (root / ".cache").unlink()


# -- the text cache itself ------------------------------------------------------------------
def test_an_entry_that_is_not_a_regular_file_in_the_folder_is_a_miss(tmp_path):
    store = cache.TextCache(tmp_path / "c", ".txt")
    store.write("k", "value")
    cache.clear_memory()
    assert store.get("k") == "value"
    for make in (fifo, to_dev_zero, outside, folder):
        path = store.path("k")
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        make(path)
        cache.clear_memory()
        assert store.get("k") is None, make.__name__  # a FIFO: at once, not after a writer came
        store.put("k", "again")  # written over: it takes the FIFO, symlink or empty folder's place
        assert stat.S_ISREG(os.lstat(path).st_mode)
        cache.clear_memory()
        assert store.get("k") == "again"
    path.unlink()
    (path / "inside").mkdir(parents=True)  # a folder that is not empty: left alone, and no error
    store.put("k", "kept in memory only")
    assert path.is_dir() and store.get("k") == "kept in memory only"


def test_an_entry_is_checked_against_its_seal_and_its_name(tmp_path):
    store = cache.TextCache(tmp_path / "c", ".json", valid=lambda text: isinstance(json.loads(text), list))
    store.write("a", "[1, 2]")
    store.write("b", "[3]")
    path_a, path_b = store.path("a"), store.path("b")
    cache.clear_memory()
    assert store.get("a") == "[1, 2]"
    sealed = path_a.read_bytes()
    for data in (sealed[:-1], sealed.replace(b"[1, 2]", b"[1, 3]"), b"[1, 2]", b"", sealed[:5]):
        path_a.write_bytes(data)
        cache.clear_memory()
        assert store.get("a") is None, data
    shutil.copy(path_b, path_a)  # another key's entry: sealed under its own name
    cache.clear_memory()
    assert store.get("a") is None
    path_a.write_bytes(cache.pack(store.name("a"), '{"a": 1}'))  # sealed, but not what the cache holds
    cache.clear_memory()
    assert store.get("a") is None
    path_a.write_bytes(cache.pack(store.name("a"), "[["))  # and the check itself fails: a miss
    cache.clear_memory()
    assert store.get("a") is None


def test_an_entry_names_this_package_code(tmp_path, monkeypatch):
    store = cache.TextCache(tmp_path / "c", ".txt")
    store.write("k", "made by this code")
    cache.clear_memory()
    monkeypatch.setattr(cache, "package_digest", lambda: "another version of the package")
    assert store.get("k") is None


def test_a_torn_or_foreign_compiled_template_is_compiled_again(tmp_path):
    """jinja's checks, and ours around them: every damaged form reads as a miss, not an error,
    and nothing but compiled code is ever run."""
    import io
    import marshal
    import pickle

    import jinja2
    from jinja2.bccache import bc_magic

    from build_hooks.site.templates import attach

    loader = jinja2.DictLoader({"page.html": "{% for i in range(3) %}<b>{{ i }}</b>{% endfor %}"})

    def render() -> str:
        env = attach(jinja2.Environment(loader=loader), tmp_path)
        return env.get_template("page.html").render()

    good = render()
    [entry] = (tmp_path / ".cache" / "ldr" / "templates").rglob("*.cache")
    sealed = entry.read_bytes()
    body = sealed.partition(b"\n")[2]
    assert body.startswith(bc_magic)
    checksum = pickle.load(io.BytesIO(body[len(bc_magic):]))
    rng = random.Random(SEED)
    damaged = [sealed[:12], sealed[:len(sealed) // 2], b"", flipped(rng, sealed), garbage(rng, sealed), body]
    # Sealed as the cache seals, so that only jinja's own load stands between them and the page:
    forged = [bc_magic + b"\x80\x02garbage",                                    # a pickle that does not load
              bc_magic + pickle.dumps(checksum, 2) + b"\xff",                    # code that does not load
              bc_magic + pickle.dumps(checksum, 2) + marshal.dumps("raise SystemExit('ran a forged string')")]
    for data in [*damaged, *(cache.seal(entry.name, item) for item in forged)]:
        entry.write_bytes(data)
        assert render() == good
        assert entry.read_bytes() == sealed  # rewritten whole
    for make in (fifo, to_dev_zero, outside):
        entry.unlink()
        make(entry)
        assert render() == good
        assert entry.read_bytes() == sealed and not entry.is_symlink()


def test_the_code_an_entry_names_includes_the_templates(tmp_path, monkeypatch):
    # an edited jinja template (render/templates/*.html) made a warm build replay the markup the
    # old one had rendered (the directive memo is one of these caches)
    template = tmp_path / "build_hooks" / "render" / "templates" / "x.html"
    template.parent.mkdir(parents=True)
    template.write_text("<p>{{ a }}</p>")
    monkeypatch.setattr(cache, "PACKAGE", tmp_path / "build_hooks")
    cache.package_digest.cache_clear()
    try:
        before = cache.package_digest()
        template.write_text("<p class='new'>{{ a }}</p>")
        cache.package_digest.cache_clear()
        assert cache.package_digest() != before
    finally:
        cache.package_digest.cache_clear()
