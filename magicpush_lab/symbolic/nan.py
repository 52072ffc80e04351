"""NaN at the Python boundary: where the real-number model of doubles is not enough.

Doubles are reals in the model. Spark orders NaN above every number, so for
comparisons NaN behaves like a real larger than any other, and a proof over
the reals covers it. Python does not: every comparison with NaN is False
(`!=` is True). A Python UDF that receives NaN can therefore take a branch
that no real input takes, and a predicate read back from its body (which
Spark evaluates with its own NaN order) can disagree with it on NaN rows.

The engine does not model NaN inside UDFs. It keeps NaN rows instead: a
predicate derived from a UDF body whose argument is a double gets
`OR isnan(arg - arg)` (TRUE for NaN and the infinities, which the reals lack too) and
can only be a superset pushdown, so on those rows the late filter, running the UDF
itself, still decides.

>>> from magicpush_lab.ir.expr import Col, Cmp, Lit, PyUdf
>>> amount = Col("amount", 1, "double")
>>> call = PyUdf("f", (amount,), "int", "def f(a):\\n    return 1")
>>> [str(a) for a in exposed_arguments([call], Cmp(">", amount, Lit(5.0, "double")))]
['amount']
>>> str(keep_nan_rows(Cmp(">", amount, Lit(5.0, "double")), [amount]))
'amount > 5.0 OR isnan((amount - amount))'

Pandas UDFs are the exception that can be exact: Spark hands a double column to a pandas
UDF as float64, where NULL and NaN are both NaN, so the body cannot tell them apart; and a NaN
it returns becomes NULL on the way back (Arrow marks NaN as missing). When an argument reaches
the original only through pandas UDFs, a NaN row therefore behaves exactly as the same row
with NULL there, which the model does cover. G can then be
`(G0 AND NOT isnan(a)) OR (isnan(a) AND G0[a := NULL])`, with G0 proved in the model and the
NaN part checked to be G0 on the NULL row; it can be an equivalence.

>>> call = PyUdf("twice", (amount,), "double", "def twice(s):\\n    return s * 2", kind="pandas")
>>> pandas_only([Cmp(">", call, Lit(4.0, "double"))], amount)
True
>>> g = nan_as_null(Cmp(">", amount, Lit(2.0, "double")), amount, Lit(False, "boolean"))
>>> str(g)
'amount > 2.0 AND NOT isnan(amount)'
>>> [str(x) for x in split_nan_as_null(g, amount)]
['amount > 2.0', 'False']
"""

from __future__ import annotations

from typing import Iterable

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.types import FRACTIONAL


def isnan(arg: X.Expr) -> X.Func:
    return X.Func("isnan", (arg,), "boolean", True)


def exposed_arguments(original: Iterable[X.Expr], g: X.Expr) -> tuple[X.Expr, ...]:
    """Double arguments of the Python UDF calls the original evaluates but G does not call.

    A call G makes itself runs on the same values on both sides, so NaN affects both alike;
    a call G was derived from is where the model and Python can part.
    """
    in_g = {n for n in X.walk(g) if isinstance(n, X.PyUdf)}
    # a pandas UDF sees NaN as a missing element, which the model does not have either
    found: list[X.Expr] = []
    for e in original:
        for n in X.walk(e):
            if isinstance(n, X.PyUdf) and n.kind in ("python", "pandas") and n not in in_g:
                for a in n.args:
                    if X.dtype_of(a) in FRACTIONAL and a not in found:
                        found.append(a)
    return tuple(found)


def not_finite(arg: X.Expr) -> X.Func:
    """TRUE where `arg` is NaN or an infinity: `arg - arg` is 0.0 for every finite value and NaN
    for those (and FALSE on NULL, as isnan is). Python UDFs meet infinities as they meet NaN,
    outside the reals of the model (`inf * 0` is NaN, so `x * 0 == 0` is False for x = -inf).

    >>> str(not_finite(X.Col("amount", 1, "double")))
    'isnan((amount - amount))'
    """
    return isnan(X.Arith("-", arg, arg, X.dtype_of(arg)))


def keep_nan_rows(g: X.Expr, args: Iterable[X.Expr]) -> X.Expr:
    """G widened to keep every row where one of `args` is NaN or infinite."""
    return X.or_(g, *(not_finite(a) for a in args))


def pandas_only(original: Iterable[X.Expr], arg: X.Expr) -> bool:
    """Every read of `arg` in `original` is an argument of a pandas UDF, or in a conjunct that
    calls no UDF (Spark evaluates such a conjunct itself, alike on both sides)."""
    def outside(e: X.Expr) -> bool:
        if e == arg:
            return True
        if isinstance(e, X.PyUdf) and e.kind == "pandas":
            return any(a != arg and outside(a) for a in e.args)
        if isinstance(e, X.PyUdf):
            return True  # a Python UDF reading it sees NaN, not None
        return any(outside(k) for k in X.children(e))

    exprs = [c for e in original for c in X.conjuncts(e) if X.has_python_udf(c)]
    return any(arg in X.walk(e) for e in exprs) and not any(outside(e) for e in exprs)


def nan_as_null(g0: X.Expr, arg: X.Expr, on_null: X.Expr) -> X.Expr:
    """G0 on rows where `arg` is not NaN, `on_null` (G0 with `arg` NULL) where it is."""
    return X.or_(X.and_(g0, X.Not(isnan(arg))), X.and_(isnan(arg), on_null))


def split_nan_as_null(g: X.Expr, arg: X.Expr) -> tuple[X.Expr, X.Expr] | None:
    """(G0, the NaN rows' part) when `g` has nan_as_null's shape, else None."""
    parts = X.disjuncts(g) if isinstance(g, X.Or) and len(g.args) == 2 else (g,)
    first = X.conjuncts(parts[0])
    if X.Not(isnan(arg)) not in first:
        return None
    g0 = X.and_(*(c for c in first if c != X.Not(isnan(arg))))
    if len(parts) == 1:
        return g0, X.FALSE
    second = X.conjuncts(parts[1])
    if isnan(arg) not in second:
        return None
    return g0, X.and_(*(c for c in second if c != isnan(arg)))


def keeps_nan_rows(g: X.Expr, args: Iterable[X.Expr]) -> bool:
    """G has `not_finite(arg)` as a disjunct for every one of `args` (so it is TRUE on the rows
    where it is NaN or infinite)."""
    parts = X.disjuncts(g)
    return all(not_finite(a) in parts for a in args)
