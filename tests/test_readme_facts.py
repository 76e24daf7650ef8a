"""What README.md states about this repository holds: its inline-value examples have the form a
page accepts, the torch versions it gives as the pin's are the pin, it names no
machine's own paths, and no list says the same thing twice."""

from __future__ import annotations

import re
from pathlib import Path

from build_hooks.pages.locate import VALUE
from build_hooks.proofs.pin import pinned_torch

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def line_of(match: re.Match) -> int:
    return README.count("\n", 0, match.start()) + 1


def test_every_inline_value_example_has_the_form_a_page_accepts():
    """Each ``{{ ... }}`` example parses as the build parses an inline value (proof first, then
    its data path, an optional device and format), so copying it into a page works. Whether the
    example's proof exists is not asked: the series' content may change; the form may not."""
    examples = list(re.finditer(r"\{\{[^}]*\}\}", README))
    assert len(examples) >= 4
    for example in examples:
        where = f"README.md:{line_of(example)}: {example[0]}"
        value = VALUE.fullmatch(example[0])
        assert value, f"{where} is not the form a page's inline value takes"
        assert value["proof"] != "proof", f"{where}: a placeholder where a proof's name belongs"


def test_the_versions_given_as_the_pins_are_the_pin():
    pin = pinned_torch(REPO)
    stated = [(m, m["version"]) for m in re.finditer(r"`\{\{ torch\.version \}\}` gives `(?P<version>[^`]+)`", README)]
    stated += [(m, m["tag"][1:]) for m in re.finditer(r"`\{\{ torch\.tag \}\}`\s+gives `(?P<tag>[^`]+)`", README)]
    stated += [(m, m["version"]) for m in re.finditer(r"pin is (?P<version>\d+\.\d+\.\d+)", README)]
    stated += [(m, m["version"]) for m in re.finditer(r"blob/v(?P<version>[\d.]+)/aten", README)]
    assert len(stated) >= 4
    for match, version in stated:
        assert version == pin, f"README.md:{line_of(match)}: {match[0]!r} gives {version}, the pin is {pin}"


def test_no_machine_path_is_given_as_the_way_to_do_something():
    for pattern in (r"/work/", r"/home/\w", r"/Users/\w", r"[A-Z]:\\\\"):
        found = re.search(pattern, README)
        assert not found, f"README.md:{line_of(found)}: a path of one machine ({found[0]}); say it in general"


def test_no_list_says_the_same_thing_twice():
    bullets = [(i, line[:30]) for i, line in enumerate(README.splitlines(), 1) if line.startswith("- `")]
    seen: dict[str, int] = {}
    for number, head in bullets:
        assert head not in seen, f"README.md:{number} repeats the bullet of line {seen[head]}: {head}..."
        seen[head] = number


def test_serving_for_another_machine_is_explained():
    assert "mkdocs serve -a 0.0.0.0:8000" in README
