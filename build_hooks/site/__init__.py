"""What the site publishes besides pages: downloads, notebooks, the proofs index and exercises
data, the package's own assets, deferred markup, and the theme templates' bytecode cache."""
