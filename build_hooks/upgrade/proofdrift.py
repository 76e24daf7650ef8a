"""One proof's drift between two recorded torch versions (drift.py gathers them): each data
value old -> new with its ratio, marked noise when it stays within the measured spread or the
proof's declared tolerance (noise.py); an item of a named list only one version has, as one
row; the visible output lines added and removed; and its claims, then and now."""

from __future__ import annotations

import difflib
import math
from dataclasses import asdict, dataclass, field

from build_hooks.proofs.datalines import natural, parse_output
from build_hooks.proofs.pin import public_version
from build_hooks.store import noise
from build_hooks.store.record import Record
from build_hooks.upgrade.diff import quoted_at
from build_hooks.upgrade.leaves import leaves


@dataclass
class ValueDrift:
    key: str
    old: object
    new: object
    ratio: float | None
    noise: bool
    quoted_at: list[str] = field(default_factory=list)
    z: float | None = None  # the change in standard errors of the measured noise (noise.py)

    @property
    def size(self) -> float:
        if self.ratio is None or self.ratio <= 0:
            return math.inf
        return abs(math.log(self.ratio))


@dataclass
class ClaimDrift:
    page_line: str
    check: str
    old: bool | None
    new: bool | None

    @property
    def status(self) -> str:
        if self.new:
            return "still-holds" if self.old else "holds-now"
        return "broke" if self.old else "still-broken"


@dataclass
class ProofDrift:
    name: str
    device_class: str
    values: list[ValueDrift] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    diff: list[str] = field(default_factory=list)
    excerpted_at: list[str] = field(default_factory=list)  # proof-output fences, when output changed
    claims: list[ClaimDrift] = field(default_factory=list)

    @property
    def changed(self) -> list[ValueDrift]:
        return [v for v in self.values if not v.noise]

    @property
    def size(self) -> float:
        return max((v.size for v in self.changed), default=0.0)

    def to_json(self) -> dict:
        return {"name": self.name, "device_class": self.device_class,
                "values": [asdict(v) for v in self.values],
                "output": {"added": self.added, "removed": self.removed, "diff": self.diff,
                           "excerpted_at": self.excerpted_at},
                "claims": [{**asdict(c), "status": c.status} for c in self.claims]}


def ratio(old, new) -> float | None:
    if noise.numeric(old) and noise.numeric(new) and old:
        return new / old
    return None


def compare(name: str, device_class: str, old: Record, new: Record, tolerance, spreads,
            values_quoted: dict) -> ProofDrift:
    result = ProofDrift(name, device_class)
    then, now = leaves(old.data), leaves(new.data)
    before, after = then.values, now.values
    # a named item only one version has is one row: the item itself, added or removed
    one_side = set(then.items) ^ set(now.items)
    for item in sorted(one_side, key=natural):
        if any(item.startswith((outer + "[", outer + ".")) for outer in one_side if outer != item):
            continue  # inside an item that is itself added or removed
        inside = [k for k in (*before, *after) if k.startswith((item + ".", item + "["))]
        where = list(dict.fromkeys(w for k in inside for side in (then, now) if k in side.position
                                   for w in quoted_at(values_quoted, name, side.position[k])))
        result.values.append(ValueDrift(item, then.items.get(item), now.items.get(item), None, False, where))
        for key in inside:
            before.pop(key, None)
            after.pop(key, None)
    # the measured noise and the declared tolerance are kept by positional key (SWEEP.0.us)
    noises = [{key: spread[side.position[key]] for key in side.values if side.position[key] in spread}
              for side, spread in zip((then, now), spreads)]
    for key in sorted(set(before) | set(after), key=natural):
        a, b = before.get(key), after.get(key)
        if key in before and key in after and a == b:
            continue
        spots = list(dict.fromkeys(side.position[key] for side in (then, now) if key in side.position))
        r = ratio(a, b) if key in before and key in after else None
        allowed = max(noise.tolerance_for(spot, tolerance) for spot in spots)
        within, z = noise.within_noise(a, b, key, allowed, *noises) if r is not None else (False, None)
        where = list(dict.fromkeys(w for spot in spots for w in quoted_at(values_quoted, name, spot)))
        result.values.append(ValueDrift(key, a, b, r, within, where,
                                        None if z is None or math.isinf(z) else round(z, 2)))
    result.values.sort(key=lambda v: (v.noise, -v.size, natural(v.key)))
    old_lines, new_lines = parse_output(old.stdout).visible, parse_output(new.stdout).visible
    if old_lines != new_lines:
        result.diff = list(difflib.unified_diff(old_lines, new_lines, public_version(old.torch),
                                                public_version(new.torch), n=1, lineterm=""))
        for line in result.diff[2:]:
            if line.startswith("+"):
                result.added.append(line[1:])
            elif line.startswith("-"):
                result.removed.append(line[1:])
    return result
