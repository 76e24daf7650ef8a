"""Drift: what changed between two recorded torch versions, and the prose it touches.

For every proof and device class recorded under both versions (history.py keeps the older
ones): each data value old -> new with its ratio (marked noise when the ratio stays within
the measured spread of repeated runs or the proof's declared tolerance, see noise.py), the
visible output lines added and removed, every ```claim of every page evaluated against both
versions' data, and the page lines that quote each changed value. Largest changes first.

A list whose items are mappings each with its own ``name`` (a list of libraries, of ops) is
compared item by item by name, not by position: ``LIBRARIES.files[libc10.so].bytes`` is the
same library in both versions wherever the list puts it, and an item only one version has is
one row (``LIBRARIES.files[libcublasLt.so.13]``, its value the whole item: added or removed).

``ldr drift --json`` is a stable interface; fields are only ever added::

    {"format": 1, "from": "2.13.0", "to": "2.14.1",
     "only_from": ["proof.device", ...], "only_to": [...], "claims_checked": bool,
     "problems": [unreadable history files],
     "proofs": [{"name", "device_class",
                 "values": [{"key", "old", "new", "ratio": float|null, "noise": bool,
                             "quoted_at": ["docs/x.md:12"]}],
                 "output": {"added": [str], "removed": [str], "diff": [str],
                            "excerpted_at": ["docs/x.md:30"]},
                 "claims": [{"page_line", "check", "old": bool|null, "new": bool|null,
                             "status": "broke|holds-now|still-holds|still-broken"}]}]}

The ```drift-report fence (``from: V`` / ``to: V``, both optional) renders the same report
on a page at build time.
"""

from __future__ import annotations

import contextlib
import difflib
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from build_hooks.core.errors import LdrError, StoreError
from build_hooks.core.safefs import UnsafeFile, read_bytes
from build_hooks.proofs.datalines import natural, parse_output
from build_hooks.proofs.discovery import discover
from build_hooks.proofs.pin import public_version
from build_hooks.proofs.sources import installed_torch
from build_hooks.store import noise, quotestore
from build_hooks.store.history import all_versions, corrupt_files, current_version, records_at, version_key
from build_hooks.store.quotestore import QuoteDrift
from build_hooks.store.schema import version_dir
from build_hooks.store.store import Record, Store
from build_hooks.upgrade.diff import quoted_at, quotes
from build_hooks.upgrade.quotedrift import quote_drift

FORMAT = 1


# -- the claims interface (build_hooks/upgrade/claims.py), behind one adapter ----------------------
def claims_api():
    """(evaluate, find_claims) from claims.py, or None where that module is absent."""
    try:
        from build_hooks.upgrade.claims import evaluate, find_claims
    except ImportError:
        return None
    return evaluate, find_claims


def page_claims(root: Path, api, docs: Path | None = None) -> list[tuple[str, str, str]]:
    """Every claim of every page: ("docs/x.md:12", proof, check); ``docs``: the pages' folder."""
    if api is None:
        return []
    out = []
    docs = Path(docs) if docs is not None else Path(root) / "docs"
    for page in sorted(docs.rglob("*.md")):
        try:
            text = read_bytes(page, inside=docs, limit="data").decode("utf-8", errors="replace")
        except (OSError, UnsafeFile):
            continue  # the build names a page it will not read

        for line, proof, check in found_claims(api, text):
            shown = page.relative_to(root) if page.is_relative_to(root) else page
            out.append((f"{shown}:{line}", proof, check))
    return out


def found_claims(api, text: str) -> list[tuple[int, str, str]]:
    """claims.find_claims as (line, proof, check) tuples, whether it yields tuples or objects."""
    if api is None:
        return []
    out = []
    for item in api[1](text):
        if all(hasattr(item, name) for name in ("line", "proof", "check")):
            item = (item.line, item.proof, item.check)
        line, proof, check = item
        out.append((int(line), str(proof), str(check)))
    return out


def holds(api, check: str, data: dict) -> bool | None:
    """The claim's truth on ``data``; None when it cannot be evaluated there (a missing key)."""
    try:
        return bool(api[0](check, data).holds)
    except Exception:  # noqa: BLE001 - any evaluation error means "cannot say" for that version
        return None


# -- the report ----------------------------------------------------------------------------
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


@dataclass
class Drift:
    from_version: str
    to_version: str
    proofs: list[ProofDrift] = field(default_factory=list)
    compared: int = 0
    only_from: list[str] = field(default_factory=list)
    only_to: list[str] = field(default_factory=list)
    claims_checked: bool = False
    problems: list[str] = field(default_factory=list)  # unreadable history files, named
    quotes: list[QuoteDrift] = field(default_factory=list)  # source quotes that changed (quotedrift.py)

    def to_json(self) -> dict:
        return {"format": FORMAT, "from": self.from_version, "to": self.to_version,
                "only_from": self.only_from, "only_to": self.only_to, "problems": self.problems,
                "claims_checked": self.claims_checked, "proofs": [p.to_json() for p in self.proofs],
                "quotes": [q.to_json() for q in self.quotes]}


