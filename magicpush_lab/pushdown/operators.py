"""The walk's one dispatch: for each IR operator, how candidates are made and which category
proves them.

An operator the table has no rule for is a pushdown boundary: the walk stops there and says
so. Adding an operator family is adding a row: its candidate generator (search/) and its
category's verifier (verify/), nothing else.

>>> sorted(op.__name__ for op in RULES)[:3]
['Aggregate', 'Expand', 'Filter']
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator, Sequence

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown.body_walk import candidates as body_candidates, verify as body_verify
from magicpush_lab.search import candidates as C
from magicpush_lab.search import row_iter as row_iter_search
from magicpush_lab.search.candidate import Candidate
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, limit_ms
from magicpush_lab.verify import aggregate, full_outer_join, outer_join, row_expand, row_iter, row_to_row, topk, window
from magicpush_lab.verify.verdict import SUPERSET, Verdict

Candidates = Callable[[P.Plan, X.Expr, Budget], Iterator[Candidate]]
Verifier = Callable[[P.Plan, X.Expr, Sequence[X.Expr | None], str, int], Verdict]


@dataclass(frozen=True)
class Rule:
    """How a filter moves through one operator family: candidate input predicates, most
    selective first, and the verifier of the family's category."""

    candidates: Candidates
    verify: Verifier


def _union(node: P.Union, pred: X.Expr, g: Sequence[X.Expr | None], kind: str, timeout_ms: int) -> Verdict:
    """Each output row is one input's row under the union's column names: a renaming projection
    per input, proved one input at a time."""
    renames = [P.Project(child, tuple((out, m[out]) for out in node.output))
               for child, m in zip(node.inputs, node.column_maps())]
    each = [row_to_row.verify(r, pred, (gi,), kind, timeout_ms) for r, gi in zip(renames, g)]
    failed = [v for v in each if not v.proved]
    return failed[0] if failed else replace(each[0], may_hide_errors=any(v.may_hide_errors for v in each))


def _semi_join(node: P.SemiJoin, pred: X.Expr, g: Sequence[X.Expr | None], kind: str,
               timeout_ms: int) -> Verdict:
    """A semi or anti join keeps a left row by whether a match exists: a filter on an unknown
    condition of the row (SemiJoin.as_filter), so a left predicate is proved as for a Filter.
    The right input gets nothing here: its rows decide which left rows match."""
    if len(g) != 2 or g[1] is not None:
        return Verdict(False, kind, row_to_row.CATEGORY, row_to_row.BASE_CASE_ROWS,
                       "a predicate on the right input of a semi or anti join is not analysed")
    return row_to_row.verify(node.as_filter(), pred, (g[0],), kind, timeout_ms)


RULES: dict[type, Rule] = {
    P.Filter: Rule(C.through_row_selection, row_to_row.verify),
    P.Reorder: Rule(C.through_row_selection, row_to_row.verify),
    P.Project: Rule(C.through_project, row_to_row.verify),
    P.InnerJoin: Rule(C.through_join, row_to_row.verify),
    P.Union: Rule(C.through_union, _union),
    P.SemiJoin: Rule(C.through_semi_join, _semi_join),
    P.OuterJoin: Rule(C.through_outer_join, outer_join.verify),
    P.Aggregate: Rule(C.through_aggregate, aggregate.verify),
    P.TopK: Rule(C.through_row_selection, topk.verify),
    P.Window: Rule(C.through_row_selection, window.verify),
    P.RowExpand: Rule(C.through_row_selection, row_expand.verify),
    P.Expand: Rule(C.through_unpivot, row_expand.verify_unpivot),
    P.GroupedMap: Rule(body_candidates, body_verify),
    P.RowIterPipeline: Rule(row_iter_search.candidates, row_iter.verify),
}

# a full outer join pads both inputs: the FULLOUTERJ conditions, not LEFTOUTERJ's
_FULL_OUTER_JOIN = Rule(C.through_full_outer_join, full_outer_join.verify)


def rule_for(node: P.Plan) -> Rule | None:
    """The node's rule, or None for a pushdown boundary."""
    if isinstance(node, P.OuterJoin) and node.preserved == "both":
        return _FULL_OUTER_JOIN
    return RULES.get(type(node))


def candidates_for(node: P.Plan, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """Candidates for pushing `f` through `node`, in the order they should be tried."""
    rule = rule_for(node)
    return rule.candidates(node, f, budget) if rule is not None else iter(())


def check(node: P.Plan, pred: X.Expr, g: tuple[X.Expr | None, ...], kind: str,
          timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """The verdict on candidate `g` (one predicate or None per input of `node`) for late filter
    `pred`. Predicates on several inputs are proved one input at a time as superset pushdowns,
    whatever `kind` asks, since each becomes a suggestion of its own."""
    rule = rule_for(node)
    if rule is None:
        return Verdict(False, kind, "", 0, f"{P.operator_name(node)} is not analysed")
    if limit_ms(timeout_ms) <= 1:  # the budget is spent: no check could prove anything now
        return Verdict(False, kind, "", 0, "time budget used up")
    if isinstance(node, P.Union):
        return rule.verify(node, pred, g, kind, timeout_ms)
    if sum(x is not None for x in g) > 1:
        each = [rule.verify(node, pred, only(g, i), SUPERSET, timeout_ms) for i, x in enumerate(g) if x is not None]
        failed = [v for v in each if not v.proved]
        if failed:
            return failed[0]
        if isinstance(node, P.InnerJoin):
            return replace(each[0], may_hide_errors=any(v.may_hide_errors for v in each))
    return rule.verify(node, pred, g, kind, timeout_ms)


def only(g: tuple[X.Expr | None, ...], i: int) -> tuple[X.Expr | None, ...]:
    """The candidate with input `i`'s predicate only.

    >>> [str(x) for x in only((X.TRUE, X.FALSE), 1)]
    ['None', 'False']
    """
    return tuple(x if j == i else None for j, x in enumerate(g))
