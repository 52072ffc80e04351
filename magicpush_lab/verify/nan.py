"""NaN at the Python boundary: where the real-number model of doubles is not enough.

Doubles are reals in the model. Spark orders NaN above every number, so for
comparisons NaN behaves like a real larger than any other, and a proof over
the reals covers it. Python does not: every comparison with NaN is False
(`!=` is True). A Python UDF that receives NaN can therefore take a branch
that no real input takes, and a predicate read back from its body (which
Spark evaluates with its own NaN order) can disagree with it on NaN rows.

The engine does not model NaN inside UDFs. It keeps NaN rows instead: a
predicate derived from a UDF body whose argument is a double gets
`OR isnan(arg)` and can only be a superset pushdown, so on NaN rows the late
filter, running the UDF itself, still decides.

>>> from magicpush_lab.ir.expr import Col, Cmp, Lit, PyUdf
>>> amount = Col("amount", 1, "double")
>>> call = PyUdf("f", (amount,), "int", "def f(a):\\n    return 1")
>>> [str(a) for a in exposed_arguments([call], Cmp(">", amount, Lit(5.0, "double")))]
['amount']
>>> str(keep_nan_rows(Cmp(">", amount, Lit(5.0, "double")), [amount]))
'amount > 5.0 OR isnan(amount)'
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


def keep_nan_rows(g: X.Expr, args: Iterable[X.Expr]) -> X.Expr:
    """G widened to keep every row where one of `args` is NaN."""
    return X.or_(g, *(isnan(a) for a in args))


def keeps_nan_rows(g: X.Expr, args: Iterable[X.Expr]) -> bool:
    """G has `isnan(arg)` as a disjunct for every one of `args` (so it is TRUE on those rows)."""
    parts = X.disjuncts(g)
    return all(isnan(a) in parts for a in args)
