"""Adapters that wire the core to its hosts: the Python-Markdown extension (markdown.py, pinref.py), the MkDocs plugin (mkdocs.py) and the command line (cli.py)."""
