"""The pin in prose: torch version values, pinned source links, and no hand-typed versions.

* ``{{ torch.version }}`` (``2.13.0``) and ``{{ torch.tag }}`` (``v2.13.0``) come from the pin in
  pyproject.toml. They are plain text, substituted everywhere in a page (code blocks and
  spans too, so ``pip install torch=={{ torch.version }}`` works).
* ``[text](pytorch:aten/src/ATen/native/native_functions.yaml)`` links to that file of
  github.com/pytorch/pytorch at the pin's tag (``blob/``); a path ending in ``/`` is a folder
  (``tree/``); ``#L10-L20`` is kept.
* A hand-typed link to a tag of the PyTorch repository is a problem anywhere on a page. So is
  a torch version typed by hand in prose (``torch 2.13.0``, ``torch==2.13``, ``PyTorch
  2.13``, the tag ``v2.13.0``): prose, code spans and the bodies of the series' directives
  are checked, fenced code blocks (``python``, ``text``...) are left alone. Releases older
  than the pin are history ("the compiler arrived with PyTorch 2.0") and pass. The rule is the
  series' own (the ``typed_versions`` option: ``error`` fails the build, ``warn`` warns, ``off``,
  the default, leaves pages alone).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from bisect import bisect_right
from itertools import accumulate

from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from build_hooks.core.errors import DirectiveError, LdrError
from build_hooks.directives.registry import Registry
from build_hooks.proofs.pin import pinned_torch, public_version

REPOSITORY = "https://github.com/pytorch/pytorch"
SCHEME = "pytorch:"
VALUE = re.compile(r"\{\{\s*torch\.([a-z_]+)\s*\}\}")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w-]*)")
_MENTION = re.compile(
    r"(?<![\w.])((?:py|lib)?torch)(\s*(?:==|>=|<=|~=|!=|=|@|>|<)\s*|\s+v?|-v?)(\d+)\.(\d+)((?:\.\d+)?(?:\+\w+)?)",
    re.I)
_TAG = re.compile(r"(?<![\w./@-])v(\d+)\.(\d+)\.(\d+)\b")
_TAG_HINT = re.compile(r"v\d+\.\d+\.\d")  # starts with a literal: a fast scan of a whole page
_MENTION_HINT = re.compile(r"torch(?:\s*(?:[=<>~!@]|v?\d)|-v?\d)")  # the same, in the lowered page
_URL = re.compile(r"(?:https?://)?(?:www\.)?github\.com/pytorch/pytorch/(?:blob|tree)/v\d[\w.+-]*(/[^\s)\]>\"'`]*)?")
_SAFE_PATH = re.compile(r"[A-Za-z0-9_.\-/+@]*")


def values(pin: str) -> dict[str, str]:
    version = public_version(pin)
    return {"version": version, "tag": f"v{version}"}


def source_url(pin: str, target: str) -> str:
    """``pytorch:`` target -> the URL at the pin's tag: blob for a file, tree for a folder."""
    path, _, fragment = target.partition("#")
    path = path.lstrip("/")
    parts = path.rstrip("/").split("/") if path.strip("/") else []
    if not _SAFE_PATH.fullmatch(path) or any(part in ("", ".", "..") for part in parts):
        raise DirectiveError(f"{SCHEME}{target} is not a path in the PyTorch repository; write "
                             f"{SCHEME}folder/file.ext (a folder ends with /), e.g. "
                             f"{SCHEME}aten/src/ATen/native/native_functions.yaml")
    kind = "tree" if not parts or path.endswith("/") else "blob"
    url = f"{REPOSITORY}/{kind}/{values(pin)['tag']}" + (f"/{'/'.join(parts)}" if parts else "")
    return url + (f"#{fragment}" if fragment else "")


def _release(pin: str) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", public_version(pin))
    return (int(match.group(1)), int(match.group(2))) if match else None


def _prose_lines(lines: list[str], directives: tuple[str, ...]):
    """(number, line) for every line outside fenced code; directive bodies count as prose."""
    fence: tuple[str, bool] | None = None  # (closing marker, is it prose?)
    for number, line in enumerate(lines, 1):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1).startswith(fence[0]) and not opening.group(2):
                fence = None
            elif fence[1]:
                yield number, line
        elif opening:
            fence = (opening.group(1), opening.group(2) in directives)
        else:
            yield number, line


def _tag_links(lines: list[str]) -> list[tuple[int, str]]:
    """(line, problem) for every link typed by hand to a tag of the PyTorch repository."""
    problems = []
    for number, line in enumerate(lines, 1):  # code blocks too: {{ torch.tag }} works there
        for match in _URL.finditer(line):
            path = (match.group(1) or "/").lstrip("/")
            problems.append((number, f"{match.group(0)} is a link typed by hand to a tag of the PyTorch "
                                     f"repository; write {SCHEME}{path or '<path>'} (end it with / for a "
                                     "folder), or {{ torch.tag }} in code, which follow the pin"))
    return problems


def _with_next(prose: list[tuple[int, str, str]], index: int) -> str:
    """A prose line's text, with the next line's when that follows it directly (a wrapped mention)."""
    number, _line, text = prose[index]
    following = prose[index + 1] if index + 1 < len(prose) else None
    return text + (" " + following[2].lstrip() if following and following[0] == number + 1 else "")


