"""`python -m build_hooks` runs the `ldr` command line."""
from build_hooks.hosts.cli.main import main

raise SystemExit(main())
