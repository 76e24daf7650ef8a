"""The MkDocs plugin: build events wired to the layers below, and what it says."""
