"""Records on disk: the committed store, its strict schema, per-version history, measured noise,
shards from other machines, and the kept source quotes."""
