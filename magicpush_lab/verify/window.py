"""Window functions (the paper's CumAggr, category AGGREGATE): partition-constant filters.

A window value of a row depends only on the rows of its partition. A late
filter that reads only the input's columns and gives the same verdict to every
row of a partition keeps or drops whole partitions, so the window values of the
rows it keeps do not change when it runs first:
  F(Window(T)) = Window(F(T))  when  same_partition(r1, r2) => (F(r1) <=> F(r2)).
The condition speaks of two rows and is proved on 2 symbolic rows; partitions
compare their keys null-safely. A filter on a window's output (row_number() <= 3,
a running sum) is never pushed.
"""

from __future__ import annotations

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Unsupported
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.verify.verdict import EQUIVALENT, Verdict

CATEGORY = "AGGREGATE"
BASE_CASE_ROWS = 2


def verify(op: P.Window, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    def refuse(reason: str, example: dict | None = None) -> Verdict:
        return Verdict(False, kind, CATEGORY, BASE_CASE_ROWS, reason, example or {})

    if kind != EQUIVALENT or len(g) != 1 or g[0] != f:
        return refuse("only the late filter itself can move below a window")
    if X.columns(f) & set(op.computed):
        return refuse("the late filter reads a window function's result")
    node = X.first_nondeterministic(f, *op.partition)
    if node is not None:
        return refuse(f"{node} is nondeterministic")
    try:
        ev = Evaluator()
        r1, r2 = SymbolicRow("first"), SymbolicRow("second")
        same = []
        for key in op.partition:
            a, b = ev.eval(key, r1), ev.eval(key, r2)
            same.append(z3.Or(z3.And(z3.Not(a.notnull), z3.Not(b.notnull)),
                              z3.And(a.notnull, b.notnull, a.value == b.value)))
        keeps1, keeps2 = truth(ev.eval(f, r1)), truth(ev.eval(f, r2))
    except (Unsupported, z3.Z3Exception) as err:
        return refuse(f"cannot model: {err}")
    facts = z3.And(domain([r1, r2]), z3.Not(ev.error()), *same)
    proof = prove(z3.Implies(facts, keeps1 == keeps2), timeout_ms)
    if not proof.proved:
        example = tables_from_model(proof.model, [[r1, r2]]) if proof.model is not None else {}
        return refuse(f"the late filter is not constant within a partition: {proof.reason}", example)
    return Verdict(True, kind, CATEGORY, BASE_CASE_ROWS, "proved")