def _version_problems(text: str, found: list[re.Match], release: tuple[int, int]) -> list[str]:
    """The mentions starting on this line of the pin's release or a later one."""
    problems = []
    for match in found:
        if match.start() < len(text) and (int(match.group(3)), int(match.group(4))) >= release:
            name, joint = match.group(1), match.group(2)
            problems.append(f"{match.group(0)!r} is a torch version typed by hand; write "
                            f"{name}{joint}{{{{ torch.version }}}}, which follows the pin")
    return problems


def _tag_problems(text: str, found: list[re.Match], release: tuple[int, int]) -> list[str]:
    """The pin's tag typed by hand on this line, outside the version mentions already found."""
    return [f"{match.group(0)!r} is the torch tag typed by hand; write {{{{ torch.tag }}}}, which follows the pin"
            for match in _TAG.finditer(_MENTION.sub(lambda m: " " * len(m.group(0)), text) if found else text)
            if (int(match.group(1)), int(match.group(2))) == release]


def find_hand_typed(lines: list[str], pin: str | None, directives: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """(line, problem and fix) for every hand-typed torch version or tag link in a page.

    A link to a tag of the PyTorch repository is found anywhere. Versions are looked for in
    prose: ``directives`` names the fences whose bodies are prose (captions, claims); any
    other fenced block is code and left alone. A mention wrapped onto the next line is found.
    """
    release = _release(pin) if pin else None
    page = "\n".join(lines)  # whole-page checks first: most pages hold no link or version at all
    urls = "github.com/pytorch/pytorch/" in page
    lowered = page.lower()
    mentions, tags = _MENTION_HINT.search(lowered) is not None, _TAG_HINT.search(page) is not None
    problems = _tag_links(lines) if urls else []
    if release is None or not (mentions or tags):
        return problems
    prose = [(number, line, _URL.sub(lambda m: " " * len(m.group(0)), line) if urls else line)
             for number, line in _prose_lines(lines, directives)]
    # Only a line on which a hint starts can start a mention or hold a tag (a mention wrapped
    # onto the next line starts on this one): the rest of the page is not looked at again.
    starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    hinted = {bisect_right(starts, m.start()) for hint, text in ((_MENTION_HINT, lowered), (_TAG_HINT, page))
              for m in hint.finditer(text)}
    for index, (number, _line, text) in enumerate(prose):
        if number not in hinted:
            continue
        joined = _with_next(prose, index)
        found = list(_MENTION.finditer(joined)) if mentions and "torch" in joined.lower() else []
        problems += [(number, problem) for problem in _version_problems(text, found, release)]
        if tags:
            problems += [(number, problem) for problem in _tag_problems(text, found, release)]
    return problems


def substitute(line: str, pin: str) -> str:
    known = values(pin)

    def one(match: re.Match) -> str:
        if match.group(1) not in known:
            raise DirectiveError(f"unknown pin value {match.group(0)!r}; the values are "
                                 + ", ".join(f"{{{{ torch.{key} }}}}" for key in known))
        return known[match.group(1)]

    return VALUE.sub(one, line)


class PinPreprocessor(Preprocessor):
    """Reject hand-typed versions, then substitute the pin values (before anything else reads the page)."""

    def __init__(self, md, state, directives: tuple[str, ...]):
        super().__init__(md)
        self.state, self.directives = state, directives

    def pin(self) -> str | None:
        try:
            return pinned_torch(self.state.root, self.state.layout.torch)
        except LdrError:
            return None

    def run(self, lines):
        pin = self.pin()
        rule = self.state.typed_versions
        for number, problem in find_hand_typed(lines, pin, self.directives) if rule != "off" else ():
            if rule == "warn":
                self.state.warn(problem, number)
            else:
                self.state.fail(DirectiveError(problem), number)
        out = []
        for number, line in enumerate(lines, 1):
            if "{{" in line and VALUE.search(line):
                try:
                    if pin is None:
                        pinned_torch(self.state.root, self.state.layout.torch)  # raises, naming where it looked
                    line = substitute(line, pin)
                except LdrError as exc:
                    self.state.fail(exc, number)
            out.append(line)
        return out


class SourceLinks(Treeprocessor):
    """Rewrite ``<a href="pytorch:path">`` to the file at the pin's tag."""

    def __init__(self, md, state):
        super().__init__(md)
        self.state = state

    def run(self, root: etree.Element):
        for link in root.iter("a"):
            href = link.get("href", "")
            if not href.startswith(SCHEME):
                continue
            try:
                link.set("href", source_url(pinned_torch(self.state.root, self.state.layout.torch), href[len(SCHEME):]))
            except LdrError as exc:
                link.set("href", "#")
                self.state.fail(exc, self.state.find_line(href))
        return None


def register(md, state, fences: Registry) -> None:
    """Called by the ldr extension: the preprocessor runs before the fences are read. The
    bodies of the site's fences are prose (checked), except those of the directives that read
    other torch versions' records (``reads`` history: corrections, drift-report), whose bodies
    name versions on purpose."""
    prose = tuple(d.name for d in fences.directives.values() if "history" not in d.reads)
    md.preprocessors.register(PinPreprocessor(md, state, prose), "ldr_pin", 42)
    md.treeprocessors.register(SourceLinks(md, state), "ldr_source_links", 9)
