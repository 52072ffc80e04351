"""The pandas function of `applyInPandas` read as a sub-plan over one group's rows.

`body_plan(source, inputs)` parses the function's source with `ast` and turns a
small pandas pipeline into IR operators over a Source whose columns are
`inputs` (the columns the function receives):

    pdf = pdf[pdf.v > 3]                          Filter
    pdf["y"] = pdf.amount * 2, pdf.assign(y=...)  Project
    pdf[["a", "b"]], drop, rename                 Project (DropColumn)
    pdf.sort_values("v")                          Reorder
    pdf.sort_values("v").head(k)                  TopK
    pdf.dropna(subset=[...])                      Filter
    pdf.groupby(k, as_index=False).agg(n=(c, f))  Aggregate
    pdf.assign(total=pdf.amount.sum())            Project whose output holds an aggregate
    pd.DataFrame({"k": [pdf.k.iloc[0]],           Aggregate without keys: one row
                  "n": [pdf.v.sum()]})
    return <frame>

Expressions are written in the IR so that Spark's semantics give pandas' result
(docs/semantics.md, "GroupedMap"): a comparison involving a missing value is
False in pandas (True for `!=`), so it becomes `coalesce(cmp, false)`
(`coalesce(cmp, true)`), which is never NULL; `&`, `|`, `~` are only taken over
such never-NULL masks, where Kleene's logic is Boolean logic. Aggregates are
`pandas_<fn>` calls: pandas' `sum` of no values is 0, not NULL, so they are
never mistaken for Spark's; `pandas_first` is the first row's value. `pd` is
taken to be the pandas module, as notebooks import it. Anything else raises `Unsupported` with the reason,
and the caller makes the operator a barrier.
"""

from __future__ import annotations

import ast
import itertools
import textwrap
from dataclasses import dataclass
from typing import Iterator

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL, INTEGER_RANK, INTEGRAL

_AGGREGATES = {"sum": "sum", "max": "max", "min": "min", "mean": "avg", "count": "count"}
_CMP = {ast.Eq: "=", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}


class Unsupported(ValueError):
    """The function's body uses something this reader does not model."""


@dataclass(frozen=True)
class _Frame:
    """A pandas DataFrame in the body: the plan computing it, and the sort that made it, if any."""

    plan: P.Plan
    order: tuple[tuple[X.Expr, bool, bool], ...] | None = None

    def column(self, name: str) -> X.Col:
        for c in self.plan.output:
            if c.name == name:
                return c
        raise Unsupported(f"no column {name!r} at this point of the body")


@dataclass(frozen=True)
class _Series:
    """A pandas Series expression; `mask` when it is a boolean that is never missing."""

    expr: X.Expr
    mask: bool = False
    aggregate: bool = False


def body_plan(source: str | None, inputs: tuple[X.Col, ...]) -> P.Plan:
    """The sub-plan the pandas function computes on one group, or `Unsupported`."""
    if not source:
        raise Unsupported("the function's source was not recorded")
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError as err:
        raise Unsupported(f"source does not parse: {err.msg}") from err
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not defs and len(lambdas) == 1:
        # `lambda pdf: ...` (the tracer keeps just the lambda) is a function returning its body
        fn = lambdas[0]
        as_def = ast.FunctionDef("<lambda>", fn.args, [ast.Return(fn.body, lineno=1)], [], None, lineno=1)
        return _Reader(inputs).function(as_def)
    if len(defs) != 1:
        raise Unsupported("expected one function definition")
    return _Reader(inputs).function(defs[0])


