"""Where a page's directives are: the line of every ldr fence and every inline value.

Python-Markdown does not tell an extension which source line it is rendering, and the same
directive text can occur several times on a page, so searching the text for it gives the first
occurrence, not the one that failed. Instead the page is parsed once with markdown-it-py, whose
tokens carry line ranges, before any other preprocessor runs:

* a fence token whose language is a directive gives that fence's first line and its body;
* an inline token (a paragraph, a heading, a table cell) gives the first line of its text; a
  value's line is that plus the newlines before it; values in code spans or escaped with a
  backslash are skipped, as Python-Markdown skips them.

Containers that CommonMark does not know (admonitions ``!!!``, details ``???``, tabs ``===``)
indent their content by four spaces, which CommonMark would read as a code block; their
content is shifted left first, keeping every line where it was. :class:`Locations` hands the
lines out as the renderers ask for them, matching fences by kind and body, values by text, in
order of occurrence. Pure functions: nothing here knows MkDocs or Python-Markdown.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

VALUE_KIND = "value"
# An inline value, `{{ proof[@device].KEY.path | format }}`, as the page spells it.
VALUE = re.compile(
    r"\{\{\s*(?P<proof>[a-z][a-z0-9_]*)(?:@(?P<device>cpu|cuda|mps))?\.(?P<key>[A-Za-z0-9_.\-]+)"
    r"\s*(?:\|\s*(?P<fmt>[^}|]*?))?\s*\}\}"
)
CONTAINER = re.compile(r"^(?:!!!|\?\?\?\+?|===)(?:\s|$)")
FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})")
BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class Spot:
    kind: str
    """A fence's language (``proof``, ``figure``...) or ``"value"``."""
    line: int
    """1-based line in the text that was located."""
    text: str
    """A fence's body, or a value exactly as written."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def unfold_containers(lines: list[str]) -> list[str]:
    """Blank out container markers and shift their content left; the line count is kept."""
    out: list[str] = []
    columns: list[int] = []  # content column of each open container, innermost last
    fence: str | None = None
    for raw in lines:
        line = raw.expandtabs(4)
        if not line.strip():
            out.append("")
            continue
        while columns and _indent(line) < columns[-1]:
            columns.pop()
        shifted = line[columns[-1]:] if columns else line
        body = shifted.lstrip(" ")
        if fence is not None:
            if body.startswith(fence) and not body[len(fence):].strip(fence[0]).strip():
                fence = None
            out.append(shifted)
            continue
        opened = FENCE_OPEN.match(body)
        if opened:
            fence = opened.group(1)
            out.append(shifted)
        elif CONTAINER.match(body):
            columns.append(_indent(line) + 4)
            out.append("")
        else:
            out.append(shifted)
    return out


def code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every code span, by CommonMark's backtick-run rule."""
    spans: list[tuple[int, int]] = []
    if "`" not in text:
        return spans
    runs = [(m.start(), m.end()) for m in BACKTICKS.finditer(text) if not _escaped(text, m.start())]
    by_length: dict[int, list[int]] = {}  # run length -> indexes of the runs of that length
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    i = 0
    while i < len(runs):
        start, end = runs[i]
        same = by_length[end - start]
        at = bisect_right(same, i)  # the next run as long as this one closes it
        if at < len(same):
            closer = same[at]
            spans.append((start, runs[closer][1]))
            i = closer
        i += 1
    return spans