def default_versions(store: Store, from_version: str | None, to_version: str | None) -> tuple[str, str]:
    quoted = quotestore.versions(store.dir)  # versions whose source quotes are kept
    if quoted:  # the installed torch's quotes are read live (quotedrift.py): it counts as known
        with contextlib.suppress(LdrError, StoreError):
            quoted.append(quotestore.version_name(installed_torch()))
    known = sorted(set(all_versions(store)) | set(quoted), key=version_key)
    to_version = _given(to_version, known) if to_version else (
        current_version(store) or max(quoted, key=version_key, default=None))
    if to_version is None:
        raise LdrError("no records yet: run `ldr run` first")
    if from_version is None:
        older = [v for v in known if version_key(v) < version_key(to_version)]
        if not older:
            newer = [v for v in known if version_key(v) > version_key(to_version)]
            hint = (f"; after a rollback, compare with the newer one: `ldr drift --from {newer[0]}`"
                    if newer else "; history is kept when `ldr run` re-measures under a new pin")
            raise LdrError(f"no torch version older than {to_version} is recorded in "
                           f"proofs/_results/_history/ (recorded: {', '.join(known) or 'none'}){hint}")
        from_version = older[-1]
    from_version = _given(from_version, known)
    for version in (from_version, to_version):
        if version not in known:
            raise LdrError(f"torch {version} is not recorded; recorded versions: {', '.join(known) or 'none'}")
    return from_version, to_version


def _given(version: str, known: list[str]) -> str:
    """A version asked for (``--from``, a drift-report fence), parsed: a folder name, never text."""
    try:
        return version_dir(version)
    except ValueError:
        raise LdrError(f"{version!r} is not a torch version (PEP 440, such as 2.14.1); recorded "
                       f"versions: {', '.join(known) or 'none'}") from None


NAMED_BY = ("name",)  # the field that names the items of a list, for matching them across versions


def item_names(items: list) -> list[str] | None:
    """What names each item of ``items``: every item a mapping with a non-empty string ``name``;
    two items of one name (a file in two folders) are told apart by the first other text field
    that differs (``driver.so folder=cuda/bindings``). None when the items are not all named that
    way: such a list is compared by position."""
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    for field_name in NAMED_BY:
        names = [item.get(field_name) for item in items]
        if not all(isinstance(n, str) and n for n in names):
            continue
        labels = list(names)
        for index, item in enumerate(items):
            twins = [other for other in items if other.get(field_name) == item[field_name]]
            if len(twins) == 1:
                continue
            for other_field in sorted(k for k, v in item.items() if k != field_name and isinstance(v, str)):
                if [twin.get(other_field) for twin in twins].count(item[other_field]) == 1:
                    labels[index] = f"{item[field_name]} {other_field}={item[other_field]}"
                    break
        if len(set(labels)) == len(labels):
            return labels
    return None


@dataclass
class Leaves:
    """A record's data as leaves by their data path, with named list items addressed by name."""

    values: dict[str, object] = field(default_factory=dict)   # path -> scalar
    position: dict[str, str] = field(default_factory=dict)    # path -> the positional path (SWEEP.0.us)
    items: dict[str, dict] = field(default_factory=dict)      # path of a named item -> the item


def leaves(value, path: str = "", position: str = "", out: Leaves | None = None) -> Leaves:
    """Every leaf of ``value`` as :func:`build_hooks.proofs.datalines.flatten` gives it, except
    that an item of a list of named mappings is ``LIST[name]``, not ``LIST.<index>``."""
    out = out if out is not None else Leaves()
    if isinstance(value, dict):
        for key, item in value.items():
            leaves(item, f"{path}.{key}" if path else str(key), f"{position}.{key}" if position else str(key), out)
    elif isinstance(value, list):
        named = item_names(value)
        for index, item in enumerate(value):
            here = f"{path}[{named[index]}]" if named else f"{path}.{index}"
            if named:
                out.items[here] = item
            leaves(item, here, f"{position}.{index}", out)
    else:
        out.values[path] = value
        out.position[path] = position
    return out


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


def compute(root: Path, store: Store | None = None, from_version: str | None = None,
            to_version: str | None = None, proofs: dict | None = None, api="auto",
            docs: Path | None = None) -> Drift:
    """The drift between two recorded versions; ``docs``: the pages' folder (default root/docs)."""
    root = Path(root)
    store = store if store is not None else Store(root / "proofs")
    proofs = proofs if proofs is not None else discover(root / "proofs")
    api = claims_api() if api == "auto" else api
    from_version, to_version = default_versions(store, from_version, to_version)
    old, new = records_at(store, from_version), records_at(store, to_version)
    values_quoted, excerpts = quotes(root, docs)
    claims = page_claims(root, api, docs)
    report = Drift(from_version, to_version, claims_checked=api is not None,
                   only_from=[".".join(k) for k in sorted(set(old) - set(new))],
                   only_to=[".".join(k) for k in sorted(set(new) - set(old))],
                   problems=[f"{c.path}: {c.reason} (skipped)" for c in corrupt_files(store)]
                   + noise.problems(store))
    for key in sorted(set(old) & set(new)):
        name, device_class = key
        report.compared += 1
        proof = proofs.get(name)
        tolerance = noise.declared(proof.path) if proof is not None else 0.0
        spreads = [noise.read(store, v, name, device_class) for v in (from_version, to_version)]
        result = compare(name, device_class, old[key], new[key], tolerance, spreads, values_quoted)
        if result.diff:
            result.excerpted_at = excerpts.get(name, [])
        for page_line, proof_name, check in claims:
            if proof_name == name:
                result.claims.append(ClaimDrift(page_line, check, holds(api, check, old[key].data),
                                                holds(api, check, new[key].data)))
        moved = any(c.status in ("broke", "holds-now") for c in result.claims)
        if result.values or result.diff or moved:
            report.proofs.append(result)
    report.proofs.sort(key=lambda p: (-p.size, -len(p.changed), p.name, p.device_class))
    report.quotes, quote_problems = quote_drift(store.dir, from_version, to_version)
    report.problems.extend(quote_problems)
    return report
