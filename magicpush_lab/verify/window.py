"""Window functions (the paper's CumAggr, category AGGREGATE).

A window value of a row depends only on rows of its partition, and on which of them its
frame reads (ir/plan.WindowCall.reads): the rows sorting before the current row or tying
with it (`row_number`, `rank`, `lag`, a running sum, `first` over the default frame), the
rows sorting after it (`lead`, a frame ending at UNBOUNDED FOLLOWING), or both (a frame
around the row, no ORDER BY, `percent_rank`, `ntile`). A predicate G on the window's input
columns that keeps, with every row it keeps, every row its window values read keeps
those values as they were:
  before: same_partition(r1, r2) and r1 sorts no later than r2 and G(r2) => G(r1)
  after:  same_partition(r1, r2) and r2 sorts no later than r1 and G(r2) => G(r1)
  both:   same_partition(r1, r2) and G(r2) => G(r1)  (G keeps or drops whole partitions)
Where every function skips rows whose argument is NULL and its frame is not counted in rows
(ir/plan.WindowCall.reads_only_non_null), only the rows some function reads need to stay:
each condition gets "and an argument of r1 is not NULL" among its premises.
Then W(G(T)) = G(W(T)) for every table T. Each condition speaks of two rows and is proved
on 2 symbolic rows, whatever the partitions' sizes. With it:
  equivalent: F = G on every row (the window's results free), so F(W(T)) = W(G(T));
  superset:   F => G on every row, so F(W(G(T))) = F(G(W(T))) = F(W(T)).
So a filter on the partition keys moves below any window, and so does a filter that keeps
a prefix of each partition's order below `row_number() ... == 1`, `lag` or a running sum
(`ts >= '2024-01-01'` under `orderBy(desc("ts"))`), while a filter on any other column
stays. A filter on a window's result is never moved (only the conjuncts beside it).

Rows that tie in the order get the same verdict from G, so which of them Spark numbers
first is the same kind of choice in both pipelines (as in TOPK). Partition and order keys
compare as Spark compares them, NaN above every number and equal to itself, -0.0 equal to
0.0; where a key or G does more with a double than compare it, the proof over the reals
does not cover NaN and the walk is refused (symbolic/nan.order_gap names the construct).
"""

from __future__ import annotations

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic import nan
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import same_keys, sorts_no_later
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.verify.verdict import EQUIVALENT, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "AGGREGATE"
BASE_CASE_ROWS = 2


