"""The TOPK category: orderBy(...).limit(k).

Instead of a base case of k+1 symbolic rows (the paper's bound grows with k),
the late filter is moved below the limit when it is *prefix-closed* in the sort
order: whenever it keeps a row, it keeps every row that sorts before it or ties
with it. Then the rows it keeps are a prefix P of the sorted input, and
  |P| <= k:  F(TopK(T)) = P = TopK(F(T))
  |P| >  k:  F(TopK(T)) = TopK(T) = first k rows of P = TopK(F(T)),
for every k. The condition speaks of two rows, so it is proved on a base case
of 2 rows whatever k is. Rows that tie in the sort order get the same verdict
from F, so the choice Spark makes among ties at the k-th row is the same kind of
choice in both pipelines. Nothing else is pushed through a limit.
"""

from __future__ import annotations

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, compare, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Unsupported
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.verify.verdict import EQUIVALENT, Verdict

CATEGORY = "TOPK"
BASE_CASE_ROWS = 2


def verify(op: P.TopK, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    def refuse(reason: str, example: dict | None = None) -> Verdict:
        return Verdict(False, kind, CATEGORY, BASE_CASE_ROWS, reason, example or {})

    if kind != EQUIVALENT or len(g) != 1 or g[0] != f:
        return refuse("only the late filter itself can move below a limit")
    node = X.first_nondeterministic(f, *(k for k, _, _ in op.order))
    if node is not None:
        return refuse(f"{node} is nondeterministic")
    try:
        ev = Evaluator()
        r1, r2 = SymbolicRow("first"), SymbolicRow("second")
        before = _sorts_no_later(op, r1, r2, ev)
        keeps1, keeps2 = truth(ev.eval(f, r1)), truth(ev.eval(f, r2))
    except (Unsupported, z3.Z3Exception) as err:
        return refuse(f"cannot model: {err}")
    facts = domain([r1, r2])
    # below the limit F runs on every row, above it only on k of them: it must not raise anywhere
    no_errors = prove(z3.Implies(facts, z3.Not(ev.error())), timeout_ms)
    if not no_errors.proved:
        return refuse("the late filter can raise on rows the limit would have dropped")
    proof = prove(z3.Implies(z3.And(facts, before, keeps2), keeps1), timeout_ms)
    if not proof.proved:
        # a strict order makes the counterexample's difference independent of how ties break
        strict = prove(z3.Implies(z3.And(facts, before, z3.Not(_sorts_no_later(op, r2, r1, ev)), keeps2), keeps1),
                       timeout_ms)
        model = strict.model if strict.model is not None else proof.model
        return refuse(f"the late filter is not prefix-closed in the sort order: {proof.reason}",
                      _counterexample(model, op.k, r1, r2) if model is not None else {})
    return Verdict(True, kind, CATEGORY, BASE_CASE_ROWS, "proved")


def _counterexample(model: z3.ModelRef, k: int, first: SymbolicRow, second: SymbolicRow) -> dict:
    """k copies of the row F drops, then the row F keeps: the limit keeps only the copies, so the
    original returns nothing, while filtering first leaves the second row to the limit."""
    (table,) = tables_from_model(model, [[first, second]]).values()
    if len(table) != 2:
        return {"input 1": table}
    return {"input 1": [table[0]] * k + [table[1]]}


def _sorts_no_later(op: P.TopK, a: SymbolicRow, b: SymbolicRow, ev: Evaluator) -> z3.BoolRef:
    """Row a comes before b or ties with it, under the operator's lexicographic order."""
    result: z3.BoolRef = z3.BoolVal(True)  # all keys equal: a tie
    for key, ascending, nulls_first in reversed(op.order):
        x, y = ev.eval(key, a), ev.eval(key, b)
        both = z3.And(x.notnull, y.notnull)
        less = z3.Or(z3.And(both, compare("<" if ascending else ">", x.value, y.value)),
                     z3.And(z3.Not(x.notnull), y.notnull) if nulls_first else z3.And(x.notnull, z3.Not(y.notnull)))
        equal = z3.Or(z3.And(both, x.value == y.value), z3.And(z3.Not(x.notnull), z3.Not(y.notnull)))
        result = z3.Or(less, z3.And(equal, result))
    return result
