"""The foundation every layer uses: errors, safe reads, atomic writes, text made safe to print,
bounded YAML, write-error hints and sealed text caches. Knows nothing of proofs, pages, MkDocs
or HTML."""
