"""The FULLOUTERJ category: full outer joins, a category beyond the paper's seven.

A full outer join FJ(L, R) on condition c outputs
  (l, r)   for every pair with c(l, r) TRUE (a matched row),
  (l, NR)  for every l of L matched by no row of R (NR: the right columns, all NULL),
  (NL, r)  for every r of R matched by no row of L.
Unlike a left outer join neither input is the one that stays whole, so a row removed
on one side can change the output on the other: removing the only match of r makes
r's padded row (NL, r) appear.

Write F(l, r), F(l, NR), F(NL, r) for "the late filter keeps that output row", and Gl, Gr
for the pushed predicates (TRUE where nothing is pushed). The claims reduce to
conditions on one row l of L, one row r of R and the two padded rows made from them:

Superset F(FJ(L, R)) = F(FJ(Gl(L), Gr(R))):
  (j1)  c(l, r) and F(l, r) => Gl(l) and Gr(r)          every matched row F keeps survives
  (j2l) not Gl(l) => not F(l, NR)                          a removed left row's padded row fails F
  (j2r) not Gr(r) => not F(NL, r)
  (j3l) Gl(l) and F(l, NR) and c(l, r) => Gr(r)            removing r does not turn a kept l into a
  (j3r) Gr(r) and F(NL, r) and c(l, r) => Gl(l)            padded row that F keeps (and vice versa)
Equivalence F(FJ(L, R)) = FJ(Gl(L), Gr(R)):
  (e1)  c(l, r) => (F(l, r) <=> Gl(l) and Gr(r))
  (e2l) F(l, NR) <=> Gl(l)          (e2r) F(NL, r) <=> Gr(r)
  (e3l) c(l, r) and Gl(l) => Gr(r)  (e3r) c(l, r) and Gr(r) => Gl(l)

Why one row per input is a full proof (base case: 1 row per input, plus the two padded
rows built from them). The matched rows of both sides are the pairs (l, r) with c(l, r),
filtered by F on one side and by Gl, Gr (and F for superset) on the other: (j1) / (e1),
quantified over every pair, make them the same bag. A padded row (l, NR) exists when l is
matched by no row of R: if F(l, NR) fails (superset) it is dropped on both sides; if it
passes, (j2l) / (e2l) keep l, and a kept l has a match in Gr(R) exactly when it has one in
R, because (j3l) / (e3l) say every row of R that matches it passes Gr. Each of these
statements speaks of one l and one r at a time, so quantifying over single rows covers
tables of every size, duplicates included (each copy of a row is handled alike); the right
padded rows are the mirror image. So the conditions imply the claim for all L and R.

Conversely every violated condition shows on tables of at most one row per input, except
where an output row coincides with another (an input row whose every column is NULL). A
refused candidate's counterexample is therefore searched exactly, with bag semantics, on
tables of one and then two rows per input: what is reported really gives different outputs.

Equivalence with predicates on both inputs needs F to pass on exactly the padded rows Gl
and Gr keep: in practice F on the coalesced join key (`join(..., "k", "full")` then a filter
on k). The walk still proves each input's predicate alone as a superset pushdown, so each can
be applied by itself. Python UDFs (whose errors depend on whether a padded row exists) and
nondeterministic calls are refused.
"""

from __future__ import annotations

import time
from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Cell, default_value, sort_of
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, limit_ms, prove
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "FULLOUTERJ"
BASE_CASE_ROWS = 2  # one row of each input; the two NULL-padded rows are made from them
COUNTEREXAMPLE_ROWS = (1, 2)  # rows per input of the tables searched for a real difference


