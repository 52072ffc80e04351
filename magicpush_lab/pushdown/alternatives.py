"""Other proved predicates for a source, kept beside the pushed one for ranking on live data.

Superset predicates are not all alike: which keeps fewer rows depends on the data. For an
operator right on a source, the next proved superset candidates are kept with the pushed
predicate, so the notebook's session can rank them by the rows they keep (measure.py); a
predicate another one implies can never keep fewer rows, so only the strongest are kept.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Iterable

import z3

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown.operators import check
from magicpush_lab.pushdown.proposals import Proposal
from magicpush_lab.pushdown.records import WalkResult
from magicpush_lab.search.simplify import readable
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.verify.implication import implies
from magicpush_lab.verify.verdict import SUPERSET, Verdict

MAX_ALTERNATIVES = 2  # other proved superset predicates kept for ranking on live data
ALTERNATIVES_SECONDS = 0.5  # of the user's budget, per source
READABLE_MS = 1500  # proving smaller and scan-friendly forms keep the same rows
IMPLIES_MS = 200  # comparing two alternatives: unknown counts as "does not imply"


def add_alternatives(node: P.Plan, pred: X.Expr, chosen: tuple[X.Expr | None, ...],
                     rest: Iterable[Proposal],
                     budget: Budget, result: WalkResult, first: int) -> None:
    """Give the predicate `chosen` pushed to `node`'s source (`result.pushed[first:]`) the
    next proved superset candidates of `rest` as alternatives, or their conjunction as the
    predicate when that is proved too."""
    if len(node.children) != 1 or not isinstance(node.children[0], P.Source):
        return
    pushed = [i for i in range(first, len(result.pushed)) if result.pushed[i].source is node.children[0]]
    if len(pushed) != 1:
        return
    found: list[X.Expr] = []
    stop = budget.deadline(ALTERNATIVES_SECONDS)
    for wanted, predicates in rest:
        if len(found) == MAX_ALTERNATIVES or time.monotonic() > stop:
            break
        if wanted != SUPERSET or predicates == chosen or predicates[0] is None:
            continue
        if any(_implies(h, predicates[0], budget) for h in (chosen[0], *found)):
            continue  # weaker than one in hand: it can never keep fewer rows
        budget.candidates_tried += 1
        try:
            verdict = _proved(node, pred, predicates, budget)
        except Exception:  # noqa: BLE001 - an alternative that cannot be checked is left out
            continue
        if verdict is not None and not verdict.may_hide_errors:
            found.append(readable(predicates[0], budget.slice_ms(READABLE_MS)))
    if not found:
        return
    chosen_at_source = result.pushed[pushed[0]]
    if chosen_at_source.may_hide_errors:
        found = []  # the alternatives do not hide errors: they are not equally correct
    # a predicate another one implies can never keep fewer rows: only the strongest are kept,
    # the first of them pushed and the others left for the data to rank
    every = list(dict.fromkeys([chosen_at_source.predicate, *found]))

    def weaker(i: int) -> bool:  # another keeps no more rows; of two equivalent ones, the later goes
        return any(j != i and _implies(h, every[i], budget)
                   and (j < i or not _implies(every[i], h, budget)) for j, h in enumerate(every))

    strongest = [g for i, g in enumerate(every) if not weaker(i)]
    if len(strongest) > 1:
        # each keeps every row the late filter needs; their conjunction may too, and then it
        # keeps fewer rows than any of them on any data (proved, since for an operator that
        # looks at groups or order a conjunction of supersets need not be one)
        both = X.and_(*strongest)
        try:
            verdict = _proved(node, pred, (both,), budget)
        except Exception:  # noqa: BLE001 - unproved: the data ranks them instead
            verdict = None
        if verdict is not None and not verdict.may_hide_errors:
            strongest = [both]
    result.pushed[pushed[0]] = replace(chosen_at_source, predicate=strongest[0], alternatives=tuple(strongest[1:]))


def _proved(node: P.Plan, pred: X.Expr, g: tuple[X.Expr | None, ...], budget: Budget) -> Verdict | None:
    verdict = check(node, pred, g, SUPERSET, budget.slice_ms(DEFAULT_TIMEOUT_MS))
    return verdict if verdict.proved else None


def _implies(a: X.Expr, b: X.Expr, budget: Budget) -> bool:
    """Every row `a` keeps, `b` keeps (unknown counts as no)."""
    try:
        return implies(a, b, budget.slice_ms(IMPLIES_MS)).proved
    except (NotModelled, z3.Z3Exception):
        return False
