"""The ROW-TO-ROW category: Filter, RowTransform, DropColumn, InnerJoin (paper, Table 2).

Each output row depends on one row of each input, so a check on one symbolic
row per input covers tables of every size: the category has no
pre-condition and a base case of 1 row per input (paper, Section 4.2.1).

Equivalence: F(Op(T)) = Op(G(T)), the late filter can go.
Superset:    F(Op(T)) = F(Op(G(T))), G shrinks the input and F stays.

Errors: the claim is checked for inputs on which the original pipeline does
not raise, and the rewrite must not raise on those inputs either; a rewrite
may skip a row on which the original raised (`may_hide_errors`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import apply_filter, apply_op, op_expressions
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic import nan
from magicpush_lab.verify.congruence import by_congruence
from magicpush_lab.verify.counterexample import rows_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove, satisfiable
from magicpush_lab.verify.verdict import SUPERSET, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "ROW-TO-ROW"
FLOATING = {"float", "double"}
BASE_CASE_ROWS = 1


def verify(op: P.Plan, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS, nan_is_null: tuple[X.Expr, ...] = ()) -> Verdict:
    """Check candidate `g` (one predicate or None per input of `op`) for late filter `f`.
    `nan_is_null`: double arguments whose NaN rows are already shown to act as NULL rows."""
    reduced = _nan_as_null(op, f, g, timeout_ms) if not nan_is_null else None
    if isinstance(reduced, Verdict):
        return reduced
    if reduced is not None:
        return verify(op, f, reduced[0], kind, timeout_ms, reduced[1])
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    refusal = _refusal(op, f, g, kind, nan_is_null)
    if refusal:
        return verdicts.refuse(refusal)
    if len(g) == 1 and g[0] is not None:
        # the late filter over the definitions, string UDF calls written as Column code: proved
        # call by call, where the whole filter may be a goal beyond the solver
        congruent = by_congruence(op, f, g[0], kind, timeout_ms)
        if congruent is not None and congruent.proved:
            return congruent
    op = _unread_results_modelled(op, f)
    with Modelling() as modelling:
        inputs = [SymbolicRow(f"in{i}") for i in range(len(op.children))]
        original = Evaluator()
        out = apply_op(op, inputs, original)
        lhs = z3.And(out.exists, truth(original.eval_guarded(f, out, out.exists)))

        rewritten = Evaluator()
        filtered = [apply_filter(gi, row, rewritten) if gi is not None else row for gi, row in zip(g, inputs)]
        out2 = apply_op(op, filtered, rewritten)
        rhs = out2.exists
        if kind == SUPERSET:
            rhs = z3.And(rhs, truth(rewritten.eval_guarded(f, out2, out2.exists)))
    if modelling.failed:
        return verdicts.refuse(modelling.reason)

    err_l, err_r = original.error(), rewritten.error()
    # a cast that may fail raises or gives NULL depending on the mode: the model gives it an
    # unknown value on both sides, and the rewrite may evaluate a failing cast only where the
    # original does too (so under ANSI mode it fails only where the original fails)
    cast_l, cast_r = original.cast_failure(), rewritten.cast_failure()
    # where the original succeeds, the rewrite must succeed and keep the same rows
    facts = domain(inputs)
    claim = z3.Implies(z3.And(facts, z3.Not(err_l)),
                       z3.And(z3.Not(err_r), z3.Implies(cast_r, cast_l), lhs == rhs))
    proof = prove(claim, timeout_ms)
    if not proof.proved:
        example = rows_from_model(proof.model, inputs) if proof.model is not None else {}
        return verdicts.refuse(proof.reason, example)
    hides = satisfiable(z3.And(facts, z3.Or(err_l, cast_l), z3.Not(z3.Or(err_r, cast_r))), timeout_ms)
    return verdicts.proved(may_hide_errors=hides is not False)


def _unread_results_modelled(op: P.Plan, f: X.Expr) -> P.Plan:
    """`op` with the values of the outputs `f` does not read made ones the model has.

    Such an output does not decide which rows pass, only whether computing it raises, and a
    literal it gives as its value (itself, a CASE branch's value, or under a cast from one
    floating type to another) raises nothing. A NaN or an infinity there, which the
    real-number model of doubles lacks, may stand as NULL: the pandas API on Spark gives each
    division a divide-by-zero branch of infinities and NaN.

    >>> a, r = X.Col("a", 1, "long"), X.Col("r", 2, "double")
    >>> ratio = X.Case(((X.Cmp("=", a, X.Lit(0, "long")), X.Lit(float("nan"), "double")),), X.Lit(1.0, "double"))
    >>> op = P.Project(P.Source("t", (a,)), ((a, a), (r, ratio)))
    >>> str(_unread_results_modelled(op, X.Cmp(">", a, X.Lit(3, "long"))).outputs[1][1])
    'CASE WHEN a = 0 THEN NULL ELSE 1.0 END'
    >>> _unread_results_modelled(op, X.Cmp(">", r, X.Lit(0.5, "double"))) == op  # read: its value counts
    True
    """
    if not isinstance(op, P.Project):
        return op
    read = X.columns(f)
    outputs = tuple((c, e if c in read else _non_finite_results_as_null(e)) for c, e in op.outputs)
    return replace(op, outputs=outputs)


def _non_finite_results_as_null(e: X.Expr) -> X.Expr:
    if isinstance(e, X.Lit) and isinstance(e.value, float) and not math.isfinite(e.value):
        return X.Lit(None, e.dtype)
    if isinstance(e, X.Case):  # only the values: a condition's NaN would decide a branch
        return X.Case(tuple((c, _non_finite_results_as_null(v)) for c, v in e.branches),
                      _non_finite_results_as_null(e.default))
    if isinstance(e, X.Cast) and {e.dtype, X.dtype_of(e.arg)} <= FLOATING:
        # a cast between floating types raises on no value (pandas-on-Spark wraps its division
        # in one); a cast to an integer would raise on NaN and not on NULL
        return X.Cast(_non_finite_results_as_null(e.arg), e.dtype)
    return e


def _nan_as_null(op: P.Plan, f: X.Expr, g: Sequence[X.Expr | None],
                 timeout_ms: int) -> tuple[tuple[X.Expr | None, ...], tuple[X.Expr, ...]] | Verdict | None:
    """A candidate of nan_as_null's shape for a double argument the original reads only
    through pandas UDFs (symbolic/nan.py): G0, to be proved in the model, once the NaN rows'
    part is shown to be G0 on the row with that argument NULL; a refusal when it is not;
    None for any other candidate."""
    if not isinstance(op, P.Project) or len(g) != 1 or g[0] is None:
        return None
    verdicts = Verdicts(SUPERSET, CATEGORY, BASE_CASE_ROWS)
    original = X.substitute(f, dict(op.outputs))
    # conjuncts the original evaluates itself stay as they are; the rest has the NaN shape
    own = {c for c in X.conjuncts(original) if not X.has_python_udf(c)}
    kept = [c for c in X.conjuncts(g[0]) if c in own]
    rest = X.and_(*(c for c in X.conjuncts(g[0]) if c not in own))
    for arg in nan.exposed_arguments((original,), X.TRUE):
        split = nan.split_nan_as_null(rest, arg)
        if split is None:
            continue
        if not nan.pandas_only([original], arg):
            return verdicts.refuse(f"{arg} is read other than through pandas UDFs: NaN is not NULL there")
        g0, on_nan = split
        with Modelling() as modelling:
            row, ev = SymbolicRow("n"), Evaluator()
            as_null = truth(ev.eval(X.substitute(g0, {arg: X.Lit(None, X.dtype_of(arg))}), row))
            same = prove(z3.Implies(domain([row]), truth(ev.eval(on_nan, row)) == as_null), timeout_ms)
        if modelling.failed:
            return verdicts.refuse(modelling.reason)
        if not same.proved:
            return verdicts.refuse(f"the NaN rows' part is not the predicate on the row with {arg} NULL")
        return (X.and_(g0, *kept),), (arg,)
    return None


def _true_on_kept_nan_rows(g: X.Expr, original: X.Expr, exposed: tuple[X.Expr, ...]) -> bool:
    """Each conjunct of `g` is TRUE on every row the original keeps where an exposed argument
    is NaN or infinite: it keeps those rows (`OR isnan(a - a)`), or it is a conjunct of the original that calls
    no UDF, which Spark found TRUE on that very row."""
    own = {c for c in X.conjuncts(original) if not X.has_python_udf(c)}
    return all(c in own or nan.keeps_nan_rows(c, exposed) for c in X.conjuncts(g))


def _refusal(op: P.Plan, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
             nan_is_null: tuple[X.Expr, ...] = ()) -> str:
    if len(g) != len(op.children):
        return f"{len(g)} predicates for an operator with {len(op.children)} inputs"
    reason = nondeterministic(*op_expressions(op), f, *(x for x in g if x is not None))
    if reason:
        return reason
    for gi in g:
        if gi is None:
            continue
        # what the original computes F from: through a projection, F with the outputs inlined
        original = X.substitute(f, dict(op.outputs)) if isinstance(op, P.Project) else f
        exposed = tuple(a for a in nan.exposed_arguments((original,), gi) if a not in nan_is_null)
        if exposed and (kind != SUPERSET or not _true_on_kept_nan_rows(gi, original, exposed)):
            names = ", ".join(map(str, exposed))
            return (f"a Python UDF compares {names}, which may be NaN, as Python does, not as Spark does:"
                    f" only a superset pushdown that keeps NaN rows is sound")
    return ""