def verify(op: P.Window, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    pred = g[0] if len(g) == 1 else None
    if pred is None:
        return verdicts.refuse("no predicate for the window's input")
    read = sorted(X.columns(pred) & set(op.computed), key=str)
    if read:
        return verdicts.refuse(f"the predicate reads {describe(op, read[0])}")
    read = sorted(X.columns(f) & set(op.computed), key=str)
    if kind == EQUIVALENT and read:
        return verdicts.refuse(
            f"the late filter reads {describe(op, read[0])}, which a filter below the window would change")
    keys = (*op.partition, *(k for k, _, _ in op.order))
    reason = nondeterministic(f, pred, *keys, *(a for c in op.calls for a in c.args))
    if reason:
        return verdicts.refuse(reason)
    gap = nan.order_gap((pred, *keys))
    exposed = nan.exposed_arguments((f,), pred)
    if gap:
        return verdicts.refuse(f"{gap}: the window's rows are related over the reals")
    if exposed:
        return verdicts.refuse(
            f"the late filter passes {exposed[0]} to a Python UDF, where NaN compares unlike in Spark")
    with Modelling() as modelling:
        claims, rows, hint = _closed(op, pred)
        row_claim = _row_claim(f, pred, kind)
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    for why, claim in claims:
        proof = prove(claim, timeout_ms)
        if not proof.proved:
            model = _telling_model(claim, hint, timeout_ms) or proof.model
            example = tables_from_model(model, [rows]) if model is not None else {}
            return verdicts.refuse(f"{why}: {proof.reason}", example)
    proof = prove(row_claim[0], timeout_ms)
    if not proof.proved:
        example = tables_from_model(proof.model, [[row_claim[1]]]) if proof.model is not None else {}
        relation = "keep the same rows" if kind == EQUIVALENT else "keep every row the late filter keeps"
        return verdicts.refuse(f"the predicate does not {relation}: {proof.reason}", example)
    return verdicts.proved()


def _closed(op: P.Window, pred: X.Expr) -> tuple[list[tuple[str, z3.BoolRef]], list[SymbolicRow], z3.BoolRef]:
    """The two-row conditions under which `pred` leaves every kept row's window values as they
    were, for what the window's functions read (module docstring); and a hint for a telling
    counterexample: the first row's numeric arguments are not 0 (a dropped 0 leaves a sum alone)."""
    ev = Evaluator()
    r1, r2 = SymbolicRow("first"), SymbolicRow("second")
    same = same_keys(op.partition, r1, r2, ev)
    keeps1, keeps2 = truth(ev.eval(pred, r1)), truth(ev.eval(pred, r2))
    read = _read(op, r1, ev)  # r1 is one a window function reads (always, unless all skip NULLs)
    reads = op.reads()
    conditions = []
    if "partition" in reads or {"before", "after"} <= reads:
        conditions.append(("the predicate is not constant within a partition",
                           z3.Implies(z3.And(same, keeps2, read), keeps1)))
    elif "before" in reads:
        before = sorts_no_later(op.order, r1, r2, ev)
        conditions.append(("the predicate does not keep every row of a partition that sorts before one it keeps",
                           z3.Implies(z3.And(same, before, keeps2, read), keeps1)))
    elif "after" in reads:
        after = sorts_no_later(op.order, r2, r1, ev)
        conditions.append(("the predicate does not keep every row of a partition that sorts after one it keeps",
                           z3.Implies(z3.And(same, after, keeps2, read), keeps1)))
    keys = (*op.partition, *(k for k, _, _ in op.order))
    facts = z3.And(domain([r1, r2]), z3.Not(ev.error()), nan.order_facts(ev, [r1, r2], (pred, *keys)))
    hint = z3.And(*(z3.Or(z3.Not(cell.notnull), cell.value != 0) for cell in
                    (ev.eval(a, r1) for c in op.calls for a in c.args[:1]) if cell.value.sort() in _NUMBERS))
    return [(why, z3.Implies(facts, c)) for why, c in conditions], [r1, r2], hint


_NUMBERS = (z3.IntSort(), z3.RealSort())


def _telling_model(claim: z3.BoolRef, hint: z3.BoolRef, timeout_ms: int) -> z3.ModelRef | None:
    """A model refuting `claim` where `hint` holds, or None (then the plain one is shown)."""
    proof = prove(z3.Implies(hint, claim), timeout_ms)
    return None if proof.proved else proof.model


def _read(op: P.Window, row: SymbolicRow, ev: Evaluator) -> z3.BoolRef:
    """That a window function reads `row`: when every function skips rows whose argument is NULL
    (WindowCall.reads_only_non_null), that one of its arguments is not NULL; true otherwise.
    A predicate need keep only such rows with a row it keeps:
    `first(when(year == 2007, v), ignorenulls=True)` reads the 2007 rows alone, so `year >= 2007`
    may move below it."""
    if not op.calls or len(op.calls) != len(op.computed) or not all(c.reads_only_non_null() for c in op.calls):
        return z3.BoolVal(True)
    return z3.Or(*(ev.eval(c.args[0], row).notnull for c in op.calls))


def _row_claim(f: X.Expr, pred: X.Expr, kind: str) -> tuple[z3.BoolRef, SymbolicRow]:
    """On one row (the window's results free): F = G (equivalent) or F => G (superset), and G
    does not raise where F does not (it runs on the same rows, below the window)."""
    row = SymbolicRow("row")
    original, rewritten = Evaluator(), Evaluator()
    keeps_f, keeps_g = truth(original.eval(f, row)), truth(rewritten.eval(pred, row))
    relation = keeps_f == keeps_g if kind == EQUIVALENT else z3.Implies(keeps_f, keeps_g)
    claim = z3.Implies(z3.And(domain([row]), z3.Not(original.error())),
                       z3.And(z3.Not(rewritten.error()), relation))
    return claim, row


def describe(op: P.Window, col: X.Col) -> str:
    """A computed column as the user wrote it: `rn, row_number() over (partition by k order by ts DESC)`."""
    if len(op.calls) != len(op.computed) or col not in op.computed:
        return f"{col}, a window function's result"
    call = op.calls[op.computed.index(col)]
    spec = []
    if op.partition:
        spec.append("partition by " + ", ".join(map(str, op.partition)))
    if op.order:
        spec.append("order by " + ", ".join(f"{k}{'' if asc else ' DESC'}" for k, asc, _ in op.order))
    return f"{col}, {call.fn}({', '.join(map(str, call.args))}) over ({' '.join(spec)})"
