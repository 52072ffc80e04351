"""Predicates a scan can skip on: an expression of a column compared with a constant,
rewritten as a comparison of the column itself.

Parquet and Spark's scan filters skip row groups on comparisons of a column with a literal
only. Three forms are offered, conjunct by conjunct:

- `year(d) <op> Y` on a date column as a date range on `d`;
- a linear comparison solved for its column: `amount + 1 > 101` as `amount > 100`,
  `2 * x - 3 <= 7` as `x <= 5` (integer and decimal columns only);
- a when-chain compared with a literal as the conditions of the branches that match:
  `CASE WHEN a > 10 THEN 'hi' WHEN a > 5 THEN 'mid' ELSE 'lo' END = 'mid'` as
  `a <= 10 AND a > 5`.

A form is used only when Z3 proves, on one row, that it keeps exactly the rows the original
keeps (NULLs included) and that neither can raise. Where the encoder's model is not Spark's
exact semantics the form is refused before any proof (`_inexact`): double arithmetic
(rounding), division and modulo (ANSI mode raises on a zero divisor, the model gives NULL),
decimal results past 38 digits (rounded), and integer arithmetic that can leave its type
(ANSI mode raises, legacy mode wraps; the model has neither), which is checked by Z3 too.
"""

from __future__ import annotations

import datetime as dt
import math
from fractions import Fraction
from typing import Iterator

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.types import (FRACTIONAL, INTEGER_BITS, INTEGRAL, MAX_DECIMAL_PRECISION, is_decimal,
                                    operand_decimal, widens)
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.numeric import common_decimal, integer_arithmetic, numeric_type, stays_in_type
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.symbolic.solver import Proof, prove

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}
# a when-chain's form grows with the square of its branches: long chains are left alone
_MAX_BRANCHES = 8


def sargable(e: X.Expr) -> X.Expr:
    """`e` with each conjunct in its first sargable form, unproved (see `prefer_sargable`).

    >>> d = X.Col("d", 1, "date")
    >>> str(sargable(X.Cmp("=", X.Func("year", (d,), "int"), X.Lit(2024, "int"))))
    'd >= datetime.date(2024, 1, 1) AND d < datetime.date(2025, 1, 1)'
    >>> m = X.Col("m", 2, "decimal(10,2)")
    >>> str(sargable(X.Cmp(">", X.Arith("+", m, X.Lit(1, "int")), X.Lit(101, "int"))))
    'm > 100'
    """
    return X.and_(*(next(forms(c), c) for c in X.conjuncts(e)))


def prefer_sargable(e: X.Expr, timeout_ms: int = 500) -> X.Expr:
    """`e` with each conjunct replaced by its first form proved to keep the same rows; a
    conjunct's NULL guards go first, which needs no proof (`X.unguarded`)."""
    return X.and_(*(_proved_form(X.unguarded(c), timeout_ms) for c in X.conjuncts(e)))


def forms(c: X.Expr) -> Iterator[X.Expr]:
    """Candidate sargable forms of one conjunct, best first; none is proved yet."""
    c = _without_not(c)
    for make in (_range, _solved):
        form = make(c)
        if form is not None:
            yield form
    yield from _case_forms(c)


def _proved_form(c: X.Expr, timeout_ms: int) -> X.Expr:
    for form in forms(c):
        if form != c and keeps_rows(c, form, timeout_ms):
            return form
    return c


def keeps_rows(original: X.Expr, form: X.Expr, timeout_ms: int = 500) -> bool:
    """Does `form` keep exactly the rows `original` keeps, with neither ever raising?

    >>> x = X.Col("x", 1, "short")
    >>> keeps_rows(X.Cmp(">", X.Arith("+", X.Cast(x, "int"), X.Lit(1, "int"), "int"), X.Lit(101, "int")),
    ...            X.Cmp(">", x, X.Lit(100, "int")))
    True
    >>> i = X.Col("i", 2, "int")  # i + 1 overflows an int at 2147483647
    >>> keeps_rows(X.Cmp(">", X.Arith("+", i, X.Lit(1, "int"), "int"), X.Lit(101, "int")),
    ...            X.Cmp(">", i, X.Lit(100, "int")))
    False
    """
    return rows_kept_alike(original, form, timeout_ms) is True


