"""`python -m build_hooks` runs the `ldr` command line."""
from build_hooks.adapters.cli import main

raise SystemExit(main())
