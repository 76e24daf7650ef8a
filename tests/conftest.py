"""Settings every test process shares."""

from __future__ import annotations

import signal

# A shell that starts a job in the background without job control (`bash .ci/run &` from a
# script) sets SIGINT to "ignore" for the whole job, and exec keeps an ignored signal ignored:
# every `ldr run`, `mkdocs build` or `serve` a test starts would then ignore the Ctrl-C the
# interruption tests send (and rightly: the parent asked for it). The tests stand for a reader at
# a terminal, so their processes start with Ctrl-C's default: a handler here (exec resets a
# handled signal to its default in the children).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
