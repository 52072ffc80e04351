"""IR expressions -> Z3 terms under Spark SQL semantics (three-valued logic, NULL propagation).

`Evaluator.eval(expr, row)` returns a `Cell`. Errors the expression can raise
at run time (a Python UDF failing on None, a division by zero in a UDF) are
collected in `Evaluator.errors` as conditions; verification decides what to
do with them (docs/semantics.md, "Errors").

>>> import z3
>>> from magicpush_lab.ir.expr import Cmp, Col, Lit
>>> from magicpush_lab.symbolic.table import SymbolicRow
>>> row = SymbolicRow("t")
>>> cell = Evaluator().eval(Cmp(">", Col("v", 1, "int"), Lit(3, "int")), row)
>>> z3.is_bool(cell.value)
True
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.types import INTEGER_BITS, INTEGER_RANK, decimal_shape, decimal_widens, integer_widens
from magicpush_lab.symbolic import spark_functions
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.symbolic.values import Cell, NotModelled, default_value, fresh, literal, sort_of

T = z3.BoolVal(True)
F = z3.BoolVal(False)


def truth(c: Cell) -> z3.BoolRef:
    """A predicate cell as a filter sees it: NULL counts as false."""
    if not z3.is_bool(c.value):
        raise NotModelled(f"a filter condition of sort {c.sort}")
    return z3.And(c.notnull, c.value)


@dataclass
class Evaluator:
    """Evaluates expressions over symbolic rows; one instance per verification query."""

    errors: list[z3.BoolRef] = field(default_factory=list)
    _functions: dict[tuple, z3.FuncDeclRef] = field(default_factory=dict)
    # where a cast may fail: it raises under ANSI mode and gives NULL (try_cast, legacy mode)
    # otherwise, and the plan does not say which (docs/semantics.md, "Casts that can fail")
    cast_failures: list[z3.BoolRef] = field(default_factory=list)

    def error(self) -> z3.BoolRef:
        return z3.Or(*self.errors) if self.errors else F

    def cast_failure(self) -> z3.BoolRef:
        return z3.Or(*self.cast_failures) if self.cast_failures else F

    def eval(self, e: X.Expr, row: SymbolicRow) -> Cell:
        method = getattr(self, f"_{type(e).__name__}")
        return method(e, row)

    def eval_guarded(self, e: X.Expr, row: SymbolicRow, guard: z3.BoolRef) -> Cell:
        """Evaluate `e` where it only runs when `guard` holds: its errors count only then."""
        mark, cast_mark = len(self.errors), len(self.cast_failures)
        cell = self.eval(e, row)
        self.errors[mark:] = [z3.And(guard, err) for err in self.errors[mark:]]
        self.cast_failures[cast_mark:] = [z3.And(guard, err) for err in self.cast_failures[cast_mark:]]
        return cell

    # -- leaves
    def _Col(self, e: X.Col, row: SymbolicRow) -> Cell:
        return row.cell(e)

    def _Lit(self, e: X.Lit, row: SymbolicRow) -> Cell:
        return literal(e.value, e.dtype)

    # -- arithmetic
    def _Arith(self, e: X.Arith, row: SymbolicRow) -> Cell:
        a, b = self.eval(e.left, row), self.eval(e.right, row)
        if not (_is_number(a) and _is_number(b)):
            # a timestamp and an interval, say: not numbers here, but the same inputs give the
            # same output, and a NULL input a NULL output
            out = self._uninterpreted(f"arith{e.op}", (a, b), sort_of(e.dtype))
            return Cell(out.value, z3.And(a.notnull, b.notnull, out.notnull))
        a, b = _unify(a, b)
        nn = z3.And(a.notnull, b.notnull)
        if e.op == "+":
            return Cell(a.value + b.value, nn)
        if e.op == "-":
            return Cell(a.value - b.value, nn)
        if e.op == "*":
            return Cell(a.value * b.value, nn)
        if e.op == "/":
            a, b = _as_real(a), _as_real(b)
            # x / 0 is NULL without ANSI mode and an error with it; both are
            # modelled as a NULL result (docs/semantics.md, "Errors")
            return Cell(a.value / b.value, z3.And(nn, b.value != 0))
        if e.op in ("%", "div") and a.sort == z3.IntSort():
            q = _trunc_div(a.value, b.value)
            value = q if e.op == "div" else a.value - b.value * q
            return Cell(value, z3.And(nn, b.value != 0))
        return self._uninterpreted(f"arith{e.op}", (a, b), sort_of(e.dtype))

    def _Neg(self, e: X.Neg, row: SymbolicRow) -> Cell:
        a = self.eval(e.arg, row)
        if not _is_number(a):  # an interval
            out = self._uninterpreted("neg", (a,), a.sort)
            return Cell(out.value, z3.And(a.notnull, out.notnull))
        return Cell(-a.value, a.notnull)

    # -- comparisons and logic
    def _Cmp(self, e: X.Cmp, row: SymbolicRow) -> Cell:
        a, b = _unify(self.eval(e.left, row), self.eval(e.right, row))
        if e.op == "<=>":
            both = z3.And(a.notnull, b.notnull)
            return Cell(z3.If(both, a.value == b.value, a.notnull == b.notnull), T)
        return Cell(compare(e.op, a.value, b.value), z3.And(a.notnull, b.notnull))

    def _And(self, e: X.And, row: SymbolicRow) -> Cell:
        cells = [self.eval(a, row) for a in e.args]
        all_true = z3.And(*[truth(c) for c in cells])
        any_false = z3.Or(*[z3.And(c.notnull, z3.Not(c.value)) for c in cells])
        return Cell(all_true, z3.Or(all_true, any_false))

    def _Or(self, e: X.Or, row: SymbolicRow) -> Cell:
        cells = [self.eval(a, row) for a in e.args]
        any_true = z3.Or(*[truth(c) for c in cells])
        all_false = z3.And(*[z3.And(c.notnull, z3.Not(c.value)) for c in cells])
        return Cell(any_true, z3.Or(any_true, all_false))

    def _Not(self, e: X.Not, row: SymbolicRow) -> Cell:
        c = self.eval(e.arg, row)
        return Cell(z3.Not(c.value), c.notnull)

    def _IsNull(self, e: X.IsNull, row: SymbolicRow) -> Cell:
        return Cell(z3.Not(self.eval(e.arg, row).notnull), T)

    def _IsNotNull(self, e: X.IsNotNull, row: SymbolicRow) -> Cell:
        return Cell(self.eval(e.arg, row).notnull, T)

    def _In(self, e: X.In, row: SymbolicRow) -> Cell:
        x = self.eval(e.arg, row)
        items = [_unify(x, self.eval(v, row)) for v in e.values]
        hit = z3.Or(*[z3.And(b.notnull, a.value == b.value) for a, b in items]) if items else F
        some_null = z3.Or(*[z3.Not(b.notnull) for _, b in items]) if items else F
        # SQL: NULL IN (...) is NULL; no match with a NULL in the list is NULL
        return Cell(hit, z3.And(x.notnull, z3.Or(hit, z3.Not(some_null))))

    def _Case(self, e: X.Case, row: SymbolicRow) -> Cell:
        result = self.eval(e.default, row)
        for cond, val in reversed(e.branches):
            c = truth(self.eval(cond, row))
            v = self.eval(val, row)
            v, result = _unify(v, result)
            result = Cell(z3.If(c, v.value, result.value), z3.If(c, v.notnull, result.notnull))
        return result

    def _Coalesce(self, e: X.Coalesce, row: SymbolicRow) -> Cell:
        cells = [self.eval(a, row) for a in e.args]
        result = cells[-1]
        for c in reversed(cells[:-1]):
            c, result = _unify(c, result)
            result = Cell(z3.If(c.notnull, c.value, result.value), z3.Or(c.notnull, result.notnull))
        return result

    def _Cast(self, e: X.Cast, row: SymbolicRow) -> Cell:
        a = self.eval(e.arg, row)
        target = sort_of(e.dtype)
        src = getattr(e.arg, "dtype", "other")
        if src == e.dtype or integer_widens(src, e.dtype):
            return a
        if isinstance(e.arg, X.Lit) and e.arg.value is None:
            return Cell(default_value(target), F)
        folded = _cast_literal(e.arg, e.dtype) or _cast_digits(a, src, e.dtype)
        if folded is not None:
            return folded
        if src in INTEGER_RANK and target == z3.RealSort() and not e.dtype.startswith("decimal"):
            return Cell(z3.ToReal(a.value), a.notnull)
        if src == "boolean" and (e.dtype in INTEGER_RANK or e.dtype in ("double", "float")):
            # Spark casts TRUE to 1 and FALSE to 0, and never fails
            one, zero = (z3.IntVal(1), z3.IntVal(0)) if e.dtype in INTEGER_RANK else (z3.RealVal(1), z3.RealVal(0))
            return Cell(z3.If(a.value, one, zero), a.notnull)
        unknown = self._uninterpreted(f"cast_{e.dtype}", (a,), target, may_be_null=True)
        if not _cast_can_fail(src, e.dtype):
            return unknown
        if src in INTEGER_RANK and e.dtype in INTEGER_RANK:
            # integer narrowing: exact where the value fits, unknown (raise, NULL or wrap) where not
            bits = INTEGER_BITS[e.dtype]
            fits = z3.And(a.value >= -(2 ** (bits - 1)), a.value < 2 ** (bits - 1))
            self.cast_failures.append(z3.And(a.notnull, z3.Not(fits)))
            return Cell(z3.If(fits, a.value, unknown.value), z3.If(fits, a.notnull, unknown.notnull))
        # which values fail is not modelled: a predicate named by the cast, the same in every
        # evaluator, so the original and the rewrite fail on the same values
        fails = z3.Function(f"cast_fails_{_safe_name(src)}_{_safe_name(e.dtype)}", a.sort, z3.BoolSort())
        self.cast_failures.append(z3.And(a.notnull, fails(a.value)))
        return unknown

    # -- functions
    def _Func(self, e: X.Func, row: SymbolicRow) -> Cell:
        if e.name == "size" and len(e.args) == 1 and isinstance(e.args[0], X.Func) and e.args[0].name == "split" \
                and len(e.args[0].args) == 3 and all(isinstance(a, X.Lit) for a in e.args[0].args[1:]) \
                and X.dtype_of(e.args[0].args[0]) == "string":
            split = e.args[0]
            pieces = spark_functions.size_of_split(self.eval(split.args[0], row), split.args[1].value,
                                                   split.args[2].value)
            if pieces is not None:
                return pieces
        args = tuple(self.eval(a, row) for a in e.args)
        sort = sort_of(e.dtype)
        if not e.deterministic:
            # a nondeterministic call is a fresh unknown at every evaluation, so
            # no proof can rely on two evaluations agreeing
            return Cell(fresh(e.name, sort), fresh(f"nn_{e.name}", z3.BoolSort()))
        if e.name == "abs" and len(args) == 1:
            a = args[0]
            return Cell(z3.If(a.value >= 0, a.value, -a.value), a.notnull)
        exact = spark_functions.encode(e.name, args, tuple(X.dtype_of(a) for a in e.args))
        if exact is not None:  # the calendar fields, substring, concat, rlike...: as UDF bodies compute them
            return exact
        if e.name in ("greatest", "least") and len(args) >= 2 and len({a.sort for a in args}) == 1:
            return _extreme(">" if e.name == "greatest" else "<", args)
        encoded = _STRING_FUNCTIONS.get((e.name, len(args)))
        if encoded is not None and all(a.sort == z3.StringSort() for a in args):
            # NULL in, NULL out, as for Spark's string functions
            return Cell(encoded(*[a.value for a in args]), z3.And(*[a.notnull for a in args]))
        name = e.name
        if e.params:  # a struct's second field is another function than its first
            name += "_" + hashlib.sha256(e.params.encode()).hexdigest()[:16]
        return self._uninterpreted(name, args, sort, may_be_null=True)

    def _PyUdf(self, e: X.PyUdf, row: SymbolicRow) -> Cell:
        from magicpush_lab.symbolic.python_udf import interpret_call

        args = tuple(self.eval(a, row) for a in e.args)
        if not e.deterministic:
            raise NotModelled(f"UDF {e.name} is nondeterministic")
        if e.kind == "pandas":
            return self._pandas_udf(e, args)
        if e.source is not None:
            try:
                arg_types = tuple(getattr(a, "dtype", "other") for a in e.args)
                result = interpret_call(e.source, args, e.dtype, arg_types, e.arrow) if e.kind == "python" else None
            except NotModelled:
                result = None
            if result is not None:
                cell, error = result
                self.errors.append(error)
                return cell
        # no source or not interpretable: a black box (uninterpreted function)
        return self._uninterpreted(f"udf_{e.name}", args, sort_of(e.dtype), may_be_null=True)

    def _pandas_udf(self, e: X.PyUdf, args: tuple[Cell, ...]) -> Cell:
        """A scalar pandas UDF read element by element; never a deterministic black box, since
        an unread body may depend on its batch (symbolic/pandas_udf.py)."""
        from magicpush_lab.symbolic.pandas_udf import interpret_call

        if e.batch_dependent or e.source is None:
            raise NotModelled(f"pandas UDF {e.name} may depend on its batch")
        arg_types = tuple(X.dtype_of(a) for a in e.args)
        # the unknown part is dropped: translation proved it empty for every argument value in
        # its type's range, and Spark never passes a value outside it
        cell, error, _ = interpret_call(e.source, args, e.dtype, arg_types)
        self.errors.append(error)
        return cell

    def _ArrayExists(self, e: X.ArrayExists, row: SymbolicRow) -> Cell:
        """exists(array, var -> body) as a black box of the array and the row columns the body
        reads: two calls with the same body agree on the same values. What links it to the
        array's elements (an element passing the body makes it TRUE) is added by the ROW-EXPAND
        check, the one place that knows an element of the array."""
        free = sorted(X.columns(e.body) - {e.var}, key=lambda c: (c.name, c.id))
        # the body with its free columns numbered identifies the function across rows and sides
        shape = str(X.substitute(e.body, {c: X.Col(f"${i}", -1 - i, c.dtype) for i, c in enumerate(free)}))
        args = (self.eval(e.array, row), *(self.eval(c, row) for c in free))
        # named by the shape itself, so every evaluator of one query means the same function by it
        name = "exists_" + hashlib.sha256(shape.encode()).hexdigest()[:24]
        canon = [x for a in args for x in (z3.If(a.notnull, a.value, default_value(a.sort)), a.notnull)]
        domain = [x.sort() for x in canon]
        value = z3.Function(name, *domain, z3.BoolSort())(*canon)
        notnull = z3.Function(name + "_nn", *domain, z3.BoolSort())(*canon)
        return Cell(value, notnull)

    def _uninterpreted(self, name: str, args: tuple[Cell, ...], sort: z3.SortRef,
                       may_be_null: bool = True) -> Cell:
        """A deterministic black box: same inputs (NULLs included) give the same output."""
        canon = []
        for a in args:
            canon.append(z3.If(a.notnull, a.value, default_value(a.sort)))
            canon.append(a.notnull)
        domain = tuple(x.sort() for x in canon)
        key = (name, domain, sort)
        if key not in self._functions:
            # named by the signature, not by the order of first use: every evaluator of one
            # proof (the original's, the rewrite's) must mean the same function by one call
            signature = "_".join(str(x) for x in (*domain, sort))
            self._functions[key] = (
                z3.Function(f"{name}__{signature}", *domain, sort),
                z3.Function(f"{name}_nn__{signature}", *domain, z3.BoolSort()),
            )
        fv, fn = self._functions[key]
        if not canon:  # a zero-argument function is a constant within one query
            return Cell(z3.Const(f"{name}_const", sort), z3.Bool(f"{name}_const_nn") if may_be_null else T)
        return Cell(fv(*canon), fn(*canon) if may_be_null else T)


# Spark string functions with an exact Z3 counterpart (lengths count characters, as Spark's do)
_STRING_FUNCTIONS = {
    ("contains", 2): lambda s, x: z3.Contains(s, x),
    ("startswith", 2): lambda s, x: z3.PrefixOf(x, s),
    ("starts_with", 2): lambda s, x: z3.PrefixOf(x, s),
    ("endswith", 2): lambda s, x: z3.SuffixOf(x, s),
    ("ends_with", 2): lambda s, x: z3.SuffixOf(x, s),
    ("length", 1): lambda s: z3.Length(s),
}


def civil_year(days: z3.ArithRef) -> z3.ArithRef:
    """The proleptic Gregorian year of a date held as days since 1970-01-01, exactly, with
    integer divisions by constants only (the civil-from-days method: 400-year eras of
    146097 days, years counted from March so the leap day comes last).

    >>> import datetime as dt
    >>> [z3.simplify(civil_year(z3.IntVal((d - dt.date(1970, 1, 1)).days))).as_long()
    ...  for d in (dt.date(2024, 1, 1), dt.date(2023, 12, 31), dt.date(2000, 2, 29), dt.date(1600, 3, 1))]
    [2024, 2023, 2000, 1600]
    """
    z = days + 719468
    era = z / 146097  # Z3's integer division floors for a positive divisor
    doe = z - era * 146097
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    mp = (5 * doy + 2) / 153
    return yoe + era * 400 + z3.If(mp >= 10, 1, 0)  # January and February end the March year


def _extreme(op: str, args: tuple[Cell, ...]) -> Cell:
    """Spark's greatest/least: NULL arguments are skipped; NULL only when all are NULL."""
    best = args[0]
    for a in args[1:]:
        take = z3.And(a.notnull, z3.Or(z3.Not(best.notnull), compare(op, a.value, best.value)))
        best = Cell(z3.If(take, a.value, best.value), z3.Or(best.notnull, a.notnull))
    return best


