"""A join condition's conjunct on one input, applied to that input before the join.

Spark's optimizer does this for its own joins; a notebook's join can carry such a conjunct
in its condition (`orders.join(lineitem, (o_orderkey == l_orderkey) & (l_commitdate <
l_receiptdate), "left_semi")`, TPC-H Q4). Rows of input i on which G is not TRUE never
satisfy the condition, so they match no row of the other input; when unmatched rows of
input i do not reach the output (inner and semi joins, the non-preserved side of an outer
join, the right side of an anti join), removing them changes nothing: an equivalent
rewrite in which the join keeps its condition.

Proved on one row of each input (whether a pair matches depends on that pair only):
  condition(l, r) TRUE  =>  G(row of input i) TRUE,
and G must not raise on any row, since the rewrite evaluates it on rows the join might
never have compared with anything (an empty other input).
"""

from __future__ import annotations

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import apply_op
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.verify.counterexample import rows_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.verify.verdict import EQUIVALENT, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "ROW-TO-ROW"
BASE_CASE_ROWS = 1


def unmatched_rows_dropped(join: P.Plan, side: int) -> bool:
    """Whether rows of input `side` that match nothing are absent from the join's output."""
    if isinstance(join, P.InnerJoin):
        return True
    if isinstance(join, P.SemiJoin):
        return side == 1 or not join.anti
    if isinstance(join, P.OuterJoin):
        return join.preserved != "both" and side == (1 if join.preserved == "left" else 0)
    return False


def verify(join: P.Plan, side: int, g: X.Expr, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    verdicts = Verdicts(EQUIVALENT, CATEGORY, BASE_CASE_ROWS)
    if not unmatched_rows_dropped(join, side):
        return verdicts.refuse("unmatched rows of this input reach the output")
    condition: X.Expr = join.condition  # type: ignore[union-attr]
    if not X.columns(g) <= set(join.children[side].output):
        return verdicts.refuse("the predicate reads columns of the other input")
    reason = nondeterministic(condition, g)
    if reason:
        return verdicts.refuse(reason)
    if X.has_python_udf(g):
        return verdicts.refuse("a Python UDF in the predicate may raise where the join never called it")
    with Modelling() as modelling:
        rows = [SymbolicRow("in0"), SymbolicRow("in1")]
        ev = Evaluator()
        pair = apply_op(P.InnerJoin(join.children[0], join.children[1], X.TRUE), rows, ev)
        matches = truth(ev.eval(condition, pair))
        passes = truth(ev.eval(g, rows[side]))
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    facts = domain(rows)
    if not prove(z3.Implies(facts, z3.Not(ev.error())), timeout_ms).proved:
        return verdicts.refuse("the condition or the predicate can raise")
    proof = prove(z3.Implies(z3.And(facts, matches), passes), timeout_ms)
    if not proof.proved:
        example = rows_from_model(proof.model, rows) if proof.model is not None else {}
        return verdicts.refuse(f"a row failing the predicate can still match: {proof.reason}", example)
    return verdicts.proved()
