"""Every option of the ``ldr`` MkDocs plugin, typed, with its default and what it does (README,
"Plugin options", shows them in a mkdocs.yml)."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config


class LdrConfig(Config):
    python = c.Optional(c.Type(str))
    """Interpreter that runs proofs (default: this one; LDR_PYTHON overrides)."""
    mode = c.Choice(("auto", "fork", "spawn"), default="auto")
    jobs = c.Optional(c.Type(int))
    """Cores for proofs marked parallel (default: all)."""
    run = c.Type(bool, default=True)
    """Run missing or stale proofs during the build (off: only use the records)."""
    background = c.Type(bool, default=True)
    """Under `mkdocs serve`, run them in the background instead of inside the build."""
    proofs_dir = c.Type(str, default="proofs")
    """The proof scripts' folder, relative to mkdocs.yml (published at proofs/ whatever its name)."""
    drawings_dir = c.Type(str, default="drawings")
    """The Excalidraw scenes' folder, relative to mkdocs.yml (published at drawings/)."""
    results_dir = c.Optional(c.Type(str))
    """The result store (default: <proofs_dir>/_results)."""
    torch = c.Optional(c.Type((str, int, float)))
    """The torch pin, e.g. "2.14.1" (default: pyproject.toml, then requirements.txt: see proofs/pin.py)."""
    widgets = c.ListOfItems(c.Type(str), default=[])
    """Modules whose DIRECTIVES join the core's fences (this series: build_hooks.series; default:
    the ldr extension's own ``widgets`` option when mkdocs.yml lists it for Zensical, else none)."""
    typed_versions = c.Optional(c.Choice(("off", "warn", "error")))
    """A torch version or tag typed by hand in prose, or a link to a tag of the PyTorch repository:
    left alone (off), a warning (warn) or an error (error; this series'). Default: the ldr
    extension's own option when mkdocs.yml lists it, else off."""
    template_cache = c.Type(bool, default=True)
    """Keep the theme's compiled templates in .cache/ldr/templates (site/templates.py)."""
    page_cache = c.Type(bool, default=True)
    """Keep each page's converted HTML in .cache/ldr/pages, and convert again only a page whose
    Markdown or inputs changed (hosts/mkdocs/pagecache.py)."""
    link_files = c.Type(bool, default=True)
    """Publish the package's files (downloads, assets, fonts) as hard links to one copy of each in
    .cache/ldr/shelf instead of writing each one on every build (site/shelf.py)."""
    lazy_figures = c.Type(bool, default=True)
    """Publish each drawing past a page's first screens as a file that arrives when the reader
    nears it, instead of inline in the page (site/lazyfigures.py)."""
