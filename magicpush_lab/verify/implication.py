"""Whether one predicate keeps only rows another keeps: proved on one symbolic row.

>>> from magicpush_lab.ir.expr import Cmp, Col, Lit
>>> v = Col("v", 1, "int")
>>> implies(Cmp(">", v, Lit(5, "int")), Cmp(">", v, Lit(3, "int"))).proved
True
>>> implies(Cmp(">", v, Lit(3, "int")), Cmp(">", v, Lit(5, "int"))).proved
False
"""

from __future__ import annotations

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, Proof, prove
from magicpush_lab.symbolic.values import NotModelled


def implies(premise: X.Expr, conclusion: X.Expr, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Proof:
    """Every row `premise` keeps, `conclusion` keeps (NULL counts as false); a time-out is no
    proof. Raises NotModelled for an expression the encoder cannot model."""
    ev = Evaluator()
    row = SymbolicRow("r")
    claim = z3.Implies(truth(ev.eval(premise, row)), truth(ev.eval(conclusion, row)))
    return prove(z3.Implies(domain([row]), claim), timeout_ms)


def implied_by(premise: X.Expr, conclusion: X.Expr, timeout_ms: int) -> bool:
    """`implies`, with a time-out or a part the encoder cannot model counting as no.

    >>> v = X.Col("v", 1, "int")
    >>> implied_by(X.Cmp(">", v, X.Lit(950, "int")), X.Cmp(">=", v, X.Lit(900, "int")), 1000)
    True
    >>> implied_by(X.Cmp(">", v, X.Lit(950, "int")), X.IsNull(v), 1000)
    False
    """
    try:
        return implies(premise, conclusion, timeout_ms).proved
    except (NotModelled, z3.Z3Exception):
        return False


def keeps_every_row(g: X.Expr, timeout_ms: int) -> bool:
    """G holds on every row, NULLs included (`x IS NULL OR x >= 3 OR x < 10`), so it filters
    nothing. A time-out or a part the encoder cannot model counts as no.

    >>> v = X.Col("v", 1, "int")
    >>> keeps_every_row(X.or_(X.IsNull(v), X.Cmp(">=", v, X.Lit(3, "int")), X.Cmp("<", v, X.Lit(10, "int"))), 1000)
    True
    >>> keeps_every_row(X.or_(X.IsNull(v), X.Cmp(">=", v, X.Lit(3, "int"))), 1000)
    False
    """
    try:
        return implies(X.TRUE, g, timeout_ms).proved
    except (NotModelled, z3.Z3Exception):
        return False
