"""The hosts that drive everything below: the MkDocs plugin (mkdocs/), the Python-Markdown
extension (markdown/), Zensical (zensical/) and the ldr command line (cli/). Only hosts import
the series."""
