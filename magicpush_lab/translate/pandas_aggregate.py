"""A grouped-aggregate pandas UDF's body read as Spark's own aggregates.

`@pandas_udf("double") def f(s: pd.Series) -> float` used in `groupBy(k).agg(f("c"))` folds
each group's rows with pandas. When its body is one of the shapes below, the same value is an
expression over Spark's built-in aggregates, which the GroupBy proofs read like any other
(`aggregate_of`). The user's function still runs: the expression only tells the proofs what it
computes, so it must give the function's value on every group, NULL, NaN and all.

What the body sees and returns (checked on PySpark 4.3 with pandas 2.x, and pinned per shape
by tests/engine/test_pandas_aggregates.py, which runs each UDF beside its expression on Spark):

- a NULL and a double's NaN both arrive as NaN (an integer column with a NULL in the group
  comes as float64), so a double argument is read as `CASE WHEN NOT isnan(c) THEN c END`:
  a NaN row is the same row with NULL there, as in the scalar pandas UDF reader;
- comparisons with a missing element are False (`!=` True) and `s.isin([...])` is False for
  one, so every mask is `coalesce(..., false)` (or true), never NULL;
- `sum()`, `count()`, `max()`, `min()`, `mean()` skip missing elements; `sum()` of none is 0,
  the others of none are NaN; a NaN the function returns comes back as NULL, which is what
  Spark's `max`, `min` and `avg` give for no values.

Shapes read (`s`, `t` parameters, `m` a mask over them, `lit` a number or string literal):

    s.sum(), s.mean(), s.max(), s.min()    over a double column: sum, avg, max, min
    s.count(), len(s), s.size              count of present values, count of rows
    m.any(), m.all(), m.sum()               bool_or, bool_and, count of TRUE
    s[m]                                    any of the above over the rows m keeps
    m: s > lit (any comparison), s.isin([lit, ...]), s.notna(), s.isna(), m & m, m | m, ~m
    float(x), bool(x), int(x) of a result of that kind; `name = ...` before the return

Integer sums and means are not read (numpy wraps an int64 sum and a column with a NULL is
summed in float64, exact only to 2**53), nor anything else; `BodyNotRead` says what.

>>> amount = X.Col("amount", 1, "double")
>>> src = "def big(a):\\n    return float(a[a > 500].sum())"
>>> print(aggregate_of(src, (amount,), "double"))
coalesce(sum(CASE WHEN coalesce(CASE WHEN NOT isnan(amount) THEN amount ELSE NULL END > 500.0, False) THEN CASE WHEN NOT isnan(amount) THEN amount ELSE NULL END ELSE NULL END), 0.0)
>>> kind = X.Col("kind", 2, "int")
>>> print(aggregate_of("def f(k):\\n    return bool(k.isin([0, 1]).any())", (kind,), "boolean"))
max(coalesce(kind IN (0, 1), False))
>>> aggregate_of("def f(k):\\n    return k.sum()", (kind,), "long")
Traceback (most recent call last):
...
magicpush_lab.translate.pandas_body.BodyNotRead: sum() of an int column: numpy wraps it and a group with a NULL sums it in float64
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.types import FRACTIONAL, INTEGRAL
from magicpush_lab.translate.pandas_body import BodyNotRead

_CMP = {ast.Eq: "=", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
# a reduction's result kind -> the declared return types it converts to exactly
_RETURNS = {"bool": ("boolean",), "int": ("long", "double"), "float": ("double",)}


@dataclass(frozen=True)
class _Series:
    """Elements of one group: `value` where `keep` holds (a never-NULL mask), in row order.
    A mask series has `mask` True: its values are booleans, never missing."""

    value: X.Expr
    keep: X.Expr = X.TRUE
    mask: bool = False


@dataclass(frozen=True)
class _Scalar:
    """A reduction's result: its Spark expression and its Python kind ("int", "float", "bool")."""

    expr: X.Expr
    kind: str


def aggregate_of(source: str | None, args: tuple[X.Expr, ...], dtype: str) -> X.Expr:
    """The UDF's value per group as an expression over Spark's aggregates, or BodyNotRead."""
    if source is None:
        raise BodyNotRead("the function's source was not captured")
    fn = _function(source)
    params = [a.arg for a in fn.args.args]
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or len(params) != len(args):
        raise BodyNotRead("the function's parameters do not match its call")
    env: dict[str, _Series | _Scalar] = {p: _param(a) for p, a in zip(params, args)}
    for stmt in _statements(fn):
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            result = _read(stmt.value, env)
            if not isinstance(result, _Scalar):
                raise BodyNotRead("the function returns a series, not one value")
            return _returned(result, dtype)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            env[stmt.targets[0].id] = _read(stmt.value, env)
            continue
        raise BodyNotRead(f"statement {ast.unparse(stmt)!r} is not read")
    raise BodyNotRead("the function has no return")


