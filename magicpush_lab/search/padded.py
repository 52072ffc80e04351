"""The late filter on an outer join's NULL-padded row, as a predicate on the kept input.

A padded row is an input row with every column of the other input NULL. Replacing
those columns by NULL literals and folding the NULLs away gives what F says about
such a row: `coalesce(a.k, b.k) > 3` becomes `a.k > 3`, `b.x IS NULL` becomes TRUE.
The folding is exact under three-valued logic, except at the top of a filter, where
NULL and FALSE mean the same (a row is kept only when the condition is TRUE).

The result is only a candidate; the verifier decides whether it may be pushed.

>>> a, b = X.Col("k", 1, "int"), X.Col("k", 2, "int")
>>> str(padded_predicate(X.Cmp(">", X.Coalesce((a, b)), X.Lit(3, "int")), (b,)))
'k > 3'
>>> str(padded_predicate(X.Or((X.Cmp(">", a, X.Lit(3, "int")), X.IsNotNull(b))), (b,)))
'k > 3'
"""

from __future__ import annotations

from magicpush_lab.ir import expr as X

NULL = X.Lit(None, "boolean")


def padded_predicate(f: X.Expr, nulled: tuple[X.Col, ...]) -> X.Expr:
    """F on a row whose `nulled` columns are NULL, simplified as a filter condition."""
    substituted = X.substitute(f, {c: X.Lit(None, c.dtype) for c in nulled})
    return as_filter(X.transform(substituted, fold_null))


def is_null(e: X.Expr) -> bool:
    return isinstance(e, X.Lit) and e.value is None


def fold_null(e: X.Expr) -> X.Expr | None:
    """One exact folding step for a node whose children are already folded (None: unchanged)."""
    if isinstance(e, X.Coalesce):
        args = tuple(a for a in e.args if not is_null(a))
        if len(args) == len(e.args):
            return None
        return args[0] if len(args) == 1 else X.Coalesce(args) if args else X.Lit(None, X.dtype_of(e))
    if isinstance(e, X.Cmp) and e.op == "<=>":
        if is_null(e.left) and is_null(e.right):
            return X.TRUE
        if is_null(e.left) or is_null(e.right):
            return X.IsNull(e.right if is_null(e.left) else e.left)
        return None
    if isinstance(e, (X.Cmp, X.Arith)) and (is_null(e.left) or is_null(e.right)):
        return X.Lit(None, X.dtype_of(e))  # NULL propagates through comparisons and arithmetic
    if isinstance(e, (X.Neg, X.Cast)) and is_null(e.arg):
        return X.Lit(None, X.dtype_of(e))
    if isinstance(e, X.In) and is_null(e.arg):
        return NULL
    if isinstance(e, (X.IsNull, X.IsNotNull)) and isinstance(e.arg, X.Lit):
        return X.Lit(is_null(e.arg) == isinstance(e, X.IsNull), "boolean")
    if isinstance(e, X.Not) and isinstance(e.arg, X.Lit) and isinstance(e.arg.value, bool):
        return X.Lit(not e.arg.value, "boolean")
    if isinstance(e, X.Not) and is_null(e.arg):
        return NULL
    if isinstance(e, X.And):
        return _fold_logic(e.args, X.FALSE, X.TRUE, X.and_)
    if isinstance(e, X.Or):
        return _fold_logic(e.args, X.TRUE, X.FALSE, X.or_)
    return None


def _fold_logic(args: tuple[X.Expr, ...], absorbing: X.Lit, neutral: X.Lit, build) -> X.Expr | None:
    """AND/OR over folded arguments: the absorbing constant wins, the neutral one goes."""
    if absorbing in args:
        return absorbing
    if neutral not in args:
        return None
    rest = tuple(a for a in args if a != neutral)
    return build(*rest) if rest else neutral


def as_filter(e: X.Expr) -> X.Expr:
    """`e` with every NULL that only decides a filter's verdict replaced by FALSE.

    Under AND and OR at the top of a filter only "is it TRUE" matters, so a NULL
    argument is FALSE there; below NOT it is not (NOT NULL is NULL, NOT FALSE is TRUE).
    """
    if is_null(e):
        return X.FALSE
    if isinstance(e, X.And):
        return X.and_(*(as_filter(a) for a in e.args))
    if isinstance(e, X.Or):
        return X.or_(*(as_filter(a) for a in e.args))
    return e
