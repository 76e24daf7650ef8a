"""What the plugin adds to MkDocs' own configuration in on_config: the package's stylesheets and
scripts, the Markdown extensions and superfences' fences the pages need, ldr's extension, and a
word on ``site_url``."""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File

from build_hooks.core.errors import LdrError
from build_hooks.hosts.markdown.extension import LdrExtension, LdrState, custom_fences
from build_hooks.hosts.siteconfig import site_url_problem
from build_hooks.site import assets


def say_site_url_problem(config, command: str, log) -> None:
    problem = site_url_problem(config.site_url, command)
    if problem:
        (log.warning if problem[0] == "warning" else log.info)(problem[1])


def add_assets(config) -> None:
    """Link the one stylesheet (before the site's own extra_css, which overrides it) and the one
    script (last), and publish the two bundles, which join the package's stylesheets and script
    with the theme's files that mkdocs.yml lists under ``theme.ldr_assets`` (site/assets.py). The
    plugin publishes the package's own files (``assets.site_assets()``) in its on_files."""
    config.extra_css[:0] = [uri for uri in assets.stylesheets() if uri not in config.extra_css]
    scripts = {str(item) for item in config.extra_javascript}
    config.extra_javascript.extend(uri for uri in assets.scripts() if uri not in scripts)
    listed = config.theme.get(assets.OPTION) or []
    if not isinstance(listed, list):
        raise PluginError(f"theme.{assets.OPTION} must be a list of the theme's .css and .js files, "
                          f"not {listed!r}")
    custom_dir = config.theme.custom_dir
    try:
        made = assets.bundles(Path(custom_dir) if custom_dir else None, listed, faces=False)  # pages declare them
    except LdrError as exc:
        raise PluginError(str(exc)) from exc
    config.plugins["ldr/bundles"] = _Bundles(made)


class _Bundles(BasePlugin):
    """Publishes the bundles made in on_config (a site file at the same URI wins)."""

    def __init__(self, made: list[tuple[str, bytes]]):
        self.made = made

    def on_files(self, files, config):
        for uri, content in self.made:
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, content=content))
        return files


def listed_option(config, option: str, default):
    """An option of the ldr extension as mkdocs.yml lists it (for Zensical), else ``default``."""
    for name in ("build_hooks.hosts.markdown.extension", "ldr"):
        options = config.mdx_configs.get(name)
        if isinstance(options, dict) and option in options:
            return options[option]
    return default


def add_extensions(config, state: LdrState) -> None:
    """The Markdown extensions and superfences' fences the pages need, and ldr's own extension."""
    extensions = config.markdown_extensions
    for name in ("build_hooks.hosts.markdown.extension", "ldr"):  # listed for Zensical; this instance replaces it
        if name in extensions:
            extensions.remove(name)
            config.mdx_configs.pop(name, None)
    for name in ("attr_list", "pymdownx.superfences"):
        if name not in extensions:
            extensions.append(name)
    fences = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
    taken = {fence.get("name") for fence in fences}
    fences.extend(f for f in custom_fences(state.registry.widgets) if f["name"] not in taken)
    extensions.append(LdrExtension(state=state))