def _function(source: str) -> ast.FunctionDef:
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError as err:
        raise BodyNotRead(f"the function's source does not parse ({err.msg})") from err
    # the tracer writes the notebook constants a function reads in front of it
    fn = tree.body[-1] if tree.body else None
    if not isinstance(fn, ast.FunctionDef):
        raise BodyNotRead("the source does not end in a function definition")
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name != "pandas_udf":  # another decorator may change what the function computes
            raise BodyNotRead(f"decorator {ast.unparse(deco)!r}")
    return fn


def _statements(fn: ast.FunctionDef) -> list[ast.stmt]:
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body


def _param(arg: X.Expr) -> _Series:
    """An argument as pandas holds it: a double's NaN is missing, like NULL."""
    dtype = X.dtype_of(arg)
    if dtype in FRACTIONAL:
        if dtype != "double":
            raise BodyNotRead("a float (32-bit) argument: pandas computes in float32")
        return _Series(X.Case(((X.Not(X.Func("isnan", (arg,), "boolean")), arg),), X.Lit(None, "double")))
    if dtype in INTEGRAL or dtype == "string":
        return _Series(arg)
    raise BodyNotRead(f"an argument of type {dtype}")


def _read(node: ast.expr, env: dict[str, _Series | _Scalar]) -> _Series | _Scalar:
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise BodyNotRead(f"name {node.id!r} is not a parameter or a name bound in the body")
        return env[node.id]
    if isinstance(node, ast.Subscript):
        series, keep = _series(node.value, env), _mask(node.slice, env)
        if series.mask:
            return _Series(series.value, X.and_(series.keep, keep), mask=True)
        return _Series(series.value, X.and_(series.keep, keep))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        return _builtin(node.func.id, node.args[0], env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
        return _reduction(node.func.attr, _series(node.func.value, env))
    if isinstance(node, ast.Attribute) and node.attr == "size":
        return _reduction("size", _series(node.value, env))
    if isinstance(node, (ast.Compare, ast.BinOp, ast.UnaryOp)) or _is_method(node, "isin", "notna", "isna",
                                                                               "notnull", "isnull"):
        return _Series(_mask(node, env), mask=True)
    raise BodyNotRead(f"expression {ast.unparse(node)!r} is not read")


def _series(node: ast.expr, env: dict[str, _Series | _Scalar]) -> _Series:
    found = _read(node, env)
    if not isinstance(found, _Series):
        raise BodyNotRead(f"{ast.unparse(node)!r} is one value, not a series")
    return found


def _builtin(name: str, arg: ast.expr, env: dict[str, _Series | _Scalar]) -> _Scalar:
    if name == "len":
        return _reduction("size", _series(arg, env))
    inner = _read(arg, env)
    if not isinstance(inner, _Scalar):
        raise BodyNotRead(f"{name}() of a series")
    if name == "float" and inner.kind in ("float", "int"):
        return _Scalar(inner.expr, "float")
    if (name, inner.kind) in (("bool", "bool"), ("int", "int")):
        return inner
    raise BodyNotRead(f"{name}() of a {inner.kind} value")


def _reduction(method: str, s: _Series) -> _Scalar:
    """One reduction of a (kept part of a) series, as pandas computes it."""
    if method == "size":
        if s.keep == X.TRUE:
            return _Scalar(X.Agg("count", None, "long"), "int")
        return _Scalar(X.Agg("count", _where(s.keep, X.Lit(1, "int")), "long"), "int")
    if s.mask:
        kept = _where(s.keep, s.value)
        if method == "any":
            return _Scalar(_total(X.Agg("max", kept, "boolean"), s, X.FALSE), "bool")
        if method == "all":
            return _Scalar(_total(X.Agg("min", kept, "boolean"), s, X.TRUE), "bool")
        if method in ("sum", "count"):
            counted = s.value if method == "sum" else X.TRUE
            return _Scalar(X.Agg("count", _where(X.and_(s.keep, counted), X.Lit(1, "int")), "long"), "int")
        raise BodyNotRead(f"{method}() of a mask")
    kept = _where(s.keep, s.value)
    if method == "count":
        return _Scalar(X.Agg("count", kept, "long"), "int")
    if method not in ("sum", "mean", "max", "min"):
        raise BodyNotRead(f"method {method}() is not read")
    dtype = X.dtype_of(s.value)
    if dtype != "double":
        raise BodyNotRead(f"{method}() of an {dtype} column: numpy wraps it and a group with a NULL sums it in float64"
                          if method in ("sum", "mean") else
                          f"{method}() of an {dtype} column: its type depends on NULLs in the group")
    agg = X.Agg({"mean": "avg"}.get(method, method), kept, "double")
    # pandas' sum of no values is 0; the others give NaN, which comes back as NULL, as Spark gives
    return _Scalar(X.Coalesce((agg, X.Lit(0.0, "double"))) if method == "sum" else agg, "float")


def _where(keep: X.Expr, value: X.Expr) -> X.Expr:
    """`value` on the rows `keep` holds for, NULL (skipped by every aggregate) on the others."""
    return value if keep == X.TRUE else X.Case(((keep, value),), X.Lit(None, X.dtype_of(value)))


def _total(agg: X.Agg, s: _Series, empty: X.Expr) -> X.Expr:
    """any()/all() of no elements are False/True; a group has rows, so only a kept part can be empty."""
    return agg if s.keep == X.TRUE else X.Coalesce((agg, empty))


def _mask(node: ast.expr, env: dict[str, _Series | _Scalar]) -> X.Expr:
    """A boolean series as a never-NULL Spark predicate over the row."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
        op = _CMP[type(node.ops[0])]
        left, right = node.left, node.comparators[0]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
            left, right = right, left
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        value = _plain(_series(left, env))
        if X.dtype_of(value) == "string" and op not in ("=", "!="):
            raise BodyNotRead("ordering strings: pandas raises on a missing one")
        return X.Coalesce((X.Cmp(op, value, _literal(right, value)), X.TRUE if op == "!=" else X.FALSE))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        parts = (_mask(node.left, env), _mask(node.right, env))
        return X.and_(*parts) if isinstance(node.op, ast.BitAnd) else X.or_(*parts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return X.Not(_mask(node.operand, env))
    if _is_method(node, "isin") and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], (ast.List, ast.Tuple, ast.Set)) and node.args[0].elts:
        value = _plain(_series(node.func.value, env))
        return X.Coalesce((X.In(value, tuple(_literal(e, value) for e in node.args[0].elts)), X.FALSE))
    if _is_method(node, "notna", "notnull", "isna", "isnull") and not node.args and not node.keywords:
        present = X.IsNotNull(_plain(_series(node.func.value, env)))
        return present if node.func.attr in ("notna", "notnull") else X.Not(present)
    if isinstance(node, ast.Name) and isinstance(env.get(node.id), _Series) and env[node.id].mask:
        s = env[node.id]
        if s.keep != X.TRUE:
            raise BodyNotRead(f"mask {node.id!r} is a part of a series, not aligned with the group")
        return s.value
    raise BodyNotRead(f"mask {ast.unparse(node)!r} is not read")


def _plain(s: _Series) -> X.Expr:
    if s.keep != X.TRUE or s.mask:
        raise BodyNotRead("a mask over a filtered series or over a mask is not read")
    return s.value


def _literal(node: ast.expr, against: X.Expr) -> X.Lit:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = -node.operand.value if isinstance(node.operand.value, (int, float)) else None
    dtype = X.dtype_of(against)
    if isinstance(value, bool) or value is None:
        raise BodyNotRead(f"{ast.unparse(node)!r} is not a number or string literal")
    if isinstance(value, str) and dtype == "string":
        return X.Lit(value, "string")
    if isinstance(value, (int, float)) and (dtype in INTEGRAL or dtype == "double"):
        if value != value or abs(value) > 2 ** 53:
            # NaN compares False; beyond 2**53 an integer column with a NULL compares rounded values
            raise BodyNotRead(f"literal {value!r}: NaN or beyond 2**53")
        if isinstance(value, float) and dtype in INTEGRAL:
            return X.Lit(value, "double")
        return X.Lit(float(value) if dtype == "double" else value, dtype if dtype == "double" else "long")
    raise BodyNotRead(f"literal {value!r} compared with a {dtype} column")


def _is_method(node: ast.expr, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names


def _returned(result: _Scalar, dtype: str) -> X.Expr:
    """The value Spark stores for the declared type (Arrow's safe conversion)."""
    if dtype not in _RETURNS[result.kind]:
        raise BodyNotRead(f"a {result.kind} result returned as {dtype}")
    if dtype == "double" and result.kind == "int":
        return X.Cast(result.expr, "double")
    return result.expr