class _Reader:
    def __init__(self, inputs: tuple[X.Col, ...]) -> None:
        self.inputs = inputs
        # columns made in the body get ids below any Spark exprId, numbered in reading order,
        # so reading the same source twice gives equal plans
        self._ids: Iterator[int] = itertools.count(-1_000_000, -1)

    def fresh(self, name: str, dtype: str) -> X.Col:
        return X.Col(name, next(self._ids), dtype)

    # -------------------------------------------------------------------- statements

    def function(self, fn: ast.FunctionDef) -> P.Plan:
        args = fn.args
        if (len(args.args) != 1 or args.posonlyargs or args.vararg or args.kwarg or args.kwonlyargs
                or args.defaults):
            raise Unsupported("the function must take the group's frame as its one argument")
        if fn.decorator_list:
            raise Unsupported("decorated function")
        env: dict[str, _Frame] = {args.args[0].arg: _Frame(P.Source("group", self.inputs))}
        body = list(fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.Return):
                if i != len(body) - 1 or stmt.value is None:
                    raise Unsupported("return must be the last statement and return a frame")
                return self.frame(stmt.value, env).plan
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                raise Unsupported(f"statement {type(stmt).__name__} at line {stmt.lineno}")
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                env[target.id] = self.frame(stmt.value, env)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and _constant(target.slice, str) is not None:
                frame = self._name(target.value, env)
                if any(v is frame for k, v in env.items() if k != target.value.id):
                    # `a = pdf` binds one object to two names: setting a column changes both
                    raise Unsupported(f"{target.value.id} is bound to a frame another name holds too")
                series = self.series(stmt.value, frame, env)
                env[target.value.id] = self._assign(frame, ((target.slice.value, series),))
            else:
                raise Unsupported(f"assignment at line {stmt.lineno}")
        raise Unsupported("the function does not end with a return")

    # -------------------------------------------------------------------- frames

    def _name(self, node: ast.Name, env: dict[str, _Frame]) -> _Frame:
        if node.id not in env:
            raise Unsupported(f"{node.id!r} is not a frame of the body")
        return env[node.id]

    def frame(self, node: ast.expr, env: dict[str, _Frame]) -> _Frame:
        if isinstance(node, ast.Name):
            return self._name(node, env)
        if isinstance(node, ast.Subscript):
            base = self.frame(node.value, env)
            names = _string_list(node.slice)
            if names is not None:
                return _Frame(P.Project(base.plan, tuple((c, c) for c in map(base.column, names))))
            mask = self.series(node.slice, base, env)
            if not mask.mask:
                raise Unsupported("a frame indexed by something other than a boolean mask or a column list")
            return _Frame(P.Filter(base.plan, mask.expr), base.order)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "pd" \
                and node.func.attr == "DataFrame" and node.func.value.id not in env:
            return self._one_row(node, env)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            inner = node.func.value
            if method == "agg" and isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                    and inner.func.attr == "groupby":
                return self._groupby_agg(inner, node, env)
            base = self.frame(node.func.value, env)
            return self._method(base, method, node, env)
        raise Unsupported(f"frame expression {ast.unparse(node)!r}")

    def _method(self, base: _Frame, method: str, call: ast.Call, env: dict[str, _Frame]) -> _Frame:
        kw = {k.arg: k.value for k in call.keywords}
        if None in kw:
            raise Unsupported(f"{method}(**...)")
        # a new frame with the same rows: a new object, so setting a column on it leaves `base` alone
        if method == "copy" and not call.args and not kw:
            return _Frame(base.plan, base.order)
        if method == "reset_index" and not call.args and kw.keys() == {"drop"} \
                and _constant(kw["drop"], bool) is True:
            return _Frame(base.plan, base.order)  # the index is not part of what Spark receives
        if method == "assign" and not call.args:
            return self._assign_each(base, kw, env)
        if method == "sort_values":
            return self._sort(base, call, kw)
        if method == "head":
            k = _constant(call.args[0], int) if len(call.args) == 1 and not kw else None
            if k is None or isinstance(k, bool) or k < 0:
                raise Unsupported("head(k) with a non-negative integer literal")
            if base.order is None:
                raise Unsupported("head(k) without a sort first: which rows it keeps depends on row order")
            below = base.plan.child if isinstance(base.plan, P.Reorder) else base.plan
            return _Frame(P.TopK(below, base.order, k))
        if method == "dropna" and not call.args and set(kw) <= {"subset"}:
            cols = base.plan.output
            if "subset" in kw:
                names = _string_list(kw["subset"]) or ([_constant(kw["subset"], str)]
                                                       if _constant(kw["subset"], str) else None)
                if names is None:
                    raise Unsupported("dropna(subset=...) with a literal column list")
                cols = tuple(map(base.column, names))
            return _Frame(P.Filter(base.plan, X.and_(*(X.IsNotNull(c) for c in cols))), base.order)
        if method == "drop" and not call.args and kw.keys() == {"columns"}:
            names = _string_list(kw["columns"]) or ([_constant(kw["columns"], str)]
                                                    if _constant(kw["columns"], str) else None)
            if names is None:
                raise Unsupported("drop(columns=...) with a literal column list")
            for n in names:
                base.column(n)  # pandas raises on a missing column
            kept = tuple((c, c) for c in base.plan.output if c.name not in names)
            return _Frame(P.Project(base.plan, kept), base.order)
        if method == "rename" and not call.args and kw.keys() == {"columns"} \
                and isinstance(kw["columns"], ast.Dict):
            mapping = {}
            for k, v in zip(kw["columns"].keys, kw["columns"].values):
                old, new = _constant(k, str), _constant(v, str)
                if old is None or new is None:
                    raise Unsupported("rename(columns=...) with literal names")
                mapping[old] = new
            outputs = tuple((self.fresh(mapping[c.name], c.dtype), c) if c.name in mapping else (c, c)
                            for c in base.plan.output)
            if len({c.name for c, _ in outputs}) != len(outputs):
                raise Unsupported("rename makes two columns of one name")
            return _Frame(P.Project(base.plan, outputs))
        raise Unsupported(f"frame method {method}(...)")

    def _sort(self, base: _Frame, call: ast.Call, kw: dict[str, ast.expr]) -> _Frame:
        if set(kw) - {"by", "ascending", "na_position", "kind"} or len(call.args) > 1 or \
                (call.args and "by" in kw):
            raise Unsupported("sort_values with arguments other than by, ascending, na_position")
        by = call.args[0] if call.args else kw.get("by")
        names = _string_list(by) if by is not None else None
        if names is None and by is not None and _constant(by, str) is not None:
            names = [by.value]
        if not names:
            raise Unsupported("sort_values(by=...) with literal column names")
        ascending: list[bool] = [True] * len(names)
        if "ascending" in kw:
            one = _constant(kw["ascending"], bool)
            many = [_constant(e, bool) for e in kw["ascending"].elts] \
                if isinstance(kw["ascending"], (ast.List, ast.Tuple)) else None
            if one is not None:
                ascending = [one] * len(names)
            elif many is not None and None not in many and len(many) == len(names):
                ascending = many
            else:
                raise Unsupported("sort_values(ascending=...) with literal booleans")
        na = _constant(kw["na_position"], str) if "na_position" in kw else "last"
        if na not in ("first", "last"):
            raise Unsupported("sort_values(na_position=...) with 'first' or 'last'")
        # pandas puts missing values at na_position whatever the direction
        order = tuple((base.column(n), asc, na == "first") for n, asc in zip(names, ascending))
        return _Frame(P.Reorder(base.plan, "sort_values"), order)

    def _groupby_agg(self, groupby: ast.Call, agg: ast.Call, env: dict[str, _Frame]) -> _Frame:
        base = self.frame(groupby.func.value, env)
        gkw = {k.arg: k.value for k in groupby.keywords}
        if len(groupby.args) != 1 or set(gkw) - {"as_index", "sort", "dropna"} \
                or _constant(gkw.get("as_index"), bool) is not False:
            raise Unsupported("groupby(keys, as_index=False) is the form read")
        names = _string_list(groupby.args[0]) or ([groupby.args[0].value]
                                                  if _constant(groupby.args[0], str) is not None else None)
        if not names:
            raise Unsupported("groupby with literal column names")
        keys = tuple(map(base.column, names))
        dropna = _constant(gkw["dropna"], bool) if "dropna" in gkw else True
        if dropna is None:
            raise Unsupported("groupby(dropna=...) with a literal")
        child = base.plan
        if dropna:  # pandas leaves out groups whose key is missing
            child = P.Filter(child, X.and_(*(X.IsNotNull(k) for k in keys)))
        if agg.args or not agg.keywords:
            raise Unsupported("agg with named aggregations, name=(column, function)")
        outputs: list[tuple[X.Col, X.Expr]] = [(k, k) for k in keys]
        for k in agg.keywords:
            v = k.value
            if k.arg is None or not isinstance(v, ast.Tuple) or len(v.elts) != 2:
                raise Unsupported("agg with named aggregations, name=(column, function)")
            col_name, fn = _constant(v.elts[0], str), _constant(v.elts[1], str)
            if col_name is None or fn not in _AGGREGATES:
                raise Unsupported(f"aggregation {ast.unparse(v)}")
            outputs.append(self._aggregate_output(k.arg, fn, base.column(col_name)))
        return _Frame(P.Aggregate(child, keys, tuple(outputs)))

    def _one_row(self, call: ast.Call, env: dict[str, _Frame]) -> _Frame:
        """pd.DataFrame({"k": [pdf.k.iloc[0]], "total": [pdf.amount.sum()]}): one row of scalars,
        all read from one frame; `iloc[0]` is the first row's value (pandas raises on no rows)."""
        if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Dict):
            raise Unsupported("pd.DataFrame({name: [scalar], ...}) is the form read")
        frame: _Frame | None = None
        outputs: list[tuple[X.Col, X.Expr]] = []
        for k, v in zip(call.args[0].keys, call.args[0].values):
            name = _constant(k, str)
            if name is None or not isinstance(v, ast.List) or len(v.elts) != 1:
                raise Unsupported("pd.DataFrame({name: [scalar], ...}) is the form read")
            scalar = v.elts[0]
            first = isinstance(scalar, ast.Subscript) and isinstance(scalar.value, ast.Attribute) \
                and scalar.value.attr == "iloc" and _constant(scalar.slice, int) == 0
            series_node = None
            if first:
                series_node = scalar.value.value
            elif isinstance(scalar, ast.Call) and isinstance(scalar.func, ast.Attribute):
                series_node = scalar.func.value
            if not isinstance(series_node, (ast.Attribute, ast.Subscript)) \
                    or not isinstance(series_node.value, ast.Name):
                raise Unsupported(f"scalar {ast.unparse(scalar)!r}")
            source = self._name(series_node.value, env)
            if frame is not None and source is not frame:
                raise Unsupported("pd.DataFrame over scalars of different frames")
            frame = source
            if first:
                col = self.series(series_node, frame, env).expr
                if not isinstance(col, X.Col):
                    raise Unsupported(f"scalar {ast.unparse(scalar)!r}")
                agg = X.Agg("pandas_first", col, col.dtype)
            else:
                s = self.series(scalar, frame, env)
                if not s.aggregate:
                    raise Unsupported(f"scalar {ast.unparse(scalar)!r}")
                agg = s.expr  # type: ignore[assignment]
            outputs.append((self.fresh(name, agg.dtype), agg))
        if frame is None:
            raise Unsupported("pd.DataFrame with no columns")
        return _Frame(P.Aggregate(frame.plan, (), tuple(outputs)))

    def _aggregate_output(self, name: str, fn: str, col: X.Col) -> tuple[X.Col, X.Expr]:
        agg = _pandas_agg(fn, col)
        return self.fresh(name, agg.dtype), agg

    def _assign_each(self, base: _Frame, items: dict[str, ast.expr], env: dict[str, _Frame]) -> _Frame:
        """assign(a=..., b=...): a lambda sees the frame as the earlier items left it, a plain
        Series was computed from the frame before the call; one projection per item."""
        current, assigned = base, set()
        for name, node in items.items():
            if isinstance(node, ast.Lambda):
                a = node.args
                if len(a.args) != 1 or a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
                    raise Unsupported("assign with a one-argument lambda")
                s = self.series(node.body, current, {**env, a.args[0].arg: current})
            else:
                # read on the current frame, which equals the base on every column not yet assigned
                s = self.series(node, current, {**env, **{k: current for k, v in env.items() if v is base}})
                if {c.name for c in X.columns(s.expr)} & assigned:
                    raise Unsupported(f"assign: {name} reads a column an earlier item of the call replaced")
            current = self._assign(current, ((name, s),))
            assigned.add(name)
        return current

    def _assign(self, base: _Frame, items: tuple[tuple[str, _Series], ...]) -> _Frame:
        """Columns set in order; a name already present is replaced in place, a new one appended."""
        outputs = [(c, c) for c in base.plan.output]
        for name, s in items:
            if s.mask is False and s.aggregate is False and isinstance(s.expr, X.Lit):
                raise Unsupported(f"{name}: a constant column")
            col = self.fresh(name, _dtype(s.expr))
            at = next((i for i, (c, _) in enumerate(outputs) if c.name == name), None)
            if at is None:
                outputs.append((col, s.expr))
            else:
                outputs[at] = (col, s.expr)
        return _Frame(P.Project(base.plan, tuple(outputs)), base.order)

    # -------------------------------------------------------------------- series

    def series(self, node: ast.expr, frame: _Frame, env: dict[str, _Frame]) -> _Series:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.attr not in _AGGREGATES:
            return _Series(self._column_of(node.value, node.attr, frame, env, by_attribute=True))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and _constant(node.slice, str):
            return _Series(self._column_of(node.value, node.slice.value, frame, env))
        if isinstance(node, ast.Constant) and not isinstance(node.value, bool) \
                and isinstance(node.value, (int, float, str)):
            return _Series(X.Lit(node.value, _literal_type(node.value)))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            left = self.series(node.left, frame, env)
            right = self.series(node.comparators[0], frame, env)
            return _Series(_compare(_CMP[type(node.ops[0])], left, right), mask=True)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            a, b = self.series(node.left, frame, env), self.series(node.right, frame, env)
            if not (a.mask and b.mask):
                raise Unsupported("& and | are read over comparison masks only")
            join = X.and_ if isinstance(node.op, ast.BitAnd) else X.or_
            return _Series(join(a.expr, b.expr), mask=True)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            a = self.series(node.operand, frame, env)
            if not a.mask:
                raise Unsupported("~ is read over comparison masks only")
            return _Series(X.Not(a.expr), mask=True)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            a = self.series(node.operand, frame, env)
            _numeric(a)
            if isinstance(a.expr, X.Lit):
                return _Series(X.Lit(-a.expr.value, a.expr.dtype))
            return _Series(X.Neg(a.expr))
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            a, b = self.series(node.left, frame, env), self.series(node.right, frame, env)
            return _Series(_arith(_ARITH[type(node.op)], a, b))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            raise Unsupported("division: pandas gives inf or NaN where Spark gives NULL")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return self._series_method(node, frame, env)
        raise Unsupported(f"expression {ast.unparse(node)!r}")

    def _column_of(self, name: ast.Name, column: str, frame: _Frame, env: dict[str, _Frame],
                   by_attribute: bool = False) -> X.Col:
        # a Series of another frame would be aligned by index labels: not modelled
        if env.get(name.id) is not frame:
            raise Unsupported(f"{name.id}.{column} does not belong to the frame it is used on")
        if by_attribute and _frame_attribute(column):
            raise Unsupported(f"{name.id}.{column} is a DataFrame attribute, not the column")
        return frame.column(column)

    def _series_method(self, call: ast.Call, frame: _Frame, env: dict[str, _Frame]) -> _Series:
        method = call.func.attr
        if call.keywords:
            raise Unsupported(f"{method}(...) with keyword arguments")
        if method in _AGGREGATES and not call.args:
            s = self.series(call.func.value, frame, env)
            if not isinstance(s.expr, X.Col):
                raise Unsupported(f"{method}() of an expression")
            return _Series(_pandas_agg(method, s.expr), aggregate=True)
        s = self.series(call.func.value, frame, env)
        if method in ("isna", "isnull", "notna", "notnull") and not call.args:
            missing = X.IsNull(s.expr) if method in ("isna", "isnull") else X.IsNotNull(s.expr)
            return _Series(missing, mask=True)
        if method == "isin" and len(call.args) == 1 \
                and isinstance(call.args[0], (ast.List, ast.Tuple, ast.Set)):
            values = [_constant(e, (int, float, str)) for e in call.args[0].elts]
            if any(v is None or isinstance(v, bool) for v in values) or not values:
                raise Unsupported("isin over a list of literal numbers or strings")
            lits = tuple(_typed_literal(v, s.expr) for v in values)
            for lit in lits:
                _compare("=", s, _Series(lit))  # the same type rules as ==
            return _Series(X.Coalesce((X.In(s.expr, lits), X.FALSE)), mask=True)
        raise Unsupported(f"series method {method}(...)")


