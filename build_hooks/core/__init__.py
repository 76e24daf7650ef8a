"""The core: proofs, runner, store, status, claims, history and drift. It never imports MkDocs or Python-Markdown."""
