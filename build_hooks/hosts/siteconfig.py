"""The ldr plugin's options as ``mkdocs.yml`` states them, for ``ldr`` run outside a build,
and what the build says of the site's ``site_url``.

``ldr status`` in a site that keeps its proofs in ``src/proofs`` and pins torch in the plugin's
``torch`` option must see what ``mkdocs build`` sees. This reads the file as plain YAML (tags
such as ``!ENV`` read as null) and never imports MkDocs; only the plugin's folder and pin
options are taken, and the plugin's own config check still runs in every build.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import yaml

from build_hooks.config import Layout
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, read_text

NAMES = ("mkdocs.yml", "mkdocs.yaml")
OPTIONS = ("proofs_dir", "drawings_dir", "results_dir", "torch")


class _Loader(yaml.SafeLoader):
    """Safe YAML that reads any tag it does not know (``!ENV``, ``!relative``...) as null."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)


def site_config(root: Path) -> Path | None:
    for name in NAMES:
        if (Path(root) / name).is_file():
            return Path(root) / name
    return None


def plugin_options(path: Path) -> dict:
    """The ``ldr`` entry's options under ``plugins:`` (``{}`` when it is listed bare or absent)."""
    try:
        doc = yaml.load(read_text(path, limit="data"), Loader=_Loader) or {}
    except (OSError, UnsafeFile, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise LdrError(f"{path}: cannot read the ldr plugin's options ({exc}); fix the file") from exc
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    entries = plugins.items() if isinstance(plugins, dict) else (
        (next(iter(p.items())) if isinstance(p, dict) and len(p) == 1 else (p, None)) for p in plugins or [])
    for name, options in entries:
        if name == "ldr":  # the plugin checks its options' types in every build; take only these
            return {k: v for k, v in options.items() if k in OPTIONS} if isinstance(options, dict) else {}
    return {}


def layout_for(root: Path) -> Layout:
    """The folders and pin a build of the site at ``root`` uses (the defaults without mkdocs.yml)."""
    path = site_config(root)
    return Layout.at(root, **(plugin_options(path) if path else {}), docs_dir=docs_dir(path) if path else None)


def docs_dir(path: Path) -> str | None:
    """mkdocs.yml's ``docs_dir`` (None: not set, or not a string)."""
    try:
        doc = yaml.load(read_text(path, limit="data"), Loader=_Loader) or {}
    except (OSError, UnsafeFile, UnicodeDecodeError, yaml.YAMLError):
        return None
    value = doc.get("docs_dir") if isinstance(doc, dict) else None
    return value if isinstance(value, str) and value.strip() else None


LOOPBACK = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


def site_url_problem(site_url: str | None, command: str) -> tuple[str, str] | None:
    """What is wrong with ``site_url`` for a build that may be published: (level, message).

    A loopback address is a warning (an error under --strict): canonical links and the sitemap
    would send readers to their own machine. An unset one is a note for `mkdocs build` (the site
    works, without canonical links, sitemap addresses or instant navigation) and a warning
    for `mkdocs gh-deploy`, which publishes it."""
    fix = ("set site_url to the address the site is published at (e.g. `site_url: !ENV SITE_URL` in "
           "mkdocs.yml and `SITE_URL=https://you.github.io/repo/ mkdocs build`, as the pages "
           "workflow does), or preview with `mkdocs serve`, which sets its own")
    if not site_url:
        if command == "gh-deploy":
            return "warning", f"site_url is not set, and gh-deploy publishes this build; fix: {fix}"
        return "info", ("site_url is not set: this build has no canonical links, its sitemap no "
                        "addresses, and instant navigation falls back to full page loads. To "
                        f"publish it, {fix}")
    host = (urlsplit(site_url).hostname or "").lower()
    if host in LOOPBACK or host.startswith("127."):
        return "warning", (f"site_url is {site_url}, a loopback address: the built site's canonical "
                           f"links and sitemap would point readers at their own machine; fix: {fix}")
    return None
