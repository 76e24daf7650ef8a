"""What a page quotes from which proof: cards, excerpts, inline values, claims, instruments.

Found with :func:`build_hooks.pages.locate.locate` (so fences inside code blocks and values in
code spans do not count), from a page's Markdown as written (lines count from the top of the
file, front matter included). A fence body that is not valid YAML is skipped here: the page's
own build reports it. Pure: text in, :class:`Quote` list out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import yaml

from build_hooks.core import yamlbody
from build_hooks.pages.locate import VALUE, VALUE_KIND, locate

KINDS = ("proof", "proof-output", "claim", "instrument")
KIND_NAMES = {"proof": "card", "proof-output": "excerpt", "claim": "claim",
              "instrument": "instrument", VALUE_KIND: "value"}
FRONT_TITLE = re.compile(r"^---\n(?:.*\n)*?title:\s*(?P<title>.+)\n(?:.*\n)*?---\n")
ATTR_LIST = re.compile(r"\s*\{[^}]*\}\s*$")  # `# Title { #id }`


@dataclass(frozen=True)
class Quote:
    line: int
    proof: str
    kind: str  # card | excerpt | value | claim | instrument
    detail: str  # what is quoted: a key, a selector, a claim's words, an instrument's name


def _options(body: str) -> dict:
    try:
        parsed = yamlbody.load(body) if body.strip() else None
    except yaml.YAMLError:
        return {}
    if isinstance(parsed, dict):
        return parsed
    if isinstance(parsed, (str, int, float)):
        return {"arg": str(parsed).strip()}
    return {}


def _selector(options: dict) -> str:
    parts = []
    for key in ("grep", "from", "to", "lines"):
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, list):
            shown = " or ".join(f'"{item}"' for item in value)
        else:
            shown = f"{value}" if key == "lines" else f'"{value}"'
        parts.append(f"{key} {shown}")
    return " ".join(parts) or "output"


def values(text: str) -> list[tuple[int, re.Match]]:
    """Every inline value on a page, as (line, its match of ``VALUE``), in document order;
    values in code spans and code blocks are not values and are left out."""
    return [(spot.line, match) for spot in locate(text, (), VALUE)
            if spot.kind == VALUE_KIND and (match := VALUE.fullmatch(spot.text))]


def quotes(text: str, instrument_proofs: dict[str, str] | None = None) -> list[Quote]:
    """Every quote of a proof on a page, in document order. ``instrument_proofs`` maps an
    instrument's name to the proof it reads when the fence names none."""
    out = []
    for spot in locate(text, KINDS, VALUE):
        if spot.kind == VALUE_KIND:
            match = VALUE.fullmatch(spot.text)
            if match:
                device = f"@{match.group('device')}" if match.group("device") else ""
                out.append(Quote(spot.line, match.group("proof"), "value", f"{match.group('key')}{device}"))
            continue
        options = _options(spot.text)
        if spot.kind == "proof":
            name, detail = options.get("arg") or options.get("name"), "card"
        elif spot.kind == "proof-output":
            name, detail = options.get("proof") or options.get("arg"), _selector(options)
        elif spot.kind == "claim":
            name = options.get("proof")
            detail = str(options.get("say") or options.get("check") or "")
        else:
            instrument = str(options.get("name") or options.get("arg") or "")
            name = options.get("proof") or (instrument_proofs or {}).get(instrument)
            detail = instrument
        if isinstance(name, str) and name.strip():
            out.append(Quote(spot.line, name.strip(), KIND_NAMES[spot.kind], detail))
    return out


@lru_cache(maxsize=256)
def page_title(text: str, source: str) -> str:
    """A page's title for a list of links: its front matter ``title``, its first ``#``
    heading, or its file name (once per page text and path in a process)."""
    front = FRONT_TITLE.match(text)
    if front:
        return front.group("title").strip().strip("\"'")
    tokens = _commonmark().parse(text)  # a `# comment` in a code block is no heading
    for index, token in enumerate(tokens[:-1]):
        if token.type == "heading_open" and token.tag == "h1":
            title = ATTR_LIST.sub("", tokens[index + 1].content).replace("`", "").strip()
            if title:
                return title
    stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem.replace("-", " ").replace("_", " ").capitalize()


@lru_cache(maxsize=1)
def _commonmark():
    from markdown_it import MarkdownIt  # here: a warm build that locates no page again never needs it

    return MarkdownIt("commonmark")
