"""This series' own widgets: the instruments, the reading lines and the robot check (their CSS
and JS live in theme/), and the depth meter (pagetheme.py). A site registers the fences by
naming this module in the ``widgets`` option of the ldr plugin (or extension); the hosts call
the depth meter where the site has ``data/floors.yml``."""

from build_hooks.directives.registry import make
from build_hooks.series import instruments, metro, robot

DIRECTIVES = (
    make("instrument", "an interactive instrument fed by a proof's record (no-JS fallback inside)",
         instruments.OPTIONS, {"records"}, instruments.render_fence),
    make("reading-lines", "the series' reading lines: three routes through the parts, from data/reading-lines.yml",
         (), {"data"}, metro.render_fence),
    make("robot", "the series' robot, saying one line", ("says",), (), robot.render_fence),
)
WIDGET_PROOFS = dict(instruments.DEFAULT_PROOFS)
