"""The order in which candidates at one operator are verified.

Equivalence for every candidate before superset for any: removing the late filter is worth
more than a slightly more selective predicate that must keep it. Within each kind, the
shortcut candidates (search/candidates.py) come first, then Algorithm 1's combinations
(search/combine.py), which are computed once, lazily, and read again for the superset pass.
"""

from __future__ import annotations

import itertools
from typing import Iterator, Sequence

import z3

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.search.candidate import Candidate
from magicpush_lab.search.combine import Combined, combined_candidates, op_components
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

Proposal = tuple[str, tuple[X.Expr | None, ...]]  # (kind wanted, one predicate or None per input)


def proposals(node: P.Plan, pred: X.Expr, cands: Sequence[Candidate], budget: Budget) -> Iterator[Proposal]:
    """(kind wanted, candidate) in the order they are verified, each pair at most once."""
    combined = _Replayable(_combined(node, pred, cands, budget))

    def ordered() -> Iterator[Proposal]:
        yield from ((EQUIVALENT, c.predicates) for c in cands)
        yield from ((EQUIVALENT, (c.predicate,)) for c in itertools.takewhile(
            lambda c: c.may_be_equivalent, combined))  # the rest cannot be equivalences
        yield from ((SUPERSET, c.predicates) for c in cands)
        yield from ((SUPERSET, (c.predicate,)) for c in combined)

    seen = set()
    for item in ordered():
        if item not in seen:
            seen.add(item)
            yield item


def _combined(node: P.Plan, pred: X.Expr, cands: Sequence[Candidate], budget: Budget) -> Iterator[Combined]:
    """Algorithm 1's enumeration, for when the shortcut candidates are refused: components
    from the late filter (the conjuncts of those candidates) and from the operator (its UDFs'
    branch conditions)."""
    if budget.spent:  # the enumeration's set-up alone is minutes of work on a row of thousands of columns
        return
    from_f = [c for cand in cands if len(cand.predicates) == 1 and cand.predicates[0] is not None
              for c in X.conjuncts(cand.predicates[0])]
    components = list(dict.fromkeys(from_f + op_components(node, budget)))
    yield from combined_candidates(node, pred, components, budget)


class _Replayable:
    """An iterator that can be read again from the start, computing each item once."""

    def __init__(self, items: Iterator) -> None:
        self._items, self._seen = items, []

    def __iter__(self) -> Iterator:
        i = 0
        while True:
            if i == len(self._seen):
                try:
                    self._seen.append(next(self._items))
                except (StopIteration, z3.Z3Exception, NotModelled):
                    return
            yield self._seen[i]
            i += 1
