"""Pure HTML renderers for proof directives: cards, excerpts and inline values."""
