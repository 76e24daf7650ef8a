"""What Zensical's host reads of its command line and of ``mkdocs.yml``: the command and config
file, ``docs_dir`` and ``use_directory_urls`` (from Zensical's parsed configuration once there
is one; before, while it still evaluates the file and calls ``prepare()``, from the file itself),
whether the file lists the ldr extension, and the theme's files that join the bundles. Used by
site.py."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import UnsafeFile, read_text
from build_hooks.hosts.siteconfig import site_config
from build_hooks.site import assets

EXTENSION_NAMES = ("ldr", "build_hooks.hosts.markdown.extension")
"""The names the ldr Markdown extension is listed by in ``markdown_extensions``."""
WATCH_LINE = "watch: !!python/object/apply:build_hooks.hosts.zensical.site.prepare []"


def cli_args() -> tuple[str | None, dict[str, object]]:
    """Zensical's command (``build`` or ``serve``) and the options that matter here, from its
    command line: the renderer runs on a thread of Zensical's runtime, outside click's context."""
    args = sys.argv[1:]
    command = args[0] if args and not args[0].startswith("-") else None
    options: dict[str, object] = {"strict": False, "config_file": None}
    rest = iter(args[1:] if command else args)
    for arg in rest:
        if arg in ("-f", "--config-file"):
            options["config_file"] = next(rest, None)
        elif arg.startswith("--config-file="):
            options["config_file"] = arg.split("=", 1)[1]
        elif arg in ("-a", "--dev-addr"):
            next(rest, None)
        elif arg == "--strict" or (arg.startswith("-") and not arg.startswith("--") and "s" in arg[1:]):
            options["strict"] = True
    return command, options


def config_root() -> Path:
    config_file = cli_args()[1]["config_file"]
    return Path(str(config_file)).resolve().parent if config_file else Path.cwd().resolve()


def config_file(root: Path) -> Path:
    """The configuration Zensical reads: ``-f``'s, else the project's ``mkdocs.yml``."""
    named = cli_args()[1]["config_file"]
    if named:
        return Path(str(named)).resolve()
    return site_config(root) or Path(root) / "mkdocs.yml"


class _Tolerant(yaml.SafeLoader):
    """Safe YAML that reads a tag it does not know (``!ENV``, ``!!python/...``) as null."""


_Tolerant.add_multi_constructor("", lambda loader, suffix, node: None)


def _document(path: Path | None, what: str) -> dict:
    try:
        doc = yaml.load(read_text(path, limit="data"), Loader=_Tolerant) if path and path.is_file() else None
    except (OSError, UnsafeFile, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise LdrError(f"{path}: cannot read {what} ({exc}); fix the file") from exc
    return doc if isinstance(doc, dict) else {}


def theme_assets(root: Path) -> tuple[Path | None, list]:
    """``theme.custom_dir`` (absolute) and ``theme.ldr_assets`` as the root's mkdocs.yml states
    them: the theme's files that join the package's in the bundles (site/assets.py)."""
    path = site_config(root)
    theme = _document(path, "the theme's options").get("theme")
    theme = theme if isinstance(theme, dict) else {}
    custom_dir, listed = theme.get("custom_dir"), theme.get(assets.OPTION) or []
    if not isinstance(listed, list):
        raise LdrError(f"{path}: theme.{assets.OPTION} must be a list of the theme's .css and .js "
                       f"files, not {listed!r}")
    return (Path(root) / custom_dir if isinstance(custom_dir, str) else None), listed


def lists_extension(path: Path) -> bool:
    """Whether the configuration at ``path`` lists the ldr extension under ``markdown_extensions``."""
    listed = _document(path, "markdown_extensions").get("markdown_extensions") or []
    names = listed if isinstance(listed, dict) else [
        next(iter(entry), None) if isinstance(entry, dict) and len(entry) == 1 else entry for entry in listed]
    return any(name in EXTENSION_NAMES for name in names if isinstance(name, str))


def zensical_config() -> dict:
    """Zensical's parsed configuration, or ``{}`` while it still evaluates the file."""
    try:
        from zensical.config import get_config

        return get_config() or {}
    except Exception:  # noqa: BLE001 - before Zensical has parsed its config (prepare)
        return {}


def docs_dir(root: Path) -> Path:
    config = zensical_config()
    docs = config.get("docs_dir") or "docs"
    return (Path(config.get("root_dir") or root) / docs).resolve()


def directory_urls(root: Path) -> bool:
    """``use_directory_urls``: Zensical's, or (before it has parsed the file) the file's own."""
    config = zensical_config()
    if "use_directory_urls" in config:
        return bool(config["use_directory_urls"])
    try:
        value = _document(config_file(root), "use_directory_urls").get("use_directory_urls", True)
    except LdrError:
        return True  # Zensical names what is wrong with its file
    return value is not False