def _escaped(text: str, pos: int) -> bool:
    slashes = 0
    while pos - slashes - 1 >= 0 and text[pos - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1


def _language(info: str) -> str:
    word = info.strip().split(None, 1)[0] if info.strip() else ""
    if word.startswith("{"):  # ```{.proof} or ``` { .proof }
        classes = re.findall(r"\.([\w-]+)", info)
        return classes[0] if classes else ""
    return word


@lru_cache(maxsize=2)
def markdown_parser(inline: bool = False):
    """One parser for every page (building one costs more than parsing a short page). The
    pages' parser stops at blocks: an inline token keeps its text and lines, which is all that
    locating values needs, and parsing inside paragraphs was half of the time; headings' titles
    are parsed inline on their own (:func:`sections`)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    return parser if inline else parser.disable("inline")


@lru_cache(maxsize=256)
def block_tokens(source: str) -> tuple:
    """markdown-it's tokens of ``source``, parsed once per distinct text in this process: the
    page's own render, the corrections note, the proofs index, the exercises, drift and the
    claims on quotes all read the same pages (a build of the series parsed each page about eight
    times before; bench/bench_site.py). Treat the tokens as read-only."""
    return tuple(markdown_parser().parse(source))


def _page_tokens(text: str) -> tuple:
    """The page's tokens, its containers unfolded. Not kept: :func:`page_spots` keeps what they
    hold, by the text's digest, for this process and (the spot book) for the next build."""
    return block_tokens("\n".join(unfold_containers(text.split("\n"))))


Found = tuple[tuple[bool, Spot], ...]
"""A page's every fenced block (any language) and inline value, in document order, each
marked True for a value."""

_BOOK: dict[str, Found] = {}
"""What :func:`page_spots` found, by the text's digest (:func:`text_digest`): this process's,
and those a host recalled from an earlier build (:func:`recall`; pages/spotbook.py)."""
_LOOKED: set[str] = set()  # the digests asked for since the last recall


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def recall(book: dict[str, Found]) -> None:
    """Take ``book`` (digest -> found) as what earlier builds found; start counting anew what
    this one asks for (:func:`looked`)."""
    _BOOK.clear()
    _BOOK.update(book)
    _LOOKED.clear()


def looked() -> dict[str, Found]:
    """What the texts asked for since :func:`recall` were found to hold."""
    return {digest: _BOOK[digest] for digest in _LOOKED if digest in _BOOK}


def page_spots(text: str) -> Found:
    """Every fenced block and inline value of a page: parsed once per distinct text, and not at
    all when an earlier build's book has it (a markdown-it parse of a long page takes a few
    milliseconds; its digest, a few microseconds)."""
    digest = text_digest(text)
    _LOOKED.add(digest)
    found = _BOOK.get(digest)
    if found is None:
        found = _BOOK[digest] = tuple(_find(text, None, VALUE))
    return found


def locate(text: str, fences: Iterable[str], value: re.Pattern | None = None) -> list[Spot]:
    """Every directive fence (of the given languages) and inline value, in document order."""
    kinds = set(fences)
    if value is not None and value is not VALUE:
        return [spot for _, spot in _find(text, kinds, value)]
    return [spot for is_value, spot in page_spots(text) if (is_value and value is not None)
            or (not is_value and spot.kind in kinds)]


def _find(text: str, kinds: set[str] | None, value: re.Pattern | None) -> list[tuple[bool, Spot]]:
    """The fences of ``kinds`` (None: of any language) and the matches of ``value``, parsed."""
    spots: list[tuple[bool, Spot]] = []
    for token in _page_tokens(text):
        if token.map is None:
            continue
        if token.type == "fence":
            kind = _language(token.info)
            if kinds is None or kind in kinds:
                spots.append((False, Spot(kind, token.map[0] + 1, token.content)))
        elif token.type == "inline" and value is not None and value.search(token.content):
            content = token.content
            skip = code_spans(content)
            for match in value.finditer(content):
                start = match.start()
                if _escaped(content, start) or any(a <= start < b for a, b in skip):
                    continue
                spots.append((True, Spot(VALUE_KIND, token.map[0] + 1 + content.count("\n", 0, start),
                                         match.group(0))))
    return spots


def _same(text: str, kind: str) -> str:
    if kind == VALUE_KIND:
        return " ".join(text.split())
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines())


@dataclass
class Locations:
    """A page's spots, handed out once each as the renderers reach them."""

    spots: list[Spot] = field(default_factory=list)
    taken: set[int] = field(default_factory=set)
    _normal: list[str] | None = field(default=None, repr=False, compare=False)

    def take(self, kind: str, text: str) -> Spot | None:
        """The first spot not yet taken of this kind with this text; for a fence whose body
        was not found as written, the first one of its kind not yet taken."""
        wanted = _same(text, kind)
        if self._normal is None:  # each spot's text, normalised once per page
            self._normal = [_same(spot.text, spot.kind) for spot in self.spots]
        fallback = None
        for index, spot in enumerate(self.spots):
            if index in self.taken or spot.kind != kind:
                continue
            if self._normal[index] == wanted:
                self.taken.add(index)
                return spot
            if fallback is None and kind != VALUE_KIND:
                fallback = index
        if fallback is not None:
            self.taken.add(fallback)
            return self.spots[fallback]
        return None

    def of_kind(self, kind: str) -> list[Spot]:
        return [spot for spot in self.spots if spot.kind == kind]
