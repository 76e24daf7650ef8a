"""`ldr`: the command line (arguments, reports, the console)."""
