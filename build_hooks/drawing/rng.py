"""Rough.js's seeded random numbers and drawing options, bit for bit.

The ``rough`` package's ``Random`` reduces the state modulo 2**31-1 (a Park-Miller generator);
Rough.js keeps a 32-bit ``Math.imul(48271, seed)`` state and masks it to 31 bits, so the same
seed gives a different sequence. Excalidraw's strokes are only reproducible with the latter.
"""

from __future__ import annotations

import copy
import math
import random as _stdlib_random
from dataclasses import dataclass, field


def _imul(a: int, b: int) -> int:
    """JavaScript ``Math.imul``: 32-bit two's complement product."""
    a &= 0xFFFFFFFF
    b &= 0xFFFFFFFF
    product = (a * b) & 0xFFFFFFFF
    return product - 0x100000000 if product & 0x80000000 else product


def _to_int32(x: float | int) -> int:
    if isinstance(x, float):
        if not math.isfinite(x):
            return 0
        x = int(x)
    x &= 0xFFFFFFFF
    return x - 0x100000000 if x & 0x80000000 else x


class Random:
    """Rough.js ``Random``: ``((2**31 - 1) & (seed = imul(48271, seed))) / 2**31``."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = _to_int32(seed)

    def next(self) -> float:
        if self.seed:
            self.seed = _imul(48271, self.seed)
            return (self.seed & 0x7FFFFFFF) / 2**31
        return _stdlib_random.random()  # Rough.js falls back to Math.random for seed 0


@dataclass
class Options:
    """Rough.js ``ResolvedOptions`` with its defaults (generator.ts ``defaultOptions``)."""

    maxRandomnessOffset: float = 2
    roughness: float = 1
    bowing: float = 1
    stroke: str = "#000"
    strokeWidth: float = 1
    curveTightness: float = 0
    curveFitting: float = 0.95
    curveStepCount: float = 9
    fill: str | None = None
    fillStyle: str = "hachure"
    fillWeight: float = -1
    hachureAngle: float = -41
    hachureGap: float = -1
    seed: int = 0
    strokeLineDash: list[float] | None = None
    disableMultiStroke: bool = False
    disableMultiStrokeFill: bool = False
    preserveVertices: bool = False
    fillShapeRoughnessGain: float = 0.8
    randomizer: Random | None = field(default=None, repr=False)

    def with_(self, **changes) -> Options:
        """``{...o, ...changes}``: a shallow copy that shares the randomizer, as a JS spread does."""
        out = copy.copy(self)
        for k, v in changes.items():
            setattr(out, k, v)
        return out


def random(o: Options) -> float:
    if o.randomizer is None:
        o.randomizer = Random(o.seed or 0)
    return o.randomizer.next()


def offset(lo: float, hi: float, o: Options, gain: float = 1) -> float:
    return o.roughness * gain * (random(o) * (hi - lo) + lo)


def offset_opt(x: float, o: Options, gain: float = 1) -> float:
    return offset(-x, x, o, gain)


def alter_seed(o: Options) -> Options:
    """Rough.js ``cloneOptionsAlterSeed``: a fresh generator on ``seed + 1``."""
    out = o.with_(randomizer=None)
    if o.seed:
        out.seed = o.seed + 1
    return out


def js_round(x: float) -> float:
    """``Math.round``: halves go up, unlike Python's banker's rounding."""
    return math.floor(x + 0.5)