def rows_kept_alike(original: X.Expr, form: X.Expr, timeout_ms: int = 500) -> bool | None:
    """`keeps_rows`, telling a refusal (False: a counterexample, or a form the model does not
    read exactly) from a solver that ran out of time (None)."""
    if _inexact(original) or _inexact(form):
        return False
    # a decimal constant behind casts is an unknown to the encoder: fold it first (exactly)
    original, form = _fold_constants(original), _fold_constants(form)
    try:
        row, ev = SymbolicRow("s"), Evaluator()
        same = truth(ev.eval(original, row)) == truth(ev.eval(form, row))
        in_range = [stays_in_type(ev, node, row) for e in (original, form) for node in integer_arithmetic(e)]
        never_fails = z3.Not(z3.Or(ev.error(), ev.cast_failure()))
    except (NotModelled, z3.Z3Exception):
        return False
    claim = z3.Implies(domain([row]), z3.And(same, never_fails, *in_range))
    return answer(prove(claim, timeout_ms))


def answer(proof: Proof) -> bool | None:
    """True proved, False refuted, None when the solver gave no answer in time."""
    return True if proof.proved else False if proof.model is not None else None


# -- where the model is not Spark's exact semantics

def _inexact(e: X.Expr) -> str:
    """Why the encoder's value of `e` may differ from Spark's (apart from integer overflow,
    which `keeps_rows` proves away), or "" when it is exact.

    >>> d = X.Col("d", 1, "double")
    >>> _inexact(X.Arith("+", d, X.Lit(1.0, "double"), "double"))
    'double arithmetic rounds'
    """
    if not X.is_deterministic(e) or X.has_python_udf(e):
        return "calls a nondeterministic function or a Python UDF"
    for node in X.walk(e):
        if isinstance(node, X.Arith):
            if node.op not in ("+", "-", "*"):
                return f"{node.op} by zero raises under ANSI mode"
            kind = numeric_type(node)
            if kind is None or kind in FRACTIONAL:
                return "double arithmetic rounds" if kind in FRACTIONAL else f"cannot type {node}"
        elif isinstance(node, X.Neg) and numeric_type(node) is None:
            return f"cannot type {node}"
        elif isinstance(node, X.Cmp) and any(is_decimal(numeric_type(x)) for x in (node.left, node.right)):
            if common_decimal(numeric_type(node.left), numeric_type(node.right)) is None:
                return f"{node} compares past {MAX_DECIMAL_PRECISION} digits"
    return ""


# -- year(d) <op> Y as a date range

def _without_not(c: X.Expr) -> X.Expr:
    if isinstance(c, X.Not) and isinstance(c.arg, X.Cmp) and c.arg.op in _NEGATED:
        return X.Cmp(_NEGATED[c.arg.op], c.arg.left, c.arg.right)  # NOT keeps NULL as NULL, as does the flip
    return c


def _literal_right(c: X.Expr) -> tuple[str, X.Expr, X.Expr] | None:
    """(op, expression, constant) of a comparison, the constant moved to the right."""
    if not isinstance(c, X.Cmp) or c.op not in _FLIP:
        return None
    if _is_constant(c.left) and not _is_constant(c.right):
        return _FLIP[c.op], c.right, c.left
    return c.op, c.left, c.right


def _is_constant(e: X.Expr) -> bool:
    return isinstance(e, X.Lit) or isinstance(e, X.Cast) and _is_constant(e.arg)


def _range(c: X.Expr) -> X.Expr | None:
    parts = _literal_right(c)
    if parts is None:
        return None
    op, fn, lit = parts
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


# -- a linear comparison solved for its column

def _solved(c: X.Expr) -> X.Expr | None:
    """`a * col + b <op> k` as `col <op'> (k - b) / a`, for an integer or decimal column.

    >>> x = X.Col("x", 1, "int")
    >>> lhs = X.Arith("-", X.Arith("*", X.Lit(2, "int"), x, "int"), X.Lit(3, "int"), "int")
    >>> str(_solved(X.Cmp("<=", lhs, X.Lit(7, "int"))))
    'x <= 5'
    >>> str(_solved(X.Cmp(">", X.Neg(lhs), X.Lit(0, "int"))))  # -2x + 3 > 0: x < 1.5
    'x < 2'
    >>> _solved(X.Cmp(">", X.Arith("*", x, X.Lit(0, "int"), "int"), X.Lit(0, "int"))) is None
    True
    """
    parts = _literal_right(c)
    if parts is None:
        return None
    op, lhs, rhs = parts
    if not isinstance(lhs, (X.Arith, X.Neg)):
        return None  # a bare column (or a cast of one) is already a scan filter
    line, k = _linear(lhs), _constant(rhs)
    if line is None or k is None:
        return None
    col, a, b = line
    if col is None or a == 0:  # a constant, or a column multiplied away: nothing to solve
        return None
    if a < 0:
        op = _FLIP[op]
    bound = (k - b) / a
    if col.dtype in INTEGRAL:
        return _integer_bound(col, op, bound)
    if is_decimal(col.dtype):
        lit = _decimal_literal(bound)
        return None if lit is None else X.Cmp(op, col, lit)
    return None  # a double column: the model's reals are not its rounding arithmetic


