"""The ldr plugin's options as ``mkdocs.yml`` states them, for ``ldr`` run outside a build.

``ldr status`` in a site that keeps its proofs in ``src/proofs`` and pins torch in the plugin's
``torch`` option must see what ``mkdocs build`` sees. This reads the file as plain YAML (tags
such as ``!ENV`` read as null) and never imports MkDocs; only the plugin's folder and pin
options are taken, and the plugin's own config check still runs in every build.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from build_hooks.core.errors import LdrError
from build_hooks.core.layout import Layout

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
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    except (OSError, yaml.YAMLError) as exc:
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
    return Layout.at(root, **(plugin_options(path) if path else {}))