def verify(op: P.OuterJoin, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """Check candidate `g` (a predicate or None for the left and the right input) for late filter `f`."""
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    reason = _refusal(op, f, g)
    if reason:
        return verdicts.refuse(reason)
    with Modelling() as modelling:
        conditions, facts, ev = _conditions(op, f, g, kind)
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    # no Python UDF reaches here, so nothing can raise; the guard keeps the claim honest anyway
    proof = prove(z3.Implies(z3.And(facts, z3.Not(ev.error())), conditions), timeout_ms)
    if proof.proved:
        return verdicts.proved()
    if proof.model is None:
        return verdicts.refuse(proof.reason)
    example = counterexample(op, f, g, kind, timeout_ms)
    if not example:
        return verdicts.refuse(
            "the per-row conditions do not hold; no tables of up to "
            f"{COUNTEREXAMPLE_ROWS[-1]} rows per input show a difference, but nothing is proved")
    return verdicts.refuse("counterexample found", example)


def _refusal(op: P.OuterJoin, f: X.Expr, g: Sequence[X.Expr | None]) -> str:
    if op.preserved != "both":
        return f"preserved={op.preserved!r} is not a full outer join"
    if len(g) != 2:
        return f"{len(g)} predicates for a join"
    pushed = [x for x in g if x is not None]
    reason = nondeterministic(op.condition, f, *pushed)
    if reason:
        return reason
    if any(X.has_python_udf(e) for e in (f, op.condition, *pushed)):
        # whether a padded row exists depends on the whole other input, so a UDF's errors
        # cannot be placed on one row
        return "Python UDFs in the late filter, the join condition or the candidate are not analysed here"
    if not op.left.output or not op.right.output:
        return "columns of the join inputs unknown"
    return ""


def _conditions(op: P.OuterJoin, f: X.Expr, g: Sequence[X.Expr | None],
                kind: str) -> tuple[z3.BoolRef, z3.BoolRef, Evaluator]:
    """The per-row conditions of the module docstring, and the facts the input rows satisfy."""
    # one evaluator for both sides: the same uninterpreted call in F and in G is one function
    ev = Evaluator()
    left, right = SymbolicRow("left"), SymbolicRow("right")
    match = truth(ev.eval(op.condition, _joined(op, left, right)))
    f_both = truth(ev.eval(f, _joined(op, left, right)))
    f_left = truth(ev.eval(f, _joined(op, left, _nulls(op.right.output))))
    f_right = truth(ev.eval(f, _joined(op, _nulls(op.left.output), right)))
    gl = truth(ev.eval(g[0], left)) if g[0] is not None else z3.BoolVal(True)
    gr = truth(ev.eval(g[1], right)) if g[1] is not None else z3.BoolVal(True)
    if kind == EQUIVALENT:
        conditions = z3.And(
            z3.Implies(match, f_both == z3.And(gl, gr)),  # e1
            f_left == gl, f_right == gr,  # e2l, e2r
            z3.Implies(z3.And(match, gl), gr), z3.Implies(z3.And(match, gr), gl))  # e3l, e3r
    else:
        conditions = z3.And(
            z3.Implies(z3.And(match, f_both), z3.And(gl, gr)),  # j1
            z3.Implies(z3.Not(gl), z3.Not(f_left)), z3.Implies(z3.Not(gr), z3.Not(f_right)),  # j2l, j2r
            z3.Implies(z3.And(gl, f_left, match), gr), z3.Implies(z3.And(gr, f_right, match), gl))  # j3l, j3r
    return conditions, domain([left, right]), ev


def counterexample(op: P.OuterJoin, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
                   timeout_ms: int = DEFAULT_TIMEOUT_MS) -> dict[str, list[dict[str, object]]]:
    """Input tables on which the original and the rewritten pipeline give different bags, or {}.

    Searched exactly: small symbolic tables (rows with exists flags, every column of both
    inputs), the full outer join written out slot by slot, and the two outputs compared
    as bags, so rows that happen to be equal (an all-NULL input row) cannot fake a difference.
    """
    for n in COUNTEREXAMPLE_ROWS:
        with Modelling() as modelling:
            lefts = _table(op.left.output, "L", n)
            rights = _table(op.right.output, "R", n)
            ev = Evaluator()
            original = _full_join(op, f, lefts, rights, lambda row: row.exists, True, ev)
            kept = {id(r): _kept(g[0], r, ev) for r in lefts} | {id(r): _kept(g[1], r, ev) for r in rights}
            rewritten = _full_join(op, f, lefts, rights, lambda row: kept[id(row)], kind != EQUIVALENT, ev)
        if modelling.failed:
            return {}
        facts = z3.And(domain(lefts + rights), z3.Not(ev.error()))
        proof = prove(z3.Implies(facts, _same_bag(original, rewritten)), timeout_ms)
        if proof.model is not None:
            return tables_from_model(proof.model, [lefts, rights])
    return {}


def first_failure(op: P.OuterJoin, f: X.Expr, tried: Sequence[Sequence[X.Expr | None]],
                  timeout_ms: int = 500, total_ms: int = 1500) -> tuple[str, dict]:
    """The first refused candidate that has a counterexample, and that counterexample.

    Checked as a superset pushdown, the weaker claim: a counterexample to it refutes
    equivalence too, so the tables shown are a real difference whichever was asked.
    It only explains a refusal, so it stops looking after `total_ms`.
    """
    deadline = time.monotonic() + limit_ms(total_ms) / 1000
    for g in tried:
        if time.monotonic() >= deadline:
            break
        verdict = verify(op, f, g, SUPERSET, timeout_ms)
        if not verdict.proved and verdict.counterexample:
            return ", ".join(str(x) for x in g if x is not None), verdict.counterexample
    return "", {}


Slot = tuple[tuple[Cell, ...], z3.BoolRef]  # an output row's cells and whether it is in the output


def _table(columns: tuple[X.Col, ...], tag: str, n: int) -> list[SymbolicRow]:
    rows = [SymbolicRow(f"{tag}{i}", exists=z3.Bool(f"exists_{tag}{i}")) for i in range(n)]
    for row in rows:
        for c in columns:
            row.cell(c)  # every column, so the counterexample and the row comparison see them all
    return rows


def _kept(pred: X.Expr | None, row: SymbolicRow, ev: Evaluator) -> z3.BoolRef:
    return row.exists if pred is None else z3.And(row.exists, truth(ev.eval(pred, row)))


def _full_join(op: P.OuterJoin, f: X.Expr, lefts: list[SymbolicRow], rights: list[SymbolicRow],
               present, filtered: bool, ev: Evaluator) -> list[Slot]:
    """Every row the join can output, with the condition under which it is in `F(FJ(...))`
    (or `FJ(...)` when not `filtered`); `present(row)` says whether an input row is there."""
    cols_l, cols_r = op.left.output, op.right.output
    null_l, null_r = _nulls(cols_l), _nulls(cols_r)
    matched = {(i, j): z3.And(present(l), present(r), truth(ev.eval(op.condition, _joined(op, l, r))))
               for i, l in enumerate(lefts) for j, r in enumerate(rights)}
    made = [(lefts[i], rights[j], there) for (i, j), there in matched.items()]
    made += [(l, null_r, z3.And(present(l), z3.Not(z3.Or(*[matched[i, j] for j in range(len(rights))]))))
             for i, l in enumerate(lefts)]
    made += [(null_l, r, z3.And(present(r), z3.Not(z3.Or(*[matched[i, j] for i in range(len(lefts))]))))
             for j, r in enumerate(rights)]
    slots = []
    for l, r, there in made:
        row = _joined(op, l, r)
        keep = z3.And(there, truth(ev.eval(f, row))) if filtered else there
        slots.append((tuple(row.cell(c) for c in cols_l + cols_r), keep))
    return slots


def _same_bag(a: list[Slot], b: list[Slot]) -> z3.BoolRef:
    """The two outputs hold every row the same number of times (cells compared null-safely)."""
    def count(slots: list[Slot], cells: tuple[Cell, ...]) -> z3.ArithRef:
        return z3.Sum(*[z3.If(z3.And(there, _same_row(cells, other)), 1, 0) for other, there in slots])

    return z3.And(*[z3.Implies(there, count(a, cells) == count(b, cells)) for cells, there in a + b])


def _same_row(x: tuple[Cell, ...], y: tuple[Cell, ...]) -> z3.BoolRef:
    return z3.And(*[z3.And(p.notnull == q.notnull, z3.Implies(p.notnull, p.value == q.value))
                    for p, q in zip(x, y)])


def _joined(op: P.OuterJoin, left: SymbolicRow, right: SymbolicRow) -> SymbolicRow:
    """The output row made of `left` and `right` (either may be a NULL-padded row)."""
    left_keys = frozenset((c.name, c.id) for c in op.left.output)
    right_keys = frozenset((c.name, c.id) for c in op.right.output)
    return SymbolicRow(left.tag + right.tag, route=[(left_keys, left), (right_keys, right)])


def _nulls(columns: tuple[X.Col, ...]) -> SymbolicRow:
    """The padding: every column of one input NULL."""
    row = SymbolicRow("padding")
    for c in columns:
        row.cells[(c.name, c.id)] = Cell(default_value(sort_of(c.dtype)), z3.BoolVal(False))
    return row
