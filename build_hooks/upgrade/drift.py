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
from dataclasses import dataclass, field
from pathlib import Path

from build_hooks.core.errors import LdrError, StoreError
from build_hooks.core.safefs import UnsafeFile, read_bytes
from build_hooks.proofs.discovery import discover
from build_hooks.proofs.sources import installed_torch
from build_hooks.store import noise, noisestore, quotestore
from build_hooks.store.history import all_versions, corrupt_files, current_version, records_at, version_key
from build_hooks.store.quotestore import QuoteDrift
from build_hooks.store.schema import version_dir
from build_hooks.store.store import Store
from build_hooks.upgrade.claims import FoundClaim, evaluate, find_claims
from build_hooks.upgrade.diff import quotes
from build_hooks.upgrade.proofdrift import ClaimDrift, ProofDrift, compare
from build_hooks.upgrade.quotedrift import quote_drift

FORMAT = 1


# -- the claims interface (build_hooks/upgrade/claims.py), behind one adapter ----------------------
def claims_api():
    """(evaluate, find_claims): how drift and the corrections notes read and check claims (a
    test hands in its own pair, or None to leave claims out)."""
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

        for line, proof, check, _say in found_claims(api, text):
            shown = page.relative_to(root) if page.is_relative_to(root) else page
            out.append((f"{shown}:{line}", proof, check))
    return out


def found_claims(api, text: str) -> list[FoundClaim]:
    """The page's claims (none when ``api`` is None)."""
    return [] if api is None else list(api[1](text))


def holds(api, check: str, data: dict) -> bool | None:
    """The claim's truth on ``data``; None when it cannot be evaluated there (a missing key)."""
    try:
        return bool(api[0](check, data).holds)
    except Exception:  # noqa: BLE001 - any evaluation error means "cannot say" for that version
        return None


# -- the report (one proof's part: proofdrift.py) ---------------------------------------------
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
                   + noisestore.problems(store))
    for key in sorted(set(old) & set(new)):
        name, device_class = key
        report.compared += 1
        proof = proofs.get(name)
        tolerance = noise.declared(proof.path) if proof is not None else 0.0
        spreads = [noisestore.read(store, v, name, device_class) for v in (from_version, to_version)]
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