# ------------------------------------------------------------------------ expression rules


def _compare(op: str, a: _Series, b: _Series) -> X.Expr:
    """pandas' comparison: False where a value is missing (True for !=), never missing itself."""
    if a.aggregate or b.aggregate or a.mask or b.mask:
        raise Unsupported("comparison of masks or aggregates")
    ta, tb = _dtype(a.expr), _dtype(b.expr)
    numeric = _is_number(ta) and _is_number(tb)
    strings = ta == "string" and tb == "string" and op in ("=", "!=")
    if not (numeric or strings):
        # ordering a missing value (None) against a string raises in pandas
        raise Unsupported(f"comparison {op} of {ta} and {tb}")
    if isinstance(a.expr, X.Lit) and isinstance(b.expr, X.Lit):
        raise Unsupported("comparison of two literals")
    _exact_mix(a.expr, b.expr)
    left = _retype(a.expr, b.expr)
    right = _retype(b.expr, a.expr)
    return X.Coalesce((X.Cmp(op, left, right), X.TRUE if op == "!=" else X.FALSE))


def _arith(op: str, a: _Series, b: _Series) -> X.Expr:
    _numeric(a)
    _numeric(b)
    if isinstance(a.expr, X.Lit) and isinstance(b.expr, X.Lit):
        raise Unsupported("arithmetic on two literals")
    _exact_mix(a.expr, b.expr)
    left, right = _retype(a.expr, b.expr), _retype(b.expr, a.expr)
    ta, tb = _dtype(left), _dtype(right)
    if ta in FRACTIONAL or tb in FRACTIONAL:
        dtype = "double"
    else:
        dtype = max((ta, tb), key=lambda t: INTEGER_RANK[t])
    return X.Arith(op, left, right, dtype)


