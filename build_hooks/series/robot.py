"""The robot mascot: a small friendly machine that says one line, at most once per page."""

from __future__ import annotations

import html as _html

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context

# Drawn for this series: a round-shouldered robot with one raised arm, an orange antenna bulb
# (the subject colour: it is the one thing lit), ink outlines, paper fill.
ROBOT_SVG = (
    '<svg class="ldr-robot__figure" viewBox="0 0 96 112" aria-hidden="true" focusable="false">'
    '<line class="ldr-robot__ink" x1="48" y1="8" x2="48" y2="22"/>'
    '<circle class="ldr-robot__bulb" cx="48" cy="8" r="5"/>'
    '<rect class="ldr-robot__shell" x="20" y="22" width="56" height="42" rx="14"/>'
    '<rect class="ldr-robot__screen" x="27" y="30" width="42" height="26" rx="9"/>'
    '<circle class="ldr-robot__eye" cx="39" cy="41" r="4"/><circle class="ldr-robot__eye" cx="57" cy="41" r="4"/>'
    '<circle class="ldr-robot__glint" cx="40.4" cy="39.6" r="1.2"/>'
    '<circle class="ldr-robot__glint" cx="58.4" cy="39.6" r="1.2"/>'
    '<path class="ldr-robot__smile" d="M41 49 q7 5 14 0"/>'
    '<circle class="ldr-robot__cheek" cx="31" cy="49" r="2.6"/>'
    '<circle class="ldr-robot__cheek" cx="65" cy="49" r="2.6"/>'
    '<rect class="ldr-robot__ear" x="14" y="36" width="6" height="14" rx="3"/>'
    '<rect class="ldr-robot__ear" x="76" y="36" width="6" height="14" rx="3"/>'
    '<rect class="ldr-robot__shell" x="28" y="68" width="40" height="32" rx="10"/>'
    '<circle class="ldr-robot__light" cx="40" cy="80" r="2.6"/>'
    '<circle class="ldr-robot__light ldr-robot__light--on" cx="48" cy="80" r="2.6"/>'
    '<circle class="ldr-robot__light" cx="56" cy="80" r="2.6"/>'
    '<line class="ldr-robot__ink" x1="38" y1="90" x2="58" y2="90"/>'
    '<path class="ldr-robot__ink" d="M28 76 q-12 -6 -14 -20"/><circle class="ldr-robot__hand" cx="14" cy="54" r="4"/>'
    '<path class="ldr-robot__ink" d="M68 76 q10 6 10 16"/><circle class="ldr-robot__hand" cx="78" cy="94" r="4"/>'
    '<line class="ldr-robot__ink" x1="40" y1="100" x2="40" y2="108"/>'
    '<line class="ldr-robot__ink" x1="56" y1="100" x2="56" y2="108"/>'
    '</svg>'
)


def render_fence(options: dict, ctx: Context) -> str:
    if not isinstance(options, dict):
        raise DirectiveError('robot: write `says: "one line"`')
    unknown = set(options) - {"says", "arg"}
    if unknown:
        raise DirectiveError(f"robot: unknown option(s) {', '.join(sorted(map(str, unknown)))}; only `says` is allowed")
    says = options.get("says", options.get("arg"))
    if not isinstance(says, str) or not says.strip():
        raise DirectiveError('robot: needs a line to say, e.g. `says: "The dispatcher picks the kernel."`')
    return ('<figure class="ldr-robot"><figcaption class="ldr-sr-only">The series robot says:</figcaption>'
            f'{ROBOT_SVG}<blockquote class="ldr-robot__says"><p>{_html.escape(says.strip())}</p></blockquote></figure>')
