"""The caches that keep a fresh build from redoing work (bench/bench_scale.py measures them)."""

import pytest

from build_hooks.adapters import markdown as ext
from build_hooks.core import cache
from build_hooks.core.defer import defer, restore

PAGE = """# A page

The value is {{ p.DATA.x | .2f }} here.

```proof-output
proof: p
grep: "x"
```

```python
# a code block, not a directive
```
"""


def test_a_page_is_located_once_then_read_back_from_the_project_cache(tmp_path, monkeypatch):
    disk = cache.TextCache(tmp_path / "locate", ".json")
    monkeypatch.setattr(ext, "_LOCATE_DISK", [disk])
    ext._LOCATED.clear()
    first = ext.located(PAGE)
    assert [(s.kind, s.line) for s in first] == [("value", 3), ("proof-output", 5)]
    assert len(list((tmp_path / "locate").glob("*.json"))) == 1
    # A new process: nothing in memory; the parser must not run again for the same text.
    ext._LOCATED.clear()
    cache.clear_memory()
    monkeypatch.setattr(ext, "locate", lambda *a: pytest.fail("located again"))
    assert ext.located(PAGE) == first
    # A torn entry is a miss, not an error.
    for path in (tmp_path / "locate").glob("*.json"):
        path.write_text("[[")
    ext._LOCATED.clear()
    cache.clear_memory()
    monkeypatch.undo()
    monkeypatch.setattr(ext, "_LOCATE_DISK", [disk])
    assert ext.located(PAGE) == first


def test_card_names_and_fence_options_survive_the_memo():
    text = "```proof\nalpha\n```\n\n```proof\nbeta\n```\n"
    assert ext.card_names(text) == ["alpha", "beta"]
    options = ext.parse_options("proof: p\ngrep: [a, b]\n", "proof-output")
    options["grep"].append("changed by a handler")
    assert ext.parse_options("proof: p\ngrep: [a, b]\n", "proof-output") == {"proof": "p", "grep": ["a", "b"]}


def test_restore_puts_every_deferred_block_back_once_in_one_pass():
    svg = "<svg>" + "x" * 2000 + "</svg>"
    html, stash = defer(f"<p>a</p>{svg}<p>b</p>{svg.replace('x', 'y')}")
    assert len(stash) == 2 and "<svg>" not in html
    assert restore(html, stash) == f"<p>a</p>{svg}<p>b</p>{svg.replace('x', 'y')}"
    assert restore("<p>no tokens</p>", stash) == "<p>no tokens</p>"


def test_page_sized_text_still_shows_control_characters_and_ids_need_whitespace():
    from build_hooks.render.safe import visible

    long = "a" * 5000
    assert visible(long + "\x1b[31m" + long) == long + "\u241b[31m" + long
    assert visible(long + "\x85") == long + "\\x85"
    assert visible(long) is long
    assert ext.ids('<p id="a"><x data-id="b"></x><svg\nid="c">') == ["a", "c"]