def compare(op: str, a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef:
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    if a.sort() == z3.BoolSort():
        ai, bi = z3.If(a, 1, 0), z3.If(b, 1, 0)
        return compare(op, ai, bi)
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _cast_literal(arg: X.Expr, dtype: str) -> Cell | None:
    """A number literal (or a cast of one) cast to a number type, when the cast is exact
    (0.0 to int, 3 to double, 1 to decimal(15,2)): the cast cannot fail, and its value is known.

    >>> one = X.Cast(X.Lit(1, "int"), "decimal(1,0)")
    >>> _cast_literal(one, "decimal(15,2)").value
    1
    """
    value = _constant_number(arg)
    if value is None:
        return None
    if dtype in INTEGER_RANK and float(value).is_integer():
        return literal(int(value), dtype)
    if dtype in ("double", "float"):
        return literal(float(value), dtype)
    if _fits_decimal(value, dtype):
        return Cell(z3.RealVal(str(value) if isinstance(value, Fraction) else value), T)
    return None


def _cast_digits(a: Cell, src: str, dtype: str) -> Cell | None:
    """A known text of plain decimal digits (an optional sign, no spaces) cast to an integer type
    it fits: the cast cannot fail, and its value is the number (`'041'` is 41).

    >>> _cast_digits(Cell(z3.StringVal("041"), T), "string", "int").value
    41
    >>> _cast_digits(Cell(z3.StringVal(" 41"), T), "string", "int") is None
    True
    """
    if src != "string" or dtype not in INTEGER_RANK or not z3.is_true(z3.simplify(a.notnull)):
        return None
    text = z3.simplify(a.value)
    if not z3.is_string_value(text) or not re.fullmatch(r"[+-]?[0-9]{1,19}", text.as_string()):
        return None
    value, bits = int(text.as_string()), INTEGER_BITS[dtype]
    return literal(value, dtype) if -(2 ** (bits - 1)) <= value < 2 ** (bits - 1) else None


def _constant_number(e: X.Expr) -> int | float | None:
    """The value of a number literal, through casts that keep it exactly."""
    if isinstance(e, X.Lit):
        if isinstance(e.value, str) and e.dtype.startswith("decimal"):
            try:  # Spark writes decimal literals as text: exact as a fraction
                return Fraction(Decimal(e.value))  # type: ignore[return-value]
            except (ArithmeticError, ValueError):
                return None
        ok = isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
        return e.value if ok else None  # type: ignore[return-value]
    if isinstance(e, X.Cast):
        inner = _constant_number(e.arg)
        if inner is None:
            return None
        if e.dtype in INTEGER_RANK and float(inner).is_integer():
            return int(inner)
        if e.dtype in ("double", "float") or _fits_decimal(inner, e.dtype):
            return inner
    return None


def _fits_decimal(value: int | float, dtype: str) -> bool:
    """Whether `value` is exactly a decimal(p, s): at most s digits after the point, p - s before."""
    shape = decimal_shape(dtype)
    if shape is None:
        return False
    precision, scale = shape
    scaled = value * 10 ** scale
    exact = scaled.denominator == 1 if isinstance(scaled, Fraction) else float(scaled).is_integer()
    return exact and abs(value) < 10 ** (precision - scale)


def _unify(a: Cell, b: Cell) -> tuple[Cell, Cell]:
    """Bring two numeric cells to one sort (int is widened to real, as Spark casts)."""
    if a.sort == b.sort:
        return a, b
    if a.sort == z3.IntSort() and b.sort == z3.RealSort():
        return _as_real(a), b
    if a.sort == z3.RealSort() and b.sort == z3.IntSort():
        return a, _as_real(b)
    # a NULL literal of another type: keep its null flag, take the other's sort
    if z3.is_false(z3.simplify(a.notnull)):
        return Cell(default_value(b.sort), a.notnull), b
    if z3.is_false(z3.simplify(b.notnull)):
        return a, Cell(default_value(a.sort), b.notnull)
    raise NotModelled(f"cannot compare {a.sort} with {b.sort}")


def _is_number(c: Cell) -> bool:
    return c.sort in (z3.IntSort(), z3.RealSort())


def _as_real(c: Cell) -> Cell:
    return Cell(z3.ToReal(c.value), c.notnull) if c.sort == z3.IntSort() else c


def _trunc_div(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """Integer division rounding toward zero, as Java and Spark do (Z3's rounds toward -inf for b>0)."""
    q = a / b
    return z3.If(z3.And(a < 0, b * q != a), z3.If(b > 0, q + 1, q - 1), q)






def _cast_can_fail(src: str, target: str) -> bool:
    """Whether Spark's ANSI mode can raise on this cast: anything but a cast to string, a widening
    cast, or an integer to a floating type (decimal targets can overflow)."""
    if target in ("string", src) or integer_widens(src, target) or src == "boolean":
        return False
    shape_src, shape_target = decimal_shape(src), decimal_shape(target)
    if shape_src and shape_target:  # more digits on both sides of the point: never overflows
        return not decimal_widens(src, target)
    if src in INTEGER_RANK and shape_target:
        return shape_target[0] - shape_target[1] < _DIGITS[src]
    return not (src in INTEGER_RANK and target in ("float", "double"))


_DIGITS = {"byte": 3, "short": 5, "int": 10, "long": 19}  # decimal digits of the largest value


def _safe_name(dtype: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in dtype)
