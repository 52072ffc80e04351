"""A candidate input predicate G: one predicate (or None) per input of the operator."""

from __future__ import annotations

from dataclasses import dataclass

from magicpush_lab.ir import expr as X


@dataclass(frozen=True)
class Candidate:
    predicates: tuple[X.Expr | None, ...]  # one per operator input; None = nothing pushed there
    how: str  # how it was built, for explanations