def _linear(e: X.Expr) -> tuple[X.Col | None, Fraction, Fraction] | None:
    """(col, a, b) with `e` = a * col + b, the column appearing once, or None."""
    k = _constant(e)
    if k is not None:
        return None, Fraction(0), k
    if isinstance(e, X.Col):
        ok = e.dtype in INTEGRAL or is_decimal(e.dtype)
        return (e, Fraction(1), Fraction(0)) if ok else None
    if isinstance(e, X.Cast) and isinstance(e.arg, X.Col) and widens(e.arg.dtype, e.dtype):
        return _linear(e.arg)
    if isinstance(e, X.Neg):
        inner = _linear(e.arg)
        return None if inner is None else (inner[0], -inner[1], -inner[2])
    if not isinstance(e, X.Arith) or e.op not in ("+", "-", "*"):
        return None
    left, right = _linear(e.left), _linear(e.right)
    if left is None or right is None or (left[0] is not None and right[0] is not None):
        return None
    col = left[0] or right[0]
    if e.op == "*":
        if left[0] is None:
            return col, left[2] * right[1], left[2] * right[2]
        return col, left[1] * right[2], left[2] * right[2]
    sign = 1 if e.op == "+" else -1
    return col, left[1] + sign * right[1], left[2] + sign * right[2]


def _constant(e: X.Expr) -> Fraction | None:
    """The exact value of an integer or decimal literal, through casts that keep it.

    >>> _constant(X.Cast(X.Cast(X.Lit(101, "int"), "decimal(3,0)"), "decimal(11,2)"))
    Fraction(101, 1)
    >>> _constant(X.Lit(0.5, "double")) is None  # a double literal belongs to double arithmetic
    True
    """
    if isinstance(e, X.Lit):
        v = e.value
        if isinstance(v, bool) or v is None:
            return None
        if isinstance(v, int) and e.dtype in INTEGRAL:
            return Fraction(v)
        if isinstance(v, (int, float, str)) and is_decimal(e.dtype):
            try:
                return Fraction(repr(v) if isinstance(v, float) else str(v))
            except ValueError:
                return None
        return None
    if isinstance(e, X.Cast):
        inner = _constant(e.arg)
        if inner is None:
            return None
        if e.dtype in INTEGRAL:
            bits = INTEGER_BITS[e.dtype]
            return inner if inner.denominator == 1 and -(2 ** (bits - 1)) <= inner < 2 ** (bits - 1) else None
        if is_decimal(e.dtype):
            p, s = operand_decimal(e.dtype)
            return inner if (inner * 10 ** s).denominator == 1 and abs(inner) < 10 ** (p - s) else None
    return None


def _fold_constants(e: X.Expr) -> X.Expr:
    """`e` with each cast of a decimal constant replaced by the constant, where the cast
    keeps its value exactly (`_constant` says so).

    >>> str(_fold_constants(X.Cast(X.Lit("201.50", "decimal(5,2)"), "decimal(12,2)")))
    "'201.5'"
    """
    def fold(node: X.Expr) -> X.Expr | None:
        if isinstance(node, X.Cast) and is_decimal(node.dtype):
            value = _constant(node)
            lit = None if value is None else _decimal_literal(value)
            return lit
        return None
    return X.transform(e, fold)


def _integer_bound(col: X.Col, op: str, bound: Fraction) -> X.Expr | None:
    """`col <op> bound` for an integer column, the bound rounded the way that keeps the rows."""
    if op in ("=", "!="):
        if bound.denominator != 1:
            return None  # never (or always) equal: not a range worth pushing
        value = int(bound)
    else:
        value = math.floor(bound) if op in (">", "<=") else math.ceil(bound)
    if not -(2 ** 63) <= value < 2 ** 63:
        return None
    dtype = "int" if -(2 ** 31) <= value < 2 ** 31 else "long"
    return X.Cmp(op, col, X.Lit(value, dtype))


