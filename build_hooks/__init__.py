"""Machinery for an illustrated, executable series on PyTorch internals.

The core (discovery, runner, store, renderers, drawings, CLI) never imports MkDocs;
`build_hooks.hosts.markdown.extension` is a Python-Markdown extension and `build_hooks.hosts.mkdocs.plugin` a thin
MkDocs plugin that wires build events to the core.
"""

__version__ = "0.1.0"
