"""What the plugin adds to MkDocs' own configuration in on_config: the package's stylesheets and
scripts, the Markdown extensions and superfences' fences the pages need, ldr's extension, and a
word on ``site_url``."""

from __future__ import annotations

from build_hooks.hosts.markdown.extension import LdrExtension, LdrState, custom_fences
from build_hooks.hosts.siteconfig import site_url_problem
from build_hooks.site import assets


def say_site_url_problem(config, command: str, log) -> None:
    problem = site_url_problem(config.site_url, command)
    if problem:
        (log.warning if problem[0] == "warning" else log.info)(problem[1])


def add_assets(config) -> None:
    """The package's stylesheets first, so that the site's own extra_css overrides them; its scripts last."""
    sheets = [uri for uri in assets.stylesheets() if uri not in config.extra_css]
    config.extra_css[:0] = sheets
    scripts = {str(item) for item in config.extra_javascript}
    config.extra_javascript.extend(uri for uri in assets.scripts() if uri not in scripts)


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
