"""Predicates a scan can skip on: a function of a column compared with a constant, rewritten
as a comparison of the column itself (`year(d) = 2024` as a date range on `d`).

Parquet and Spark's scan filters skip row groups on comparisons of a column with a literal
only. A rewritten predicate is used only when Z3 proves it keeps exactly the rows the
original keeps (NULLs included), on one row: `year` of a date is encoded exactly
(symbolic/encode.civil_year).
"""

from __future__ import annotations

import datetime as dt

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Unsupported
from magicpush_lab.verify.solver import prove

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}


def sargable(e: X.Expr) -> X.Expr:
    """`e` with each `year(date column) <op> literal` conjunct as a range on the column.

    >>> d = X.Col("d", 1, "date")
    >>> str(sargable(X.Cmp("=", X.Func("year", (d,), "int"), X.Lit(2024, "int"))))
    'd >= datetime.date(2024, 1, 1) AND d < datetime.date(2025, 1, 1)'
    """
    return X.and_(*(_range(c) or c for c in X.conjuncts(e)))


def prefer_sargable(e: X.Expr, timeout_ms: int = 500) -> X.Expr:
    """The sargable form of `e` when it is proved to keep the same rows, else `e` itself."""
    s = sargable(e)
    if s == e:
        return e
    try:
        row, ev = SymbolicRow("s"), Evaluator()
        same = truth(ev.eval(e, row)) == truth(ev.eval(s, row))
        errors_alike = ev.error()
    except (Unsupported, z3.Z3Exception):
        return e
    proved = prove(z3.Implies(domain([row]), z3.And(same, z3.Not(errors_alike))), timeout_ms).proved
    return s if proved else e


_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}


def _range(c: X.Expr) -> X.Expr | None:
    if isinstance(c, X.Not) and isinstance(c.arg, X.Cmp) and c.arg.op in _NEGATED:
        c = X.Cmp(_NEGATED[c.arg.op], c.arg.left, c.arg.right)  # NOT keeps NULL as NULL, as does the flip
    if not isinstance(c, X.Cmp) or c.op not in _FLIP:
        return None
    op, fn, lit = c.op, c.left, c.right
    if isinstance(lit, X.Func):
        op, fn, lit = _FLIP[c.op], c.right, c.left
    if not (isinstance(fn, X.Func) and fn.name == "year" and len(fn.args) == 1
            and isinstance(fn.args[0], X.Col) and fn.args[0].dtype == "date"
            and isinstance(lit, X.Lit) and isinstance(lit.value, int) and not isinstance(lit.value, bool)
            and 1 <= lit.value < 9999):
        return None
    d, y = fn.args[0], lit.value
    start, end = X.Lit(dt.date(y, 1, 1), "date"), X.Lit(dt.date(y + 1, 1, 1), "date")
    ranges = {"=": X.and_(X.Cmp(">=", d, start), X.Cmp("<", d, end)),
              "!=": X.or_(X.Cmp("<", d, start), X.Cmp(">=", d, end)),
              "<": X.Cmp("<", d, start), "<=": X.Cmp("<", d, end),
              ">": X.Cmp(">=", d, end), ">=": X.Cmp(">=", d, start)}
    return ranges[op]
