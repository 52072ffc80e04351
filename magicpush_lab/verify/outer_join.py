"""The LEFTOUTERJ category: left and right outer joins (paper, Table 2).

Rows of the preserved input (p) never interact, so one preserved row covers
them all. For that row and a right-hand table R, let M be the rows of R that
match. The join outputs (p, r) for r in M, or (p, NULL...) when M is empty.
Writing F(p, r) for "the late filter keeps the joined row" and N for the
NULL-padded row, the claims reduce exactly to conditions on one row of each
input (conditions over every R follow by taking R = {r}, and imply the claim
for every R by the case split M empty / not empty):

Equivalence F(LJ(P, R)) = LJ(Gp(P), Go(R)):
  (a) match(p, r) => (F(p, r) <=> Gp(p) and Go(r))
  (b) F(p, N) <=> Gp(p)
  (c) match(p, r) and Gp(p) => Go(r)
Superset F(LJ(P, R)) = F(LJ(Gp(P), Go(R))):
  (s1) not Gp(p) and match(p, r) => not F(p, r)
  (s2) not Gp(p) => not F(p, N)
  (s3) match(p, r) and F(p, r) => Go(r)          (Table 2's pre-condition (2))
  (s4) Gp(p) and match(p, r) and not Go(r) => not F(p, N)

(s4) is what refuses pushing `right_col IS NULL` to the right side: removing
the only match of a row creates its NULL-padded row, which that filter keeps.
"""

from __future__ import annotations

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Cell, NotModelled, default_value, sort_of
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.verify.verdict import EQUIVALENT, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "LEFTOUTERJ"
BASE_CASE_ROWS = 2  # one row of each input, and the NULL-padded row


def verify(op: P.OuterJoin, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    if op.preserved not in ("left", "right"):
        # a full outer join pads both inputs: its conditions are in full_outer_join.py
        return verdicts.refuse(f"preserved={op.preserved!r} is not a left or right outer join")
    reason = nondeterministic(op.condition, f, *(x for x in g if x is not None))
    if reason:
        return verdicts.refuse(reason)
    if X.has_python_udf(f) or X.has_python_udf(op.condition):
        # whether the NULL-padded row exists depends on the whole other input, so its errors
        # cannot be placed on one row: keep raising code out of this category for now
        return verdicts.refuse("Python UDFs in the late filter or the join condition are not analysed here")
    left_first = op.preserved == "left"
    gp, go = (g[0], g[1]) if left_first else (g[1], g[0])
    other_side = op.right if left_first else op.left
    if not other_side.output:
        return verdicts.refuse("columns of the joined input unknown")
    with Modelling() as modelling:
        p, o = SymbolicRow("keep"), SymbolicRow("other")
        original, rewritten = Evaluator(), Evaluator()
        joined = _joined(op, p, o)
        padded = _joined(op, p, _nulls(other_side.output))
        match = truth(original.eval(op.condition, joined))
        f_joined = truth(original.eval_guarded(f, joined, match))
        f_padded = truth(Evaluator().eval(f, padded))
        gp_p = truth(rewritten.eval(gp, p)) if gp is not None else z3.BoolVal(True)
        go_o = truth(rewritten.eval(go, o)) if go is not None else z3.BoolVal(True)
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    # (condition, whether its counterexample needs the other input's row): a condition on the
    # NULL-padded row alone is shown with the other input empty, where that row really appears
    if kind == EQUIVALENT:
        conditions = [(z3.Implies(match, f_joined == z3.And(gp_p, go_o)), True),
                      (f_padded == gp_p, False),
                      (z3.Implies(z3.And(match, gp_p), go_o), True)]
    else:
        conditions = [(z3.Implies(z3.And(z3.Not(gp_p), match), z3.Not(f_joined)), True),
                      (z3.Implies(z3.Not(gp_p), z3.Not(f_padded)), False),
                      (z3.Implies(z3.And(match, f_joined), go_o), True),
                      (z3.Implies(z3.And(gp_p, match, z3.Not(go_o)), z3.Not(f_padded)), True)]
    facts = z3.And(domain([p, o]), z3.Not(original.error()))
    proof = prove(z3.Implies(facts, z3.And(z3.Not(rewritten.error()), *(c for c, _ in conditions))), timeout_ms)
    if not proof.proved:
        return verdicts.refuse(
            proof.reason, _counterexample(op, facts, rewritten, conditions, p, o, timeout_ms))
    return verdicts.proved()


def _counterexample(op: P.OuterJoin, facts: z3.BoolRef, rewritten: Evaluator,
                    conditions: list[tuple[z3.BoolRef, bool]], p: SymbolicRow, o: SymbolicRow,
                    timeout_ms: int) -> dict:
    """Input tables, left then right, on which the two pipelines differ: taken from the first
    condition that fails (an error of the rewrite counts as the first)."""
    for claim, with_other in [(z3.Not(rewritten.error()), True)] + conditions:
        proof = prove(z3.Implies(facts, claim), timeout_ms)
        if proof.model is None:
            continue
        preserved = [p]
        other = [o] if with_other else []
        tables = [preserved, other] if op.preserved == "left" else [other, preserved]
        return tables_from_model(proof.model, tables)
    return {}


def _joined(op: P.OuterJoin, p: SymbolicRow, o: SymbolicRow) -> SymbolicRow:
    left, right = (p, o) if op.preserved == "left" else (o, p)
    left_keys = frozenset((c.name, c.id) for c in op.left.output)
    right_keys = frozenset((c.name, c.id) for c in op.right.output)
    if not left_keys or not right_keys:
        raise NotModelled("join input columns unknown")
    return SymbolicRow(p.tag + o.tag, route=[(left_keys, left), (right_keys, right)])


def _nulls(columns: tuple[X.Col, ...]) -> SymbolicRow:
    row = SymbolicRow("padding")
    for c in columns:
        row.cells[(c.name, c.id)] = Cell(default_value(sort_of(c.dtype)), z3.BoolVal(False))
    return row
