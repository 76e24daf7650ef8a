"""Zensical's page, seen from the ldr Markdown extension: Zensical makes a new ``Markdown``
for every page, so :func:`attach` (called by the extension for each one) registers the
page's start and end with the project's one session (site.py) and returns its shared
state; outside Zensical's renderer it returns ``None``."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor


# -- the page, seen from the extension ---------------------------------------------------------
def attach(md, extension) -> object | None:
    """Called by the ldr extension for every Markdown instance: under Zensical's renderer,
    register the page bookkeeping and return the project's shared state; elsewhere ``None``."""
    context = _rendering_context(md)
    if context is None:
        return None
    from zensical.config import get_config

    from build_hooks.hosts.zensical.site import session_for

    root = Path(get_config()["root_dir"]) / str(extension.getConfig("root") or ".")
    session = session_for(root)
    # the extension's options in mkdocs.yml
    session.state.use_widgets(extension.getConfig("widgets") or (), extension.getConfig("typed_versions") or "off")
    add_fences(md, get_config(), session.state.registry.widgets)
    end = _PageEnd(md, session, context)
    md.preprocessors.register(_PageStart(md, session, context), "ldr_zensical_page", 45)
    md.treeprocessors.register(_TreeDone(md, end), "ldr_zensical_tree_done", -100)
    md.postprocessors.register(end, "ldr_zensical_page_end", -100)
    return session.state


def add_fences(md, config: dict, widgets) -> None:
    """What the MkDocs plugin adds to the configuration, added here, so that listing the extension
    is enough (README, "Using the package in another site"): the ldr fences join superfences'
    ``custom_fences`` in Zensical's configuration (every superfences built from now on has them:
    Zensical lists superfences after the extension when mkdocs.yml does not list it), and this
    page's superfences when mkdocs.yml lists it before the extension; ``attr_list``, as the plugin."""
    from pymdownx import superfences

    from build_hooks.hosts.markdown.fences import custom_fences

    options = config["mdx_configs"].setdefault("pymdownx.superfences", {})
    listed = options.setdefault("custom_fences", [])
    names = {fence.get("name") for fence in listed if isinstance(fence, dict)}
    missing = [fence for fence in custom_fences(widgets) if fence["name"] not in names]
    listed.extend(missing)
    for built in md.registeredExtensions:
        if isinstance(built, superfences.SuperFencesCodeExtension):  # listed before the extension
            have = {fence["name"] for fence in built.superfences}
            for fence in (f for f in custom_fences(widgets) if f["name"] not in have):
                built.extend_super_fences(  # as superfences' own extendMarkdown does for each
                    fence["name"],
                    partial(superfences._formatter, class_name=fence["class"], _fmt=fence["format"]),
                    partial(superfences._validator, validator=fence["validator"]),
                    partial(superfences._reset, _reset=superfences.default_reset))
    if "attr_list" not in config["markdown_extensions"]:
        md.registerExtensions(["attr_list"], {})


def _rendering_context(md):
    module = sys.modules.get("zensical.extensions.context")
    if module is None:
        return None
    return module.ContextPreprocessor.from_markdown(md)


class _PageStart(Preprocessor):
    def __init__(self, md, session, context):
        super().__init__(md)
        self.session, self.context = session, context

    def run(self, lines):
        self.session.begin_page(self.context.page, lines)
        return lines


class _TreeDone(Treeprocessor):
    """The tree is finished: the next postprocessor pass is over the page itself (the toc
    extension runs the postprocessors over each heading's text before this)."""

    def __init__(self, md, end: _PageEnd):
        super().__init__(md)
        self.end = end

    def run(self, root):
        self.end.armed = True
        return None


class _PageEnd(Postprocessor):
    def __init__(self, md, session, context):
        super().__init__(md)
        self.session, self.context = session, context
        self.armed = False

    def run(self, text):
        if not self.armed:
            return text
        self.armed = False
        return self.session.end_page(text, self.context.page)
