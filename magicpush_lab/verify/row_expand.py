"""The ROW-EXPAND category: explode, posexplode, explode_outer, inline, and UnPivot (paper, Table 2).

Each input row becomes any number of output rows that repeat its columns and
add generated ones. A late filter that gives the same verdict to every output
row of an input row (in particular, one that reads no generated column) keeps
or drops each input row's expansion whole, so it can run before the expansion:
  F(Expand(T)) = Expand(G(T))  when  for every row r and generated values e, F(r, e) <=> G(r).
No pre-condition; base case 1 row, with the generated values left free. Below
the expansion G also runs on rows whose array is empty, which the original
never filters, so G must not be able to raise.
"""

from __future__ import annotations

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import apply_op
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import literal
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove, satisfiable
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "ROW-EXPAND"
BASE_CASE_ROWS = 1


def verify(op: P.RowExpand, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    pred = g[0] if len(g) == 1 else None
    if kind == SUPERSET and pred is not None and any(isinstance(c, X.ArrayExists) for c in X.conjuncts(pred)):
        return _element_superset(op, f, pred, timeout_ms)
    if kind != EQUIVALENT or pred is None:
        return verdicts.refuse("only an equivalent predicate on the input row is analysed")
    if X.columns(pred) & set(op.generated):
        return verdicts.refuse("the predicate reads a generated column, which the input does not have")
    reason = nondeterministic(f, pred)
    if reason:
        return verdicts.refuse(reason)
    with Modelling() as modelling:
        row = SymbolicRow("in0")
        out = SymbolicRow("out", route=[(None, row)])  # generated cells are fresh: any value or NULL
        original, rewritten = Evaluator(), Evaluator()
        keeps = truth(original.eval(f, out))
        pushed = truth(rewritten.eval(pred, row))
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    facts = domain([row])
    if not prove(z3.Implies(facts, z3.Not(rewritten.error())), timeout_ms).proved:
        return verdicts.refuse("the predicate can raise on rows the expansion would have dropped")
    proof = prove(z3.Implies(z3.And(facts, z3.Not(original.error())), keeps == pushed), timeout_ms)
    if not proof.proved:
        example = _exploded(op, tables_from_model(proof.model, [[row]])) if proof.model is not None else {}
        return verdicts.refuse(
            f"the filter's verdict depends on the generated values: {proof.reason}", example)
    # an RDD flatMap's function (and createDataFrame's check of each element) runs in Python and
    # may raise on a row the pushed filter drops
    return verdicts.proved(may_hide_errors=op.generator == "flatMap")


def _element_superset(op: P.RowExpand, f: X.Expr, pred: X.Expr, timeout_ms: int) -> Verdict:
    """G = R AND exists(array, x -> B(x)) below explode, late filter kept (R, on the row's own
    columns, may be absent): every made row (r, e) that F keeps must come from an r that G
    keeps. The solver knows e is an element of r's array, so "B(e) is TRUE" makes the exists
    TRUE (the one fact about `exists` it needs, for this e); it must prove F(r, e) => G(r).
    explode_outer also makes a row with a NULL element for an empty or NULL array, which G
    drops: F must never keep that row."""
    verdicts = Verdicts(SUPERSET, CATEGORY, BASE_CASE_ROWS)
    found = [c for c in X.conjuncts(pred) if isinstance(c, X.ArrayExists)]
    if len(found) != 1 or op.array is None or found[0].array != op.array:
        return verdicts.refuse("the predicate tests another array than the one exploded")
    exists = found[0]
    element = op.generated[-1]
    if X.columns(f) & set(op.generated[:-1]):
        return verdicts.refuse("the late filter reads the element's position")
    if X.columns(pred) & set(op.generated):
        return verdicts.refuse("the predicate reads a generated column, which the input does not have")
    reason = nondeterministic(f, pred)
    if reason:
        return verdicts.refuse(reason)
    with Modelling() as modelling:
        row = SymbolicRow("in0")
        made = SymbolicRow("out", route=[(None, row)])  # the element: any value or NULL
        original, rewritten = Evaluator(), Evaluator()
        keeps = truth(original.eval(f, made))
        kept = truth(rewritten.eval(pred, row))
        some_element = truth(rewritten.eval(exists, row))
        body_on_element = truth(rewritten.eval(X.substitute(exists.body, {exists.var: element}), made))
        padded = SymbolicRow("pad", route=[(None, row)])
        for c in op.generated:
            padded.cells[(c.name, c.id)] = literal(None, c.dtype)
        pad_kept = truth(original.eval(f, padded)) if op.outer else z3.BoolVal(False)
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    facts = z3.And(domain([row, made]), z3.Implies(body_on_element, some_element))
    proof = prove(z3.Implies(z3.And(facts, z3.Not(original.error())), z3.Implies(keeps, kept)), timeout_ms)
    if not proof.proved:
        example = _exploded(op, tables_from_model(proof.model, [[row]])) if proof.model is not None else {}
        return verdicts.refuse(
            f"the late filter keeps an element the predicate does not test: {proof.reason}", example)
    if op.outer:
        proof = prove(z3.Implies(z3.And(domain([row]), z3.Not(original.error())), z3.Not(pad_kept)), timeout_ms)
        if not proof.proved:
            example = _exploded(op, tables_from_model(proof.model, [[row]])) if proof.model is not None else {}
            return verdicts.refuse(
                "the late filter keeps the NULL element explode_outer makes for an empty array",
                example)
    # exists stops at the first element that passes, so it may skip one on which F would raise
    hides = satisfiable(z3.And(domain([row, made]), original.error()), timeout_ms)
    return verdicts.proved(may_hide_errors=hides is not False)


def _exploded(op: P.RowExpand, example: dict) -> dict:
    """The generated cells the proof chose (the element, its position) put back into the input
    row's array, so the counterexample is an input table: the element at its position, NULLs
    before it. Without a readable array column the generated values are shown as they are."""
    if not isinstance(op.array, X.Col) or not example.get("input 1"):
        return example
    (row,) = example["input 1"]
    names = [c.name for c in op.generated]
    made = {n: row.pop(n) for n in names if n in row}
    element = made.get(names[-1])
    position = made.get(names[0]) if len(names) == 2 else 0
    if not isinstance(position, int) or not 0 <= position < 16:
        position = 0
    row[op.array.name] = [None] * position + [element]
    return example


def verify_unpivot(op: P.Expand, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
                   timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """UnPivot (Expand): each input row r becomes the rows p_1(r) .. p_K(r), one per projection.

    One input row is the base case, and the claims are per projection:
      equivalence  F(p_i(r)) <=> G(r) for every i (each made row kept exactly when r is);
      superset     F(p_i(r)) => G(r) for every i (no made row that F keeps is lost).
    As everywhere, where the original does not raise the rewrite must not raise either.
    """
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    pred = g[0] if len(g) == 1 else None
    if pred is None:
        return verdicts.refuse("no predicate for the input")
    reason = nondeterministic(f, pred, *(e for p in op.projections for e in p))
    if reason:
        return verdicts.refuse(reason)
    with Modelling() as modelling:
        row = SymbolicRow("in0")
        original, rewritten = Evaluator(), Evaluator()
        keeps = []
        for i, projection in enumerate(op.rows()):
            made = apply_op(P.Project(op.child, tuple(projection.items())), [row], original)
            keeps.append(truth(original.eval(f, made)))
        pushed = truth(rewritten.eval(pred, row))
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    if kind == EQUIVALENT:
        holds = z3.And(*(k == pushed for k in keeps))
    else:
        holds = z3.And(*(z3.Implies(k, pushed) for k in keeps))
    facts = domain([row])
    err_l, err_r = original.error(), rewritten.error()
    proof = prove(z3.Implies(z3.And(facts, z3.Not(err_l)), z3.And(z3.Not(err_r), holds)), timeout_ms)
    if not proof.proved:
        example = tables_from_model(proof.model, [[row]]) if proof.model is not None else {}
        return verdicts.refuse(
            f"some row the unpivot makes is {'kept differently' if kind == EQUIVALENT else 'lost'}:"
            f" {proof.reason}", example)
    hides = satisfiable(z3.And(facts, err_l, z3.Not(err_r)), timeout_ms)
    return verdicts.proved(may_hide_errors=hides is not False)
