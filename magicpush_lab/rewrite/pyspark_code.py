"""IR expressions as readable PySpark Column code, the text that goes into the notebook.

>>> from magicpush_lab.ir.expr import And, Cmp, Col, Lit
>>> to_pyspark(Cmp(">", Col("v", 1, "int"), Lit(995, "int")))
'F.col("v") > 995'
>>> to_pyspark(And((Cmp(">", Col("a"), Lit(1, "int")), Cmp("=", Col("b"), Lit("x", "string")))), alias="f")
'(f.col("a") > 1) & (f.col("b") == "x")'
>>> from magicpush_lab.ir.expr import IsNotNull
>>> to_pyspark(And((IsNotNull(Col("Book-Title", 1)), IsNotNull(Col("Book-Title", 2)))))  # written once
'F.col("Book-Title").isNotNull()'
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from typing import Sequence

from magicpush_lab.ir import expr as X
from magicpush_lab.rewrite.cellparse import bound_names, parse_cell
from magicpush_lab.rewrite.pyspark_column import (
    ARITHMETIC, COMPARISONS, check_literal, check_params, col_ref, early_date, function_arg_modes, literal_cast,
    spark_function)

# Python operator precedence, lowest first, as it applies to Column expressions.
CMP, BOR, BAND, ADD, MUL, UNARY, ATOM = range(1, 8)
_ARITH_PREC = {"+": ADD, "-": ADD, "*": MUL, "/": MUL, "%": MUL}

FUNCTIONS_IMPORT = "from pyspark.sql import functions as {alias}"


def to_pyspark(expr: X.Expr, alias: str = "F", datetime_module: str = "datetime") -> str:
    """PySpark code for `expr`, using `alias` for pyspark.sql.functions.

    >>> from magicpush_lab.ir.expr import Case, Cmp, Col, In, IsNull, Lit, Not, Or
    >>> to_pyspark(Not(Or((IsNull(Col("s")), In(Col("x"), (Lit(1, "int"), Lit(2, "int")))))))
    '~(F.col("s").isNull() | F.col("x").isin(1, 2))'
    >>> to_pyspark(Cmp(">=", Col("d"), Lit(__import__("datetime").date(2024, 1, 1), "date")))
    'F.col("d") >= datetime.date(2024, 1, 1)'
    >>> to_pyspark(Cmp("<", Lit(3, "int"), Col("n")))
    'F.lit(3) < F.col("n")'
    >>> to_pyspark(Case(((Cmp(">", Col("v"), Lit(0, "int")), Lit("pos", "string")),), Lit(None, "string")))
    'F.when(F.col("v") > 0, "pos").otherwise(F.lit(None).cast("string"))'
    """
    return _Renderer(alias, datetime_module).code(expr, CMP, column=True)


def uses_datetime(expr: X.Expr) -> bool:
    """True if the code of `expr` needs the datetime module (a date or timestamp literal).

    >>> uses_datetime(X.Lit(__import__("datetime").date(2024, 1, 1), "date")), uses_datetime(X.Lit(1, "int"))
    (True, False)
    """
    return any(isinstance(n, X.Lit) and isinstance(n.value, _dt.date) for n in X.walk(expr))


class _Renderer:
    def __init__(self, alias: str, dt: str) -> None:
        self.alias = alias
        self.dt = dt
        self.bound: dict[X.Col, str] = {}  # lambda variables in scope -> their Python names

    def code(self, e: X.Expr, min_prec: int, column: bool) -> str:
        """Code for `e` that can stand where an operand of precedence `min_prec` is needed.

        column: the position needs a Column (a receiver, the left operand, F.coalesce's
        arguments); elsewhere PySpark accepts a plain Python value.
        """
        text, prec = self.render(e, column)
        return f"({text})" if prec < min_prec else text

    def literal(self, v: object) -> str:
        check_literal(v)
        if isinstance(v, float) and not math.isfinite(v):
            return f'float("{v}")'
        if isinstance(v, _dt.datetime):
            if v.tzinfo is not None:
                raise ValueError("timezone-aware timestamp literals are not supported")
            parts = [v.year, v.month, v.day, v.hour, v.minute, v.second] + ([v.microsecond] if v.microsecond else [])
            return f"{self.dt}.datetime({', '.join(map(str, parts))})"
        if early_date(v):  # PySpark cannot pass it to the JVM as a date (pyspark_column.early_date)
            return f'{self.alias}.lit("{v.isoformat()}").cast("date")'
        if isinstance(v, _dt.date):
            return f"{self.dt}.date({v.year}, {v.month}, {v.day})"
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False) if _json_is_python(v) else repr(v)
        return repr(v)

    def render(self, e: X.Expr, column: bool) -> tuple[str, int]:
        a = self.alias
        if isinstance(e, X.Col):
            if e in self.bound:
                return self.bound[e], ATOM
            return f"{a}.col({json.dumps(col_ref(e), ensure_ascii=False)})", ATOM
        if isinstance(e, X.ArrayExists):
            name = f"x{len(self.bound)}" if self.bound else "x"
            array = self.code(e.array, CMP, True)
            self.bound[e.var] = name
            try:
                body = self.code(e.body, CMP, True)
            finally:
                del self.bound[e.var]
            return f"{a}.exists({array}, lambda {name}: {body})", ATOM
        if isinstance(e, X.Lit):
            cast = literal_cast(e)
            if early_date(e.value):  # a Column already
                return self.literal(e.value), ATOM
            if cast:
                return f'{a}.lit({self.literal(e.value)}).cast("{cast}")', ATOM
            if column:
                return f"{a}.lit({self.literal(e.value)})", ATOM
            text = self.literal(e.value)
            return text, (UNARY if text.startswith("-") else ATOM)
        if isinstance(e, X.PyUdf):
            raise ValueError(f"a Python UDF ({e.name}) has no PySpark Column code")
        if isinstance(e, X.Arith):
            if e.op not in ARITHMETIC:
                raise ValueError(f"unknown arithmetic operator {e.op!r}")
            p = _ARITH_PREC[e.op]
            left, right = _implicit_in_arithmetic(e.left, e.right), _implicit_in_arithmetic(e.right, e.left)
            return f"{self.code(left, p, True)} {e.op} {self.code(right, p + 1, False)}", p
        if isinstance(e, X.Neg):
            return f"-{self.code(e.arg, UNARY, True)}", UNARY
        if isinstance(e, X.Cmp):
            if e.op == "<=>":
                return f"{self.code(e.left, ATOM, True)}.eqNullSafe({self.code(e.right, CMP, False)})", ATOM
            op = COMPARISONS.get(e.op)
            if op is None:
                raise ValueError(f"unknown comparison {e.op!r}")
            left, right = _implicit(e.left, e.right), _implicit(e.right, e.left)
            return f"{self.code(left, BOR, True)} {op} {self.code(right, BOR, False)}", CMP
        if isinstance(e, (X.And, X.Or)):
            op, prec, need = ("&", BAND, BAND + 1) if isinstance(e, X.And) else ("|", BOR, BAND + 1)
            # a part written twice is written once: the same code is the same Column, and
            # `c & c` is `c` (IR that differs only where the code does not, a column's id, say)
            parts = list(dict.fromkeys(self.code(x, need, i == 0) for i, x in enumerate(e.args)))
            if len(parts) == 1:
                return self.render(e.args[0], column)
            return f" {op} ".join(parts), prec
        if isinstance(e, X.Not):
            return f"~{self.code(e.arg, UNARY, True)}", UNARY
        if isinstance(e, X.IsNull):
            return f"{self.code(e.arg, ATOM, True)}.isNull()", ATOM
        if isinstance(e, X.IsNotNull):
            return f"{self.code(e.arg, ATOM, True)}.isNotNull()", ATOM
        if isinstance(e, X.In):
            vals = ", ".join(self.code(v, CMP, False) for v in e.values)
            return f"{self.code(e.arg, ATOM, True)}.isin({vals})", ATOM
        if isinstance(e, X.Case):
            if not e.branches:
                return self.render(e.default, column)
            text = f"{a}.when({self.code(e.branches[0][0], CMP, True)}, {self.code(e.branches[0][1], CMP, False)})"
            for c, v in e.branches[1:]:
                text += f".when({self.code(c, CMP, True)}, {self.code(v, CMP, False)})"
            return f"{text}.otherwise({self.code(e.default, CMP, False)})", ATOM
        if isinstance(e, X.Coalesce):
            return f"{a}.coalesce({', '.join(self.code(x, CMP, True) for x in e.args)})", ATOM
        if isinstance(e, X.Cast):
            return f"{self.code(e.arg, ATOM, True)}.cast({json.dumps(e.dtype)})", ATOM
        if isinstance(e, X.Func) and e.name == X.TRY_CAST and len(e.args) == 1:
            return f"{self.code(e.args[0], ATOM, True)}.try_cast({json.dumps(e.dtype)})", ATOM
        if isinstance(e, X.Func):
            spark_function(e.name)
            check_params(e)
            modes = function_arg_modes(e.name, len(e.args))
            args = ", ".join(self.code(x, CMP, m == "column") for x, m in zip(e.args, modes))
            return f"{a}.{e.name}({args})", ATOM
        raise ValueError(f"cannot write code for {type(e).__name__}")


# Casts Spark's analyzer puts on a literal compared with a wider column; it would put
# them there again from the bare literal, so the code can leave them out. (Not ir.types'
# widening: only the targets a bare Python number is certain to be widened to again.)
_WIDENING = {"bigint", "long", "double"}


def _implicit(e: X.Expr, other: X.Expr) -> X.Expr:
    """`e` without a widening cast of a numeric literal when the other operand is not a literal.

    >>> _implicit(X.Cast(X.Lit(995, "int"), "long"), X.Col("v", 1, "long"))
    Lit(value=995, dtype='int')
    """
    if (isinstance(e, X.Cast) and isinstance(e.arg, X.Lit) and e.dtype in _WIDENING
            and isinstance(e.arg.value, (int, float)) and not isinstance(e.arg.value, bool)
            and literal_cast(e.arg) is None and not isinstance(other, X.Lit)):
        return e.arg
    return e


_SAME_TYPE = {"bigint": "long", "long": "long", "double": "double"}


def _implicit_in_arithmetic(e: X.Expr, other: X.Expr) -> X.Expr:
    """`e` without a widening cast of a numeric literal when the other operand already has the
    cast's type: Spark widens the bare literal to that type again, so the arithmetic is the
    same. Against a narrower operand the cast stays, since it decides the result's type (and
    where it overflows).

    >>> v = X.Col("v", 1, "long")
    >>> _implicit_in_arithmetic(X.Cast(X.Lit(3, "int"), "bigint"), v)
    Lit(value=3, dtype='int')
    >>> _implicit_in_arithmetic(X.Cast(X.Lit(3, "int"), "bigint"), X.Col("a", 2, "int"))
    Cast(arg=Lit(value=3, dtype='int'), dtype='bigint')
    """
    if not isinstance(e, X.Cast) or _SAME_TYPE.get(e.dtype) is None:
        return e
    if _SAME_TYPE.get(e.dtype) != _SAME_TYPE.get(X.dtype_of(other)):
        return e
    return _implicit(e, other)


def _json_is_python(s: str) -> bool:
    """Double-quoted JSON is also a valid Python string literal for plain printable text."""
    return all(c.isprintable() and c not in "\\" for c in s)


def module_aliases(tree: object, module: str) -> list[str]:
    """Names under which a cell imports `module` (dotted), in order of appearance."""
    import ast

    parent, _, last = module.rpartition(".")
    found: list[str] = []
    for node in ast.walk(tree):  # type: ignore[arg-type]
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == module:
                    found.append(a.asname or module)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and parent and node.module == parent:
            for a in node.names:
                if a.name == last:
                    found.append(a.asname or last)
    return found


def _existing_alias(cell_sources: Sequence[str], module: str) -> tuple[str | None, set[str]]:
    """The first name the cells import `module` under, else None and every name the cells bind."""
    names: set[str] = set()
    for src in cell_sources:
        tree = parse_cell(src)
        if tree is None:
            continue
        aliases = module_aliases(tree, module)
        if aliases:
            return aliases[0], names
        names |= bound_names(tree)
    return None, names


def functions_alias(cell_sources: Sequence[str]) -> tuple[str, str | None]:
    """How the notebook refers to pyspark.sql.functions, and the import to add if it does not.

    >>> functions_alias(["import pyspark.sql.functions as f", "x = 1"])
    ('f', None)
    >>> functions_alias(["from pyspark.sql.functions import col"])
    ('F', 'from pyspark.sql import functions as F')
    """
    alias, names = _existing_alias(cell_sources, "pyspark.sql.functions")
    if alias is not None:
        return alias, None
    alias = next(n for n in ("F", "sf", "psf", "spark_functions") if n not in names)
    return alias, FUNCTIONS_IMPORT.format(alias=alias)


def datetime_alias(cell_sources: Sequence[str]) -> tuple[str, str | None]:
    """The name of the datetime module in the notebook, and the import to add if it has none.

    >>> datetime_alias(["from datetime import datetime"])
    ('_dt', 'import datetime as _dt')
    >>> datetime_alias(["import datetime"])
    ('datetime', None)
    """
    alias, names = _existing_alias(cell_sources, "datetime")
    if alias is not None:
        return alias, None
    if "datetime" not in names:
        return "datetime", "import datetime"
    return "_dt", "import datetime as _dt"
