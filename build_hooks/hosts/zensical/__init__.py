"""Zensical: the same site as `mkdocs build`, without the MkDocs plugin."""
