"""Running proofs: the runner and its warm host (a fork server), the child each proof runs in, the
device probe, the background scheduler, progress estimates, the library that decides staleness,
and the status report."""
