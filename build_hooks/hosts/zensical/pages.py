"""The pages of a Zensical build as the MkDocs plugin sees them in ``on_files``: each page's
URL (as both generators make it), the list of pages with their Markdown, which pages hold
which proof's card, and how many lines of front matter Zensical cut off a page. Pure
functions over ``docs/``; used by site.py."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, is_regular, read_text

if TYPE_CHECKING:
    from build_hooks.directives.registry import Registry


def page_url(source: str, directory_urls: bool = True) -> str:
    """A page's URL from its path under docs/, as MkDocs and Zensical both make it."""
    stem, _, _ = source.rpartition(".")
    folder, _, name = stem.rpartition("/")
    prefix = f"{folder}/" if folder else ""
    if name in ("index", "README"):  # the folder's page: its folder, or its file without directory URLs
        return prefix if directory_urls else f"{prefix}index.html"
    return f"{prefix}{name}/" if directory_urls else f"{prefix}{name}.html"


def site_pages(docs_dir: Path, directory_urls: bool = True) -> list[tuple[str, str, str]]:
    """(source under docs/, URL, Markdown) of every page, as the plugin's on_files lists them."""
    pages = []
    for path in sorted(Path(docs_dir).rglob("*.md")):
        source = path.relative_to(docs_dir).as_posix()
        # a FIFO or a symlink out of docs/ is no page (core/safefs.py; the plugin names it)
        if not any(part.startswith(".") for part in source.split("/")) and is_regular(path, inside=docs_dir):
            try:
                text = read_text(path, inside=docs_dir)
            except UnicodeDecodeError as exc:
                raise LdrError(f"{Path(docs_dir).name}/{source}: not UTF-8 text (byte "
                               f"{exc.object[exc.start]:#04x} at offset {exc.start}); "
                               "fix: save the page as UTF-8") from None
            pages.append((source, page_url(source, directory_urls), text))
    return pages


def card_pages(pages: list[tuple[str, str, str]], fences: Registry) -> dict[str, list[tuple[str, str]]]:
    """proof -> [(page source, page URL)] of every page that shows its card (links.py)."""
    from build_hooks.hosts.markdown.fences import card_names

    cards: dict[str, list[tuple[str, str]]] = {}
    for source, url, text in pages:
        for name in card_names(text, fences):
            cards.setdefault(name, []).append((source, url))
    return cards


def front_matter_lines(source: Path, lines: list[str]) -> int:
    """How many lines Zensical cut off the top of the page (its front matter), so that errors
    name the line of the file."""
    try:
        raw = read_text(source, inside=source.parent).replace("\r\n", "\n")
    except (OSError, ValueError, UnsafeFile):
        return 0
    text = "\n".join(lines)
    if text and raw.endswith(text):
        return raw[: len(raw) - len(text)].count("\n")
    start = raw.find(text[:200]) if text else -1
    return raw[:start].count("\n") if start > 0 else 0