def _decimal_literal(v: Fraction) -> X.Lit | None:
    """`v` as an exact decimal literal, or None when it has no finite decimal expansion.

    >>> _decimal_literal(Fraction(399, 4)), _decimal_literal(Fraction(100))
    (Lit(value='99.75', dtype='decimal(4,2)'), Lit(value=100, dtype='int'))
    >>> _decimal_literal(Fraction(10, 3)) is None
    True
    """
    if v.denominator == 1 and -(2 ** 31) <= v < 2 ** 31:
        return X.Lit(int(v), "int")
    scale = next((s for s in range(MAX_DECIMAL_PRECISION + 1) if (v * 10 ** s).denominator == 1), None)
    if scale is None:
        return None
    digits = abs(int(v * 10 ** scale))
    precision = max(len(str(digits)), scale + 1)
    if precision > MAX_DECIMAL_PRECISION:
        return None
    sign = "-" if v < 0 else ""
    text = str(digits).rjust(scale + 1, "0")
    text = f"{sign}{text[:-scale]}.{text[-scale:]}" if scale else f"{sign}{text}"
    return X.Lit(text, f"decimal({precision},{scale})")


# -- a when-chain compared with a literal

def _case_forms(c: X.Expr) -> Iterator[X.Expr]:
    """The conditions under which the chain gives a value that passes the comparison: the
    plain form first (a condition is "not true" as its negation), then the exact one (a NULL
    condition falls through to the next branch, so "not true" includes NULL).

    >>> a = X.Col("a", 1, "int")
    >>> chain = X.Case(((X.Cmp(">", a, X.Lit(10, "int")), X.Lit("hi", "string")),
    ...                 (X.Cmp(">", a, X.Lit(5, "int")), X.Lit("mid", "string"))), X.Lit("lo", "string"))
    >>> [str(f) for f in _case_forms(X.Cmp("=", chain, X.Lit("mid", "string")))]
    ['a <= 10 AND a > 5', '(a <= 10 OR a IS NULL) AND a > 5']
    """
    parts = _literal_right(c)
    if parts is None:
        return
    op, chain, lit = parts
    if not (isinstance(chain, X.Case) and isinstance(lit, X.Lit) and lit.value is not None
            and len(chain.branches) <= _MAX_BRANCHES):
        return
    outcomes = [v for _, v in chain.branches] + [chain.default]
    passes = [_passes(v, op, lit) for v in outcomes]
    if any(p is None for p in passes):
        return
    for exact in (False, True):
        yield _chain_form(chain, passes, exact)


def _passes(value: X.Expr, op: str, lit: X.Lit) -> bool | None:
    """Whether a branch's constant passes `<op> lit` (a NULL never does); None if not a constant."""
    if not isinstance(value, X.Lit):
        return None
    v, k = value.value, lit.value
    if v is None:
        return False
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (v, k))
    if numbers or (op in ("=", "!=") and type(v) is type(k) and isinstance(v, (str, bool))):
        return {"=": v == k, "!=": v != k, "<": v < k, "<=": v <= k, ">": v > k, ">=": v >= k}[op]
    return None


def _chain_form(chain: X.Case, passes: list[bool], exact: bool) -> X.Expr:
    conds = [cond for cond, _ in chain.branches]
    taken = []
    for i, ok in enumerate(passes):
        if ok:
            earlier = [_not_true(x, exact) for x in conds[:i]]
            taken.append(X.and_(*earlier, *(conds[i:i + 1])))
    return X.or_(*taken)


def _not_true(cond: X.Expr, exact: bool) -> X.Expr:
    """A filter's view of "`cond` is not TRUE": its negation, or NULL as well when `exact`."""
    negated = _negate(cond)
    if not exact:
        return negated
    return X.or_(negated, X.IsNull(_null_source(cond)))


def _negate(cond: X.Expr) -> X.Expr:
    if isinstance(cond, X.Cmp) and cond.op in _NEGATED:
        return X.Cmp(_NEGATED[cond.op], cond.left, cond.right)
    if isinstance(cond, X.Not):
        return cond.arg
    return X.Not(cond)


def _null_source(cond: X.Expr) -> X.Expr:
    """What makes a comparison with a non-NULL literal NULL: its other side."""
    if isinstance(cond, X.Cmp) and cond.op in _NEGATED:
        if isinstance(cond.right, X.Lit) and cond.right.value is not None:
            return cond.left
        if isinstance(cond.left, X.Lit) and cond.left.value is not None:
            return cond.right
    return cond
