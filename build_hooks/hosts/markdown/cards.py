"""What a page shows once, and what its cards warn of: each proof's card and each HTML id
taken on the page (a second is refused, naming the first's line), and a card's warnings (a
failed run, no measurement on an accelerator). Mixed into
:class:`build_hooks.hosts.markdown.state.LdrState`, whose fields it reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.records import FailureNote, ProofData
from build_hooks.render.card import status_phrase
from build_hooks.run.library import Diagnostic
from build_hooks.run.results import failed_line, last_lines

if TYPE_CHECKING:
    from build_hooks.config import Layout


class PageCards:
    if TYPE_CHECKING:  # LdrState's (state.py)
        cards: dict[str, int | None]
        ids: dict[str, tuple[str, int | None]]
        diagnostics: list[Diagnostic]
        layout: Layout
        page: str | None

        def where(self, line: int | None) -> str: ...
        def at(self, line: int | None) -> str: ...

    def take_card(self, name: str, line: int | None, check_only: bool = False) -> None:
        if name in self.cards:
            raise DirectiveError(
                f"proof {name} already has a card on this page at {self.at(self.cards[name])}; a page "
                "shows each proof's card once; quote it with proof-output or an inline value instead")
        if not check_only:
            self.cards[name] = line

    def claim_ids(self, found: tuple[str, ...], fence: str, line: int | None) -> None:
        """Refuse a directive whose HTML repeats an id (``found``, in order, once each) another
        directive on the page has."""
        for ident in found:
            if ident in self.ids:
                kind, first = self.ids[ident]
                raise DirectiveError(
                    f"this {fence} fence would repeat the id {ident!r} of the {kind} fence at "
                    f"{self.at(first)}; an id must be unique on a page: show it once, or make "
                    "the two differ (e.g. another frame of the drawing)")
        for ident in found:
            self.ids[ident] = (fence, line)

    def report_card(self, proof, records: dict[str, ProofData], line: int | None = None) -> None:
        name, accelerator = proof.name, proof.accelerator
        where = self.where(None)  # about the proof, not the fence: named once per page
        for item in records.values():
            p = item.provenance
            if not p.ok or p.failure:
                what = p.failure or FailureNote(
                    p.status, status_phrase(p), p.torch, p.measured_at,
                    tuple(last_lines(item.stdout.splitlines(), item.stderr.splitlines())))
                self.diagnostics.append(Diagnostic("warning", failed_line(  # one line, then its last lines
                    where, name, p, what, self.layout.shown(proof.path), proof.timeout, proof.output_cap),
                    page=self.page, proof=name))
        if accelerator != "none" and not {"cuda", "mps"} & set(records):
            shows_cpu = "cpu" in records
            level = "info" if shows_cpu or proof.allow_unmeasured else "warning"
            note = ("; the page shows its CPU result" if shows_cpu else
                    "; its card says so (allow_unmeasured)" if proof.allow_unmeasured else
                    f"; fix: run `ldr run {name}` on a machine with cuda or mps and commit (or `ldr merge`) "
                    "its record, or set \"allow_unmeasured\": True in its PROOF to publish without one")
            self.diagnostics.append(Diagnostic(
                level, f"{self.where(line)}: proof {name} is not yet measured on an accelerator{note}",
                page=self.page, proof=name))
