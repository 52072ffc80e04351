"""Spark's numeric typing of IR arithmetic, as every layer that reasons about overflow and
exactness reads it: the result type of an expression computed from its operands, the decimal
type two compared sides widen to, and whether an integer value stays inside its type.
"""

from __future__ import annotations

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.types import FRACTIONAL, INTEGER_BITS, INTEGRAL, MAX_DECIMAL_PRECISION, is_decimal, \
    operand_decimal, wider
from magicpush_lab.symbolic.encode import Evaluator
from magicpush_lab.symbolic.table import SymbolicRow


def numeric_type(e: X.Expr) -> str | None:
    """Spark's result type of a numeric expression, computed from its operands (the plan's
    own type of a decimal sum is not always recorded), or None when it cannot be told
    or a decimal result needs more than 38 digits (Spark would round it).

    >>> m = X.Col("m", 1, "decimal(10,2)")
    >>> numeric_type(X.Arith("+", m, X.Cast(X.Lit(1, "int"), "decimal(1,0)")))
    'decimal(11,2)'
    >>> numeric_type(X.Arith("*", X.Col("s", 2, "short"), X.Lit(2, "int")))
    'int'
    """
    if isinstance(e, X.Neg):
        return numeric_type(e.arg)
    if not isinstance(e, X.Arith):
        t = X.dtype_of(e)
        return t if t in INTEGRAL or t in FRACTIONAL or is_decimal(t) else None
    left, right = numeric_type(e.left), numeric_type(e.right)
    if left is None or right is None:
        return None
    if left in FRACTIONAL or right in FRACTIONAL:
        return "double"
    if left in INTEGRAL and right in INTEGRAL:
        return wider(left, right)
    (p1, s1), (p2, s2) = operand_decimal(left), operand_decimal(right)
    if e.op == "*":
        p, s = p1 + p2 + 1, s1 + s2
    else:
        s = max(s1, s2)
        p = s + max(p1 - s1, p2 - s2) + 1
    return f"decimal({p},{s})" if p <= MAX_DECIMAL_PRECISION else None


def common_decimal(a: str | None, b: str | None) -> str | None:
    """The decimal type two sides of a comparison are widened to, if it has at most 38 digits
    (a literal of an integer type counts as the digits it has)."""
    if a is None or b is None or a in FRACTIONAL or b in FRACTIONAL:
        return None
    (p1, s1), (p2, s2) = operand_decimal(a), operand_decimal(b)
    s = max(s1, s2)
    p = s + max(p1 - s1, p2 - s2)
    return f"decimal({p},{s})" if p <= MAX_DECIMAL_PRECISION else None


def integer_arithmetic(e: X.Expr) -> list[X.Expr]:
    return [n for n in X.walk(e) if isinstance(n, (X.Arith, X.Neg)) and numeric_type(n) in INTEGRAL]


def stays_in_type(ev: Evaluator, node: X.Expr, row: SymbolicRow) -> z3.BoolRef:
    """The (mathematical) value of an integer node stays inside its Spark type."""
    bits = INTEGER_BITS[numeric_type(node)]  # type: ignore[index]
    cell = ev.eval(node, row)
    return z3.Implies(cell.notnull, z3.And(cell.value >= -(2 ** (bits - 1)), cell.value < 2 ** (bits - 1)))

