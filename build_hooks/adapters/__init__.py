"""Adapters that wire the core to its hosts: the Python-Markdown extension (markdown.py, with
fences.py, state.py and pinref.py), Zensical's stand-in for a plugin (zensical.py), the MkDocs
plugin (mkdocs.py) and the command line (cli.py, cli_args.py, console.py, siteconfig.py)."""
