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
choice in both pipelines.

A superset pushdown adds a prefix-closed G with F => G on every row and keeps F: then
TopK(G(T)) = G(TopK(T)) as above, and F(G(TopK(T))) = F(TopK(T)), so a conjunct such as
`amount > 999` moves below `orderBy(desc("amount")).limit(k)` when the late filter also
reads another column.

Sort keys compare as Spark compares them: NaN above every number and equal to itself,
-0.0 equal to 0.0. Where the keys and G only compare doubles (or pass them through CASE,
coalesce, greatest/least), a table's doubles map to reals that sort and compare the same
way, so the proof over the reals covers NaN; arithmetic on a double, a Python UDF reading
one, or a function telling -0.0 from 0.0 is refused by name (symbolic/nan.order_gap).
"""

from __future__ import annotations

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic import nan
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import sorts_no_later
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.verify.verdict import EQUIVALENT, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "TOPK"
BASE_CASE_ROWS = 2


def verify(op: P.TopK, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    pred = g[0] if len(g) == 1 else None
    if pred is None or (kind == EQUIVALENT and pred != f):
        return verdicts.refuse("only the late filter itself can replace it below a limit")
    keys = tuple(k for k, _, _ in op.order)
    reason = nondeterministic(f, pred, *keys)
    if reason:
        return verdicts.refuse(reason)
    gap = nan.order_gap((pred, *keys))
    if gap:
        return verdicts.refuse(f"{gap}: the rows a limit keeps are compared over the reals")
    with Modelling() as modelling:
        ev = Evaluator()
        r1, r2 = SymbolicRow("first"), SymbolicRow("second")
        before = sorts_no_later(op.order, r1, r2, ev)
        keeps1, keeps2 = truth(ev.eval(pred, r1)), truth(ev.eval(pred, r2))
        implied = _implied(f, pred) if pred != f else None
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    facts = z3.And(domain([r1, r2]), nan.order_facts(ev, [r1, r2], (pred, *keys)))
    # below the limit G runs on every row, above it F ran only on k of them: G must not raise anywhere
    no_errors = prove(z3.Implies(facts, z3.Not(ev.error())), timeout_ms)
    if not no_errors.proved:
        return verdicts.refuse("the predicate can raise on rows the limit would have dropped")
    if implied is not None:
        proof = prove(implied[0], timeout_ms)
        if not proof.proved:
            example = tables_from_model(proof.model, [[implied[1]]]) if proof.model is not None else {}
            return verdicts.refuse(
                f"the predicate does not keep every row the late filter keeps: {proof.reason}", example)
    proof = prove(z3.Implies(z3.And(facts, before, keeps2), keeps1), timeout_ms)
    if not proof.proved:
        # a strict order makes the counterexample's difference independent of how ties break
        strict = prove(z3.Implies(z3.And(facts, before, z3.Not(sorts_no_later(op.order, r2, r1, ev)), keeps2),
                                  keeps1), timeout_ms)
        model = strict.model if strict.model is not None else proof.model
        return verdicts.refuse(
            f"the predicate is not prefix-closed in the sort order: {proof.reason}",
            _counterexample(model, op.k, r1, r2) if model is not None else {})
    return verdicts.proved()


def _implied(f: X.Expr, pred: X.Expr) -> tuple[z3.BoolRef, SymbolicRow]:
    """On one row: F keeps it => G keeps it (a superset G may be weaker than F)."""
    row, original, rewritten = SymbolicRow("row"), Evaluator(), Evaluator()
    keeps_f, keeps_g = truth(original.eval(f, row)), truth(rewritten.eval(pred, row))
    return z3.Implies(z3.And(domain([row]), z3.Not(original.error())), z3.Implies(keeps_f, keeps_g)), row


def _counterexample(model: z3.ModelRef, k: int, first: SymbolicRow, second: SymbolicRow) -> dict:
    """k copies of the row F drops, then the row F keeps: the limit keeps only the copies, so the
    original returns nothing, while filtering first leaves the second row to the limit."""
    (table,) = tables_from_model(model, [[first, second]]).values()
    if len(table) != 2:
        return {"input 1": table}
    return {"input 1": [table[0]] * k + [table[1]]}
