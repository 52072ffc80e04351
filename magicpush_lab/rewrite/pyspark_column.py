"""IR expressions as live PySpark Columns, for measuring a predicate on the notebook's data.

The Column built here must mean exactly what the code of `pyspark_code.to_pyspark`
means, since that code is what ends up in the notebook; both modules share the
literal and function-argument rules defined here.

>>> from magicpush_lab.ir.expr import Cmp, Col, Lit
>>> column_ref("v"), column_ref("a.b")
('v', '`a.b`')
"""

from __future__ import annotations

import datetime as _dt
import inspect
import json
import math
import re
from functools import lru_cache, reduce
from typing import Any, Callable, Mapping

from magicpush_lab.ir import expr as X

# Spark's own names for the comparison operators of the IR.
COMPARISONS = {"=": "==", "==": "==", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
ARITHMETIC = ("+", "-", "*", "/", "%")

# The type F.lit gives a Python value without a cast; a literal whose IR type
# differs only in width needs no cast, Spark widens it in comparisons.
_NO_CAST = {"other", "null", "void", "int", "bigint", "smallint", "tinyint", "double", "float",
            "string", "boolean", "date", "timestamp",
            # the same types as Spark's JSON plans name them
            "integer", "long", "short", "byte"}


def col_ref(c: X.Col) -> str:
    """The string to hand to F.col for `c`: its name read as one column, or, for a field of a
    struct extremum (`first.day`), the struct path it is.

    >>> col_ref(X.Col("a.b", 3)), col_ref(X.Col("first.day", X.STRUCT_FIELD_IDS + 7))
    ('`a.b`', 'first.day')
    """
    if X.is_struct_field(c) and c.name.count(".") == 1 and "`" not in c.name:
        return c.name
    return column_ref(c.name)


def column_ref(name: str) -> str:
    """The string to hand to F.col so that `name` is read as one column, never a struct path.

    >>> column_ref("price"), column_ref("odd`name.x")
    ('price', '`odd``name.x`')
    """
    if "." in name or "`" in name:
        return "`" + name.replace("`", "``") + "`"
    return name


def literal_cast(lit: X.Lit) -> str | None:
    """The type a literal must be cast to so Spark sees the IR's type, or None.

    >>> literal_cast(X.Lit(None, "int")), literal_cast(X.Lit(3, "int")), literal_cast(X.Lit(1.5, "decimal(4,2)"))
    ('int', None, 'decimal(4,2)')
    """
    if lit.value is None:
        return None if lit.dtype in ("other", "null", "void") else lit.dtype
    if lit.dtype.startswith("decimal"):
        return lit.dtype
    if lit.dtype not in _NO_CAST:
        return lit.dtype
    return None


def check_literal(value: Any) -> None:
    """Reject values the IR does not allow, so both renderings fail the same way."""
    if value is None or isinstance(value, (bool, int, str, _dt.date, _dt.datetime)):
        return
    if isinstance(value, float):
        return
    raise ValueError(f"unsupported literal {value!r}")


def early_date(value: Any) -> bool:
    """A date before the year 1000, which `F.lit` cannot take: PySpark hands a date to the JVM
    as `strftime("%Y-%m-%d")`, and the C library writes the year 2 as "2", which Java's
    `Date.valueOf` rejects (IllegalArgumentException). Such a literal is written as its ISO
    string cast to date, which Spark reads exactly.

    >>> early_date(_dt.date(2, 1, 1)), early_date(_dt.date(1000, 1, 1)), early_date(_dt.datetime(2, 1, 1))
    (True, False, False)
    """
    return isinstance(value, _dt.date) and not isinstance(value, _dt.datetime) and value.year < 1000


@lru_cache(maxsize=None)
def function_arg_modes(name: str, nargs: int) -> tuple[str, ...]:
    """For each argument of `pyspark.sql.functions.<name>`, "column" or "value".

    A literal passed where the function expects a column name must be wrapped in
    F.lit (a bare string would be read as a column name); where the signature also
    takes plain Python values, the literal is passed as it is.

    >>> function_arg_modes("substring", 3)
    ('column', 'value', 'value')
    >>> function_arg_modes("concat", 2)
    ('column', 'column')
    """
    fn = spark_function(name)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return ("column",) * nargs
    modes: list[str] = []
    for i in range(nargs):
        if i < len(params) and params[i].kind != inspect.Parameter.VAR_POSITIONAL:
            p = params[i]
        elif params and params[-1].kind == inspect.Parameter.VAR_POSITIONAL:
            p = params[-1]
        else:
            raise ValueError(f"too many arguments for pyspark.sql.functions.{name}")
        ann = str(p.annotation)
        takes_value = re.search(r"\b(int|float|str|bool)\b", ann) is not None
        modes.append("value" if takes_value and p.kind != inspect.Parameter.VAR_POSITIONAL else "column")
    return tuple(modes)


def spark_function(name: str) -> Any:
    """`pyspark.sql.functions.<name>`, or ValueError if there is no such function."""
    from pyspark.sql import functions as F

    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or name.startswith("_"):
        raise ValueError(f"not a Spark function name: {name!r}")
    fn = getattr(F, name, None)
    if not callable(fn) or name in ("udf", "pandas_udf", "col", "lit", "expr", "call_function"):
        raise ValueError(f"no usable pyspark.sql.functions.{name}")
    return fn


def check_params(e: X.Func) -> None:
    """ValueError unless `pyspark.sql.functions.<name>(args)` builds `e` again: the Catalyst
    node's other fields must be ones the function sets the same way in this session."""
    if not e.params:
        return
    extra = {k: v for k, v in json.loads(e.params).items() if _BENIGN_PARAMS.get(k, _NOT_BENIGN) in (v, _ANY)}
    rest = sorted(set(json.loads(e.params)) - set(extra))
    if rest:
        raise ValueError(f"{e.name} has settings its PySpark function would not carry ({', '.join(rest)})")


_ANY, _NOT_BENIGN = object(), object()
# fields a PySpark function fills in from the session (ANSI mode, time zone: the rewrite runs
# in the notebook's own session), or always to this value
_BENIGN_PARAMS: dict[str, Any] = {"failOnError": _ANY, "evalMode": _ANY, "ansiEnabled": _ANY,
                                  "timeZoneId": _ANY, "escapeChar": "\\",
                                  "seed": 42}  # the hash functions' seed


def to_column(e: X.Expr, udf: Callable[[X.PyUdf], Any] | None = None,
              bound: Mapping[X.Col, Any] | None = None) -> Any:
    """Build the PySpark Column of an IR expression; ValueError for unknown nodes, and for Python
    UDFs unless `udf` makes their PySpark UDF (predicates never call one; tests that run whole
    IR plans on Spark do)."""
    from pyspark.sql import functions as F

    if isinstance(e, X.Col):
        if bound and e in bound:  # a lambda's variable
            return bound[e]
        return F.col(col_ref(e))
    if isinstance(e, X.Lit):
        check_literal(e.value)
        c = F.lit(e.value.isoformat()).cast("date") if early_date(e.value) else F.lit(e.value)
        cast = literal_cast(e)
        return c.cast(cast) if cast else c
    if isinstance(e, X.PyUdf):
        if udf is None:
            raise ValueError(f"predicate calls the Python UDF {e.name}; it is never measured")
        return udf(e)(*[to_column(a, udf, bound) for a in e.args])
    if isinstance(e, X.ArrayExists):
        return F.exists(to_column(e.array, udf, bound),
                        lambda x: to_column(e.body, udf, {**(bound or {}), e.var: x}))
    if isinstance(e, X.Agg):
        if e.by is not None and e.fn in ("max_by", "min_by") and e.arg is not None:
            from pyspark.sql import functions as F

            return getattr(F, e.fn)(to_column(e.arg, udf, bound), to_column(e.by, udf, bound))
        return _aggregate(e, None if e.arg is None else to_column(e.arg, udf, bound))
    if isinstance(e, X.Arith):
        if e.op not in ARITHMETIC:
            raise ValueError(f"unknown arithmetic operator {e.op!r}")
        left, right = to_column(e.left, udf, bound), to_column(e.right, udf, bound)
        return {"+": left.__add__, "-": left.__sub__, "*": left.__mul__,
                "/": left.__truediv__, "%": left.__mod__}[e.op](right)
    if isinstance(e, X.Neg):
        return -to_column(e.arg, udf, bound)
    if isinstance(e, X.Cmp):
        left, right = to_column(e.left, udf, bound), to_column(e.right, udf, bound)
        if e.op == "<=>":
            return left.eqNullSafe(right)
        op = COMPARISONS.get(e.op)
        if op is None:
            raise ValueError(f"unknown comparison {e.op!r}")
        return {"==": left.__eq__, "!=": left.__ne__, "<": left.__lt__, "<=": left.__le__,
                ">": left.__gt__, ">=": left.__ge__}[op](right)
    if isinstance(e, X.And):
        return reduce(lambda a, b: a & b, (to_column(a, udf, bound) for a in e.args))
    if isinstance(e, X.Or):
        return reduce(lambda a, b: a | b, (to_column(a, udf, bound) for a in e.args))
    if isinstance(e, X.Not):
        return ~to_column(e.arg, udf, bound)
    if isinstance(e, X.IsNull):
        return to_column(e.arg, udf, bound).isNull()
    if isinstance(e, X.IsNotNull):
        return to_column(e.arg, udf, bound).isNotNull()
    if isinstance(e, X.In):
        return to_column(e.arg, udf, bound).isin(*[to_column(v, udf, bound) for v in e.values])
    if isinstance(e, X.Case):
        if not e.branches:
            return to_column(e.default, udf, bound)
        (c0, v0), *rest = e.branches
        out = F.when(to_column(c0, udf, bound), to_column(v0, udf, bound))
        for c, v in rest:
            out = out.when(to_column(c, udf, bound), to_column(v, udf, bound))
        return out.otherwise(to_column(e.default, udf, bound))
    if isinstance(e, X.Coalesce):
        return F.coalesce(*[to_column(a, udf, bound) for a in e.args])
    if isinstance(e, X.Cast):
        return to_column(e.arg, udf, bound).cast(e.dtype)
    if isinstance(e, X.Func) and e.name == X.TRY_CAST and len(e.args) == 1:
        return to_column(e.args[0], udf, bound).try_cast(e.dtype)
    if isinstance(e, X.Func):
        fn = spark_function(e.name)
        check_params(e)
        modes = function_arg_modes(e.name, len(e.args))
        args = [a.value if m == "value" and isinstance(a, X.Lit) and literal_cast(a) is None
                else to_column(a, udf, bound) for a, m in zip(e.args, modes)]
        return fn(*args)
    raise ValueError(f"cannot build a Column from {type(e).__name__}")


def _aggregate(e: X.Agg, arg: Any) -> Any:
    from pyspark.sql import functions as F

    if e.fn in ("second_max", "second_min") and arg is not None:  # get() is NULL past the end
        return F.get(F.sort_array(F.collect_list(arg), asc=e.fn == "second_min"), 1)
    if e.fn not in ("max", "min", "sum", "count", "avg", "first"):
        raise ValueError(f"no PySpark aggregate for {e.fn}")
    if arg is None:
        return F.count(F.lit(1))
    if e.distinct and e.fn in ("count", "sum"):
        return F.count_distinct(arg) if e.fn == "count" else F.sum_distinct(arg)
    return getattr(F, e.fn)(arg)


def is_finite_number(v: Any) -> bool:
    """True for ints and finite floats (NaN and infinities need special spelling in code).

    >>> is_finite_number(3), is_finite_number(float("nan")), is_finite_number("x")
    (True, False, False)
    """
    return isinstance(v, int) or (isinstance(v, float) and math.isfinite(v))
