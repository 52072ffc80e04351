"""A candidate that is the late filter with each string UDF call written as a Column
expression (symbolic/udf_inline.py) or as its argument, proved one call at a time.

Below a row-by-row projection, the late filter with the projection's columns replaced by their
definitions keeps exactly the rows it kept above: the same function on the same input gives the
same output. When the candidate writes a Python UDF call as a Column expression instead, what
is left to prove is that the expression and the call agree on every input: the same value, NULL
where the call gives None, and no error where the call raises none. That is a claim about one
call on one row, which the solver settles where the whole filter may be beyond it (a cast of the
cleaned text to a double, then a division, is a goal Z3's string theory gives up on, while
`replace(s, ',', '')` against the model of `s.replace(',', '')` is not).

Only calls of strings to a string are proved so: their values are exact in the model, where a
double's are real numbers (the NaN and rounding questions stay with the whole-filter proof).

>>> s = X.Col("area", 1, "string")
>>> call = X.PyUdf("clean", (s,), "string", "lambda a: a.replace(',', '') if isinstance(a, str) else '0'")
>>> out = X.Col("area", 2, "string")
>>> op = P.Project(P.Source("t", (s,)), ((out, call),))
>>> f = X.Cmp(">", X.Cast(out, "double"), X.Lit(50.0, "double"))
>>> g = X.Cmp(">", X.Cast(inlined(call), "double"), X.Lit(50.0, "double"))
>>> by_congruence(op, f, g, "equivalent", 2000).proved
True
>>> by_congruence(op, f, X.Cmp(">", X.Cast(s, "double"), X.Lit(50.0, "double")), "equivalent", 2000).proved
False
>>> by_congruence(op, f, X.Cmp("<", X.Cast(s, "double"), X.Lit(50.0, "double")), "equivalent", 2000) is None
True
"""

from __future__ import annotations

import itertools

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator
from magicpush_lab.symbolic.solver import prove, satisfiable
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.udf_inline import inlined
from magicpush_lab.verify.verdict import Modelling, Verdict, Verdicts

CATEGORY = "ROW-TO-ROW"
BASE_CASE_ROWS = 1
MAX_CALLS = 6  # each call has at most two stand-ins: 64 shapes to compare at most


def by_congruence(op: P.Plan, f: X.Expr, g: X.Expr, kind: str, timeout_ms: int) -> Verdict | None:
    """The verdict for candidate `g` below projection `op` when `g` is `f` over the
    projection's definitions with string UDF calls written as Column code; None when `g` is
    not of that shape (the whole-filter proof then decides)."""
    if not isinstance(op, P.Project):
        return None
    whole = X.substitute(f, dict(op.outputs))
    calls = sorted({n for n in X.walk(whole) if isinstance(n, X.PyUdf)}, key=str)
    if not calls or len(calls) > MAX_CALLS or not all(_strings_only(c) for c in calls):
        return None
    written = _matching(whole, calls, g)
    if written is None:
        return None
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    hides = False
    for call in calls:
        agrees, may_hide = _agree(call, written[call], timeout_ms)
        if isinstance(agrees, str):
            return verdicts.refuse(agrees)
        hides = hides or may_hide
    return verdicts.proved("proved: each UDF call agrees with its Column expression", may_hide_errors=hides)


def _matching(whole: X.Expr, calls: list[X.PyUdf], g: X.Expr) -> dict[X.PyUdf, X.Expr] | None:
    """For each call, the stand-in that makes `whole` into `g`: its Column code, or its one
    argument (a UDF that gives its input back, as a cleaning step often does for most values)."""
    choices = [[e for e in (inlined(c), c.args[0] if len(c.args) == 1 else None) if e is not None] for c in calls]
    for picked in itertools.product(*choices):
        stand_in = dict(zip(calls, picked))
        if X.transform(whole, lambda n: stand_in.get(n) if isinstance(n, X.PyUdf) else None) == g:
            return stand_in
    return None


def _strings_only(call: X.PyUdf) -> bool:
    return call.dtype == "string" and all(X.dtype_of(a) == "string" for a in call.args)


def _agree(call: X.PyUdf, expr: X.Expr, timeout_ms: int) -> tuple[str | None, bool]:
    """(None, whether the expression succeeds where the call raises) when the two agree
    wherever the call succeeds; (the reason, False) when that is not proved."""
    row = SymbolicRow("in0")
    with Modelling() as modelling:
        by_udf, by_column = Evaluator(), Evaluator()
        a, b = by_udf.eval(call, row), by_column.eval(expr, row)
    if modelling.failed:
        return modelling.reason, False
    facts = domain([row])
    same = z3.And(a.notnull == b.notnull, z3.Implies(a.notnull, a.value == b.value))
    claim = z3.Implies(z3.And(facts, z3.Not(by_udf.error())),
                       z3.And(z3.Not(by_column.error()), z3.Not(by_column.cast_failure()), same))
    proof = prove(claim, timeout_ms)
    if not proof.proved:
        return f"{call.name} and its Column expression: {proof.reason}", False
    hides = satisfiable(z3.And(facts, by_udf.error(), z3.Not(by_column.error())), timeout_ms)
    return None, hides is not False
