"""The instruments. ``render_fence`` is the handler for the ```instrument fence.

The fence body is an instrument name (``toll-meter``) or a mapping
``{name: toll-meter, proof: dispatch_cost}``; each instrument reads its numbers from a proof
record at build time and embeds them, so nothing is typed into JavaScript.
"""

from __future__ import annotations

from build_hooks.core.errors import DirectiveError
from build_hooks.core.options import check_options
from build_hooks.directives.context import Context
from build_hooks.series.instruments import (
    engine_stepper,
    graph_walker,
    inplace_lab,
    library_sizes,
    promotion_table,
    stride_explorer,
    toll_meter,
    two_clocks,
)

INSTRUMENTS = {
    "toll-meter": toll_meter,
    "two-clocks": two_clocks,
    "graph-walker": graph_walker,
    "library-sizes": library_sizes,
    "stride-explorer": stride_explorer,
    "promotion-table": promotion_table,
    "inplace-lab": inplace_lab,
    "engine-stepper": engine_stepper,
}
DEFAULT_PROOFS = {name: mod.DEFAULT_PROOF for name, mod in INSTRUMENTS.items()}
OPTIONS = ("name", "proof")  # the one list of what an instrument fence takes


def render_fence(options: dict, ctx: Context) -> str:
    if not isinstance(options, dict):
        raise DirectiveError("instrument: write a name (toll-meter) or a mapping {name: ..., proof: ...}")
    check_options("instrument", options, OPTIONS)
    name = options.get("name", options.get("arg"))
    if not isinstance(name, str) or name.strip() not in INSTRUMENTS:
        raise DirectiveError(f"instrument: unknown instrument {name!r}; choose one of {', '.join(INSTRUMENTS)}")
    proof = options.get("proof")
    if proof is not None and (not isinstance(proof, str) or not proof.strip()):
        raise DirectiveError(f"instrument {name}: proof must be a proof name, got {proof!r}")
    clean = {"proof": proof.strip()} if proof else {}
    return INSTRUMENTS[name.strip()].render(clean, ctx)
