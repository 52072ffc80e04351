"""Predicate transfer across a join: what a filter on one input says about the other.

A late filter's conjuncts on the left input L(l), with the join condition C(l, r), keep
only right rows r for which some left row l has C(l, r) and L(l): the predicate on r is
`exists l: C(l, r) AND L(l)`. Z3's quantifier elimination computes it where the theory
allows (linear arithmetic over ints and reals), which covers expression keys
(`a.k == b.k + 1` with `a.k > 5` gives `b.k > 4`) and non-equi conditions (`a.k < b.k`
gives `b.k > 6`), which Spark's optimizer does not transfer. The result is read back as
SQL; like every candidate, it is only proved correct by the verifier.

Conjuncts over columns the condition equates with the other input's (`l.k = r.k`, or
`l.k <=> r.k`) transfer by renaming, whatever their type (`l.country = 'Italy'` gives
`r.country = 'Italy'`), with no quantifier elimination. An outer join transfers only from its
preserved input to the other one, by renaming only: rows of the NULL-supplying input that
match no kept row of the preserved one are never output.
"""

from __future__ import annotations

import z3

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.search.formula import FORMULA_MS, predicate_from_formula
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import apply_op
from magicpush_lab.symbolic.solver import in_z3, limit_ms
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.symbolic.values import NotModelled

#: quantifier elimination, per transfer: it either answers fast or not usefully
QE_MS = 150


def renamed_across(condition: X.Expr, side_cols: tuple[X.Col, ...], on_other: X.Expr) -> X.Expr | None:
    """The conjuncts of `on_other` over columns `condition` equates, one to one, with columns of
    this side (`side_cols`), renamed to them; None when there are none (or only NOT NULL tests,
    which the join's equality does anyway).

    >>> a, b = X.Col("k", 1, "string"), X.Col("k", 2, "string")
    >>> str(renamed_across(X.Cmp("<=>", a, b), (b,), X.Cmp("=", a, X.Lit("Italy", "string"))))
    "k = 'Italy'"
    """
    mine = set(side_cols)
    pairs: dict[X.Col, set[X.Col]] = {}
    for c in X.conjuncts(condition):
        if isinstance(c, X.Cmp) and c.op in ("=", "<=>") and isinstance(c.left, X.Col) and isinstance(c.right, X.Col):
            for other, this in ((c.left, c.right), (c.right, c.left)):
                if this in mine and other not in mine:
                    pairs.setdefault(other, set()).add(this)
    mapping = {other: next(iter(these)) for other, these in pairs.items() if len(these) == 1}
    moved = [X.substitute(c, mapping) for c in X.conjuncts(on_other)
             if X.columns(c) and X.columns(c) <= set(mapping) and X.is_deterministic(c)
             and not isinstance(c, X.IsNotNull)]
    return X.and_(*moved) if moved else None


def transferred(op: P.InnerJoin | P.OuterJoin, side: int, on_other: X.Expr, budget: Budget) -> X.Expr | None:
    """The predicate on input `side` implied by `on_other` (a filter on the other input) and the
    join condition: by renaming equated keys, else by quantifier elimination; None when neither
    gives one it can read back."""
    renamed = renamed_across(op.condition, op.children[side].output, on_other)
    if renamed is not None or isinstance(op, P.OuterJoin):
        # an outer join's transfers are only the renamed ones: quantifier elimination stays
        # where it was tried and measured, on inner joins
        return renamed
    rows = [SymbolicRow("tl"), SymbolicRow("tr")]
    ev = Evaluator()
    try:
        pair = apply_op(P.InnerJoin(op.left, op.right, X.TRUE), rows, ev)
        phi = z3.And(truth(ev.eval(op.condition, pair)), truth(ev.eval(on_other, rows[1 - side])))
    except (NotModelled, z3.Z3Exception):
        return None
    other = rows[1 - side]
    if not _arithmetic(phi):
        return None  # strings, black boxes: quantifier elimination would only time out
    bound = [x for cell in other.cells.values() for x in (cell.value, cell.notnull) if z3.is_const(x)]
    if not bound or not z3.is_false(z3.simplify(ev.error())):
        return None  # nothing to eliminate, or the condition may raise: no clean transfer
    try:
        goal = z3.Goal()
        goal.add(z3.Exists(bound, phi))
        with in_z3():
            result = z3.TryFor(z3.Then("qe", "simplify"), limit_ms(budget.slice_ms(QE_MS)))(goal)
    except z3.Z3Exception:
        return None
    if len(result) != 1:
        return None
    formula = z3.And(*result[0])
    if _mentions(formula, bound) or z3.is_true(z3.simplify(formula)):
        return None
    try:
        g = predicate_from_formula(formula, [rows[side]], budget.slice_ms(FORMULA_MS))
    except z3.Z3Exception:
        return None  # a formula the reader cannot take apart: no candidate, nothing lost
    if g is None or all(isinstance(c, X.IsNotNull) for c in X.conjuncts(g)):
        return None  # "the key is not NULL" is what the join does anyway: not worth a suggestion
    return g


def _arithmetic(f: z3.ExprRef) -> bool:
    """Only booleans, integers and reals, and no uninterpreted function: where `qe` is complete."""
    sorts = (z3.Z3_BOOL_SORT, z3.Z3_INT_SORT, z3.Z3_REAL_SORT)
    return all(e.sort().kind() in sorts and not (e.decl().kind() == z3.Z3_OP_UNINTERPRETED and e.num_args() > 0)
               for e in _subterms(f))


def _mentions(f: z3.ExprRef, consts: list[z3.ExprRef]) -> bool:
    names = {str(c) for c in consts}
    return any(z3.is_const(e) and str(e) in names for e in _subterms(f))


def _subterms(f: z3.ExprRef):
    """Every distinct sub-term of `f` (shared terms once)."""
    seen, todo = set(), [f]
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        yield e
        todo.extend(e.children())


def extra_predicates(op: P.InnerJoin | P.OuterJoin, chosen: tuple[X.Expr | None, ...],
                     budget: Budget) -> tuple[X.Expr | None, ...]:
    """For each input the chosen candidate leaves without a predicate, what the other input's
    predicate transfers to it through the join condition (None where nothing is found). An
    outer join's preserved input takes nothing: each of its rows is output, matched or not."""
    left, right = chosen
    takes = (True, True) if isinstance(op, P.InnerJoin) else \
        (op.preserved == "right", op.preserved == "left")
    return (transferred(op, 0, right, budget) if takes[0] and left is None and right is not None else None,
            transferred(op, 1, left, budget) if takes[1] and right is None and left is not None else None)