def _frame_attribute(name: str) -> bool:
    """`pdf.<name>` is pandas' own attribute (pdf.size, pdf.T), not the column of that name."""
    import pandas

    return hasattr(pandas.DataFrame, name)


def _exact_mix(a: X.Expr, b: X.Expr) -> None:
    # numpy compares and adds a long with a double in float64, which rounds above 2**53
    types = {_dtype(a), _dtype(b)}
    if "long" in types and types & FRACTIONAL:
        raise Unsupported("a long combined with a float or double")


def _numeric(s: _Series) -> None:
    if s.mask or s.aggregate or not _is_number(_dtype(s.expr)):
        raise Unsupported(f"arithmetic on {s.expr} ({_dtype(s.expr)})")


def _retype(e: X.Expr, other: X.Expr) -> X.Expr:
    """An int literal next to an integer column takes the column's type (numpy keeps the
    array's dtype for a Python int)."""
    if isinstance(e, X.Lit) and isinstance(e.value, int) and _dtype(other) in INTEGRAL:
        return X.Lit(e.value, _dtype(other))
    return e


def _typed_literal(v: object, like: X.Expr) -> X.Lit:
    return _retype(X.Lit(v, _literal_type(v)), like)  # type: ignore[return-value]


def _pandas_agg(fn: str, col: X.Col) -> X.Agg:
    """A pandas aggregate of one group: kept apart from Spark's aggregates by its name."""
    if fn == "count":
        dtype = "long"
    elif fn == "mean":
        dtype = "double"
    elif fn == "sum" and col.dtype in INTEGRAL:
        dtype = "long"
    else:
        dtype = col.dtype
    return X.Agg(f"pandas_{_AGGREGATES[fn]}", col, dtype)


def _dtype(e: X.Expr) -> str:
    return X.dtype_of(e)


def _is_number(dtype: str) -> bool:
    return dtype in INTEGRAL or dtype in FRACTIONAL


def _literal_type(v: object) -> str:
    if isinstance(v, int):
        return "int" if -2 ** 31 <= v < 2 ** 31 else "long"
    if isinstance(v, float):
        return "double"
    return "string"


def _constant(node: ast.expr | None, kind) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, kind):
        if kind is int and isinstance(node.value, bool):
            return None
        return node.value
    return None


def _string_list(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        names = [_constant(e, str) for e in node.elts]
        if all(isinstance(n, str) for n in names):
            return names  # type: ignore[return-value]
    return None
