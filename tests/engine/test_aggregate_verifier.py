"""The AGGREGATE category on the paper's examples, at the level of the verifier.

Listing 1: `sum(revenue) > 1000` pushed as `revenue > 1000` passes a check on
one-row tables (the sum of one row is that row) but is wrong; the category's
pre-conditions and two-row base case must refuse it.
"""

from __future__ import annotations

import pytest
import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.aggregate_ops import Member, group_output
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.verify import aggregate
from magicpush_lab.symbolic.solver import prove
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

MONTH = X.Col("month", 1, "int")
REVENUE = X.Col("revenue", 2, "double")
WEEKDAY = X.Col("weekday", 3, "int")
OUT = X.Col("agg", 10, "double")


def groupby(agg: X.Agg) -> P.Aggregate:
    source = P.Source("sales", (MONTH, REVENUE, WEEKDAY))
    return P.Aggregate(source, (MONTH,), ((MONTH, MONTH), (OUT, agg)))


def gt(e: X.Expr, v: float) -> X.Expr:
    return X.Cmp(">", e, X.Lit(v, "double"))


def one_row_check(op: P.Aggregate, f: X.Expr, g: X.Expr) -> bool:
    """F(Aggr(T)) = Aggr(G(T)) on tables of exactly one row: what a naive bounded check sees."""
    ev = Evaluator()
    row = SymbolicRow("r")
    out = group_output(op, [Member(row, z3.BoolVal(True), z3.IntVal(1))], ev)
    return prove(truth(ev.eval(f, out)) == truth(ev.eval(g, row))).proved


def test_listing_1_sum_passes_one_row_but_is_refused():
    op = groupby(X.Agg("sum", REVENUE, "double"))
    f, g = gt(OUT, 1000), gt(REVENUE, 1000)
    assert one_row_check(op, f, g)  # the trap of Section 2.2
    for kind in (EQUIVALENT, SUPERSET):
        verdict = aggregate.verify(op, f, (g,), kind)
        assert not verdict.proved and "pre-condition" in verdict.reason
        # the counterexample is a group of two rows on which the rewrite changes the sum's verdict
        rows = verdict.counterexample["input 1"]
        assert len(rows) == 2 and len({r["month"] for r in rows}) == 1


def test_fig_1_max_pushes_as_equivalent():
    op = groupby(X.Agg("max", REVENUE, "double"))
    verdict = aggregate.verify(op, gt(OUT, 1000), (gt(REVENUE, 1000),), EQUIVALENT)
    assert verdict.proved and (verdict.category, verdict.base_case_rows) == ("AGGREGATE", 2)


def test_fig_1_3_conditional_max_pushes_the_branch_condition():
    weekend = X.In(WEEKDAY, (X.Lit(6, "int"), X.Lit(7, "int")))
    op = groupby(X.Agg("max", X.Case(((weekend, REVENUE),), X.Lit(None, "null")), "double"))
    g = X.and_(weekend, gt(REVENUE, 1000))
    assert aggregate.verify(op, gt(OUT, 1000), (g,), EQUIVALENT).proved
    # without the branch condition, a month with only big weekday sales keeps a row (max NULL):
    # not equivalent, but a correct superset pushdown since the late filter drops that row
    bound_only = (gt(REVENUE, 1000),)
    assert not aggregate.verify(op, gt(OUT, 1000), bound_only, EQUIVALENT).proved
    assert aggregate.verify(op, gt(OUT, 1000), bound_only, SUPERSET).proved


@pytest.mark.parametrize("agg,bound_ok", [
    (X.Agg("min", REVENUE, "double"), False),
    (X.Agg("max", REVENUE, "double"), True),
])
def test_min_and_max_differ(agg, bound_ok):
    op = groupby(agg)
    assert aggregate.verify(op, gt(OUT, 10), (gt(REVENUE, 10),), EQUIVALENT).proved is bound_ok


def test_global_aggregate_is_refused():
    source = P.Source("sales", (MONTH, REVENUE))
    op = P.Aggregate(source, (), ((OUT, X.Agg("max", REVENUE, "double")),))
    verdict = aggregate.verify(op, gt(OUT, 1000), (gt(REVENUE, 1000),), EQUIVALENT)
    assert not verdict.proved and "empty" in verdict.reason
