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
    pd.DataFrame({"k": pdf.k, "y": pdf.v * 2})    Project
    pdf.loc[mask], pdf.loc[:, ["a", "b"]]          Filter, Project
    pdf.loc[mask, "c"] = value                    Project (CASE WHEN mask THEN value ELSE c)
    pdf.merge(LOOKUP, on="k", how="left")         Project of lookups in a recorded frame (and a
                                                  Filter for how="inner")
    return <frame>

Scalars of the group are aggregates (`pandas_<fn>` calls, opaque to the proofs, which never
push a filter on them): `len(pdf)`, `pdf.shape[0]`, `s.sum()` and the like, `s.nunique()`,
`s.iloc[0]`, `s.iloc[-1]`, `s.values[0]`, `s.to_numpy()[-1]`, the same of `pdf.loc[mask, "c"]`
(the rows the mask keeps), a name bound to one of them (`base = ...`), and
`pdf.groupby(k)["c"].transform("mean")` (a value per row from its subgroup). Arithmetic with
them broadcasts over the rows, so the body is no longer row by row.

Expressions are written in the IR so that Spark's semantics give pandas' result
(docs/semantics.md, "GroupedMap"): a comparison involving a missing value is
False in pandas (True for `!=`), so it becomes `coalesce(cmp, false)`
(`coalesce(cmp, true)`), which is never NULL; `&`, `|`, `~` are only taken over
such never-NULL masks, where Kleene's logic is Boolean logic. Aggregates are
`pandas_<fn>` calls: pandas' `sum` of no values is 0, not NULL, so they are
never mistaken for Spark's; `pandas_first` is the first row's value. `pd` is
taken to be the pandas module, as notebooks import it. Anything else raises `BodyNotRead` with the reason,
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


class BodyNotRead(ValueError):
    """The function's body uses something this reader does not read into a sub-plan (the
    caller makes the operator a barrier). Not `symbolic.values.NotModelled`: that one is a
    claim the solver's model cannot express, raised while a candidate is checked."""


@dataclass(frozen=True)
class _Frame:
    """A pandas DataFrame in the body: the plan computing it, and the sort that made it, if any."""

    plan: P.Plan
    order: tuple[tuple[X.Expr, bool, bool], ...] | None = None

    def column(self, name: str) -> X.Col:
        for c in self.plan.output:
            if c.name == name:
                return c
        raise BodyNotRead(f"no column {name!r} at this point of the body")


@dataclass(frozen=True)
class _Series:
    """A pandas Series expression; `mask` when it is a boolean that is never missing; `aggregate`
    when it is one value of the whole group; `where` when it holds only the rows a mask keeps
    (`pdf.loc[mask, "c"]`), which only a reduction to one value may use."""

    expr: X.Expr
    mask: bool = False
    aggregate: bool = False
    where: X.Expr | None = None


def body_plan(source: str | None, inputs: tuple[X.Col, ...]) -> P.Plan:
    """The sub-plan the pandas function computes on one group, or `BodyNotRead`."""
    if not source:
        raise BodyNotRead("the function's source was not recorded")
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError as err:
        raise BodyNotRead(f"source does not parse: {err.msg}") from err
    frames = _recorded_frames(tree)
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.FunctionDef):  # the tracer writes what the function reads in front of it
        return _Reader(inputs, frames).function(last)
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if len(lambdas) == 1:
        # `lambda pdf: ...` (the tracer keeps just the lambda) is a function returning its body
        fn = lambdas[0]
        as_def = ast.FunctionDef("<lambda>", fn.args, [ast.Return(fn.body, lineno=1)], [], None, lineno=1)
        return _Reader(inputs, frames).function(as_def)
    raise BodyNotRead("expected one function definition")


_MAX_FRAME_ROWS = 256


def _recorded_frames(tree: ast.Module) -> dict[str, tuple[tuple[str, tuple], ...]]:
    """Small pandas frames the tracer recorded in front of the function
    (`NAME = pandas.DataFrame({"k": [...], ...})`): name -> its columns and their values."""
    found = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr == "DataFrame" and len(node.value.args) == 1 and not node.value.keywords):
            continue
        try:
            columns = ast.literal_eval(node.value.args[0])
        except ValueError:
            continue
        if isinstance(columns, dict) and columns and all(isinstance(k, str) and isinstance(v, list)
                                                         for k, v in columns.items()):
            lengths = {len(v) for v in columns.values()}
            if len(lengths) == 1 and lengths.pop() <= _MAX_FRAME_ROWS:
                found[node.targets[0].id] = tuple((k, tuple(v)) for k, v in columns.items())
    return found


class _Reader:
    def __init__(self, inputs: tuple[X.Col, ...], frames: dict | None = None) -> None:
        self.inputs = inputs
        self.frames = frames or {}
        self.scalars: dict[str, _Series] = {}  # names bound to a scalar of the group
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
            raise BodyNotRead("the function must take the group's frame as its one argument")
        if fn.decorator_list:
            raise BodyNotRead("decorated function")
        env: dict[str, _Frame] = {args.args[0].arg: _Frame(P.Source("group", self.inputs))}
        body = list(fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.Return):
                if i != len(body) - 1 or stmt.value is None:
                    raise BodyNotRead("return must be the last statement and return a frame")
                return self.frame(stmt.value, env).plan
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                raise BodyNotRead(f"statement {type(stmt).__name__} at line {stmt.lineno}")
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and self._is_scalar(stmt.value, env):
                frame = self._frame_of_scalar(stmt.value, env)
                value = self.series(stmt.value, frame, env)
                if not value.aggregate:
                    raise BodyNotRead(f"{target.id} = {ast.unparse(stmt.value)}: not a scalar of the group")
                self.scalars[target.id] = value
                env.pop(target.id, None)
            elif isinstance(target, ast.Name):
                env[target.id] = self.frame(stmt.value, env)
                self.scalars.pop(target.id, None)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                    and target.value.attr == "loc" and isinstance(target.value.value, ast.Name) \
                    and isinstance(target.slice, ast.Tuple) and len(target.slice.elts) == 2 \
                    and _constant(target.slice.elts[1], str) is not None:
                name = target.value.value
                frame = self._name(name, env)
                if any(v is frame for k, v in env.items() if k != name.id):
                    raise BodyNotRead(f"{name.id} is bound to a frame another name holds too")
                mask = self.series(target.slice.elts[0], frame, env)
                if not mask.mask:
                    raise BodyNotRead(".loc[...] = with something other than a boolean mask")
                column = target.slice.elts[1].value
                value = self.series(stmt.value, frame, env)
                old = X.Lit(None, _dtype(value.expr))
                if any(c.name == column for c in frame.plan.output):
                    old = frame.column(column)
                    if _dtype(old) != _dtype(value.expr):
                        raise BodyNotRead(f".loc[mask, {column!r}] = a value of another type")
                made = _Series(X.Case(((mask.expr, value.expr),), old), aggregate=False)
                env[name.id] = self._assign(frame, ((column, made),))
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and _constant(target.slice, str) is not None:
                frame = self._name(target.value, env)
                if any(v is frame for k, v in env.items() if k != target.value.id):
                    # `a = pdf` binds one object to two names: setting a column changes both
                    raise BodyNotRead(f"{target.value.id} is bound to a frame another name holds too")
                series = self.series(stmt.value, frame, env)
                env[target.value.id] = self._assign(frame, ((target.slice.value, series),))
            else:
                raise BodyNotRead(f"assignment at line {stmt.lineno}")
        raise BodyNotRead("the function does not end with a return")

    # -------------------------------------------------------------------- frames

    def _name(self, node: ast.Name, env: dict[str, _Frame]) -> _Frame:
        if node.id not in env:
            raise BodyNotRead(f"{node.id!r} is not a frame of the body")
        return env[node.id]

    def frame(self, node: ast.expr, env: dict[str, _Frame]) -> _Frame:
        if isinstance(node, ast.Name):
            return self._name(node, env)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "loc":
            base = self.frame(node.value.value, env)
            rows, cols = (node.slice.elts if isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2
                          else (node.slice, None))
            out = base
            if not (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None and rows.step is None):
                mask = self.series(rows, base, env)
                if not mask.mask:
                    raise BodyNotRead(".loc[...] with something other than a boolean mask")
                out = _Frame(P.Filter(base.plan, mask.expr), base.order)
            if cols is not None:
                names = _string_list(cols)
                if names is None:
                    raise BodyNotRead(".loc[rows, columns] with a literal column list")
                out = _Frame(P.Project(out.plan, tuple((c, c) for c in map(out.column, names))), out.order)
            return out
        if isinstance(node, ast.Subscript):
            base = self.frame(node.value, env)
            names = _string_list(node.slice)
            if names is not None:
                return _Frame(P.Project(base.plan, tuple((c, c) for c in map(base.column, names))))
            mask = self.series(node.slice, base, env)
            if not mask.mask:
                raise BodyNotRead("a frame indexed by something other than a boolean mask or a column list")
            return _Frame(P.Filter(base.plan, mask.expr), base.order)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in ("pd", "pandas") \
                and node.func.attr == "DataFrame" and node.func.value.id not in env:
            if len(node.args) == 1 and isinstance(node.args[0], ast.Dict) and node.args[0].values \
                    and not any(isinstance(v, ast.List) for v in node.args[0].values):
                return self._columns_frame(node, env)
            return self._one_row(node, env)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            inner = node.func.value
            if method == "agg" and isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                    and inner.func.attr == "groupby":
                return self._groupby_agg(inner, node, env)
            base = self.frame(node.func.value, env)
            return self._method(base, method, node, env)
        raise BodyNotRead(f"frame expression {ast.unparse(node)!r}")

    def _method(self, base: _Frame, method: str, call: ast.Call, env: dict[str, _Frame]) -> _Frame:
        kw = {k.arg: k.value for k in call.keywords}
        if None in kw:
            raise BodyNotRead(f"{method}(**...)")
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
                raise BodyNotRead("head(k) with a non-negative integer literal")
            if base.order is None:
                raise BodyNotRead("head(k) without a sort first: which rows it keeps depends on row order")
            below = base.plan.child if isinstance(base.plan, P.Reorder) else base.plan
            return _Frame(P.TopK(below, base.order, k))
        if method == "dropna" and not call.args and set(kw) <= {"subset"}:
            cols = base.plan.output
            if "subset" in kw:
                names = _string_list(kw["subset"]) or ([_constant(kw["subset"], str)]
                                                       if _constant(kw["subset"], str) else None)
                if names is None:
                    raise BodyNotRead("dropna(subset=...) with a literal column list")
                cols = tuple(map(base.column, names))
            return _Frame(P.Filter(base.plan, X.and_(*(X.IsNotNull(c) for c in cols))), base.order)
        if method == "drop" and not call.args and kw.keys() == {"columns"}:
            names = _string_list(kw["columns"]) or ([_constant(kw["columns"], str)]
                                                    if _constant(kw["columns"], str) else None)
            if names is None:
                raise BodyNotRead("drop(columns=...) with a literal column list")
            for n in names:
                base.column(n)  # pandas raises on a missing column
            kept = tuple((c, c) for c in base.plan.output if c.name not in names)
            return _Frame(P.Project(base.plan, kept), base.order)
        if method == "merge":
            return self._merge(base, call, kw)
        if method == "rename" and not call.args and kw.keys() == {"columns"} \
                and isinstance(kw["columns"], ast.Dict):
            mapping = {}
            for k, v in zip(kw["columns"].keys, kw["columns"].values):
                old, new = _constant(k, str), _constant(v, str)
                if old is None or new is None:
                    raise BodyNotRead("rename(columns=...) with literal names")
                mapping[old] = new
            outputs = tuple((self.fresh(mapping[c.name], c.dtype), c) if c.name in mapping else (c, c)
                            for c in base.plan.output)
            if len({c.name for c, _ in outputs}) != len(outputs):
                raise BodyNotRead("rename makes two columns of one name")
            return _Frame(P.Project(base.plan, outputs))
        raise BodyNotRead(f"frame method {method}(...)")

    def _sort(self, base: _Frame, call: ast.Call, kw: dict[str, ast.expr]) -> _Frame:
        if set(kw) - {"by", "ascending", "na_position", "kind"} or len(call.args) > 1 or \
                (call.args and "by" in kw):
            raise BodyNotRead("sort_values with arguments other than by, ascending, na_position")
        by = call.args[0] if call.args else kw.get("by")
        names = _string_list(by) if by is not None else None
        if names is None and by is not None and _constant(by, str) is not None:
            names = [by.value]
        if not names:
            raise BodyNotRead("sort_values(by=...) with literal column names")
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
                raise BodyNotRead("sort_values(ascending=...) with literal booleans")
        na = _constant(kw["na_position"], str) if "na_position" in kw else "last"
        if na not in ("first", "last"):
            raise BodyNotRead("sort_values(na_position=...) with 'first' or 'last'")
        # pandas puts missing values at na_position whatever the direction
        order = tuple((base.column(n), asc, na == "first") for n, asc in zip(names, ascending))
        return _Frame(P.Reorder(base.plan, "sort_values"), order)

    def _groupby_agg(self, groupby: ast.Call, agg: ast.Call, env: dict[str, _Frame]) -> _Frame:
        base = self.frame(groupby.func.value, env)
        gkw = {k.arg: k.value for k in groupby.keywords}
        if len(groupby.args) != 1 or set(gkw) - {"as_index", "sort", "dropna"} \
                or _constant(gkw.get("as_index"), bool) is not False:
            raise BodyNotRead("groupby(keys, as_index=False) is the form read")
        names = _string_list(groupby.args[0]) or ([groupby.args[0].value]
                                                  if _constant(groupby.args[0], str) is not None else None)
        if not names:
            raise BodyNotRead("groupby with literal column names")
        keys = tuple(map(base.column, names))
        dropna = _constant(gkw["dropna"], bool) if "dropna" in gkw else True
        if dropna is None:
            raise BodyNotRead("groupby(dropna=...) with a literal")
        child = base.plan
        if dropna:  # pandas leaves out groups whose key is missing
            child = P.Filter(child, X.and_(*(X.IsNotNull(k) for k in keys)))
        if agg.args or not agg.keywords:
            raise BodyNotRead("agg with named aggregations, name=(column, function)")
        outputs: list[tuple[X.Col, X.Expr]] = [(k, k) for k in keys]
        for k in agg.keywords:
            v = k.value
            if k.arg is None or not isinstance(v, ast.Tuple) or len(v.elts) != 2:
                raise BodyNotRead("agg with named aggregations, name=(column, function)")
            col_name, fn = _constant(v.elts[0], str), _constant(v.elts[1], str)
            if col_name is None or fn not in _AGGREGATES:
                raise BodyNotRead(f"aggregation {ast.unparse(v)}")
            outputs.append(self._aggregate_output(k.arg, fn, base.column(col_name)))
        return _Frame(P.Aggregate(child, keys, tuple(outputs)))

    def _one_row(self, call: ast.Call, env: dict[str, _Frame]) -> _Frame:
        """pd.DataFrame({"k": [pdf.k.iloc[0]], "total": [pdf.amount.sum()]}): one row of scalars,
        all read from one frame; `iloc[0]` is the first row's value (pandas raises on no rows)."""
        if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Dict):
            raise BodyNotRead("pd.DataFrame({name: [scalar], ...}) is the form read")
        frame: _Frame | None = None
        outputs: list[tuple[X.Col, X.Expr]] = []
        for k, v in zip(call.args[0].keys, call.args[0].values):
            name = _constant(k, str)
            if name is None or not isinstance(v, ast.List) or len(v.elts) != 1:
                raise BodyNotRead("pd.DataFrame({name: [scalar], ...}) is the form read")
            scalar = v.elts[0]
            source = self._frame_of_scalar(scalar, env) if not (isinstance(scalar, ast.Name)
                                                                 and scalar.id in self.scalars) else frame
            if frame is not None and source is not None and source is not frame:
                raise BodyNotRead("pd.DataFrame over scalars of different frames")
            frame = frame or source
            if frame is None:
                raise BodyNotRead(f"scalar {ast.unparse(scalar)!r}")
            s = self.series(scalar, frame, env)
            if not s.aggregate:
                raise BodyNotRead(f"scalar {ast.unparse(scalar)!r}")
            outputs.append((self.fresh(name, _dtype(s.expr)), s.expr))
        if frame is None:
            raise BodyNotRead("pd.DataFrame with no columns")
        return _Frame(P.Aggregate(frame.plan, (), tuple(outputs)))

    def _columns_frame(self, call: ast.Call, env: dict[str, _Frame]) -> _Frame:
        """pd.DataFrame({"k": pdf.k, "y": pdf.v * 2}): the series of one frame, side by side (their
        index is the frame's, so they align row by row)."""
        if call.keywords:
            raise BodyNotRead("pd.DataFrame({...}) with keyword arguments")
        frame: _Frame | None = None
        for v in call.args[0].values:
            owner = self._frame_of_scalar(v, env)
            if frame is not None and owner is not frame:
                raise BodyNotRead("pd.DataFrame of series of different frames")
            frame = owner
        assert frame is not None
        outputs = []
        for k, v in zip(call.args[0].keys, call.args[0].values):
            name = _constant(k, str)
            if name is None:
                raise BodyNotRead("pd.DataFrame({...}) with literal column names")
            s = self.series(v, frame, env)
            col = self.fresh(name, _dtype(s.expr))
            outputs.append((col, s.expr))
        if len({c.name for c, _ in outputs}) != len(outputs):
            raise BodyNotRead("pd.DataFrame with a repeated column name")
        return _Frame(P.Project(frame.plan, tuple(outputs)), frame.order)

    def _merge(self, base: _Frame, call: ast.Call, kw: dict[str, ast.expr]) -> _Frame:
        """pdf.merge(LOOKUP, on=keys, how="left" | "inner") with LOOKUP a small frame the tracer
        recorded: each of its other columns is a lookup of the row's keys (NULL without a match,
        which how="inner" drops). Its keys must be unique (else rows would repeat), its other
        columns new, and a key is never missing in it (pandas would match a missing key)."""
        if len(call.args) != 1 or not isinstance(call.args[0], ast.Name) or call.args[0].id not in self.frames \
                or set(kw) - {"on", "how"} or "on" not in kw:
            raise BodyNotRead("merge(<a recorded frame>, on=..., how=...) is the form read")
        how = _constant(kw["how"], str) if "how" in kw else "inner"
        if how not in ("inner", "left"):
            raise BodyNotRead(f"merge(how={how!r})")
        keys = _string_list(kw["on"]) or ([kw["on"].value] if _constant(kw["on"], str) is not None else None)
        if not keys:
            raise BodyNotRead("merge(on=...) with literal column names")
        table = dict(self.frames[call.args[0].id])
        if set(keys) - set(table):
            raise BodyNotRead(f"merge on a column the recorded frame {call.args[0].id} lacks")
        rows = list(zip(*[table[k] for k in keys]))
        if len(set(rows)) != len(rows) or any(v is None or v != v for r in rows for v in r):
            raise BodyNotRead(f"merge with a frame whose keys repeat or are missing ({call.args[0].id})")
        left_keys = tuple(map(base.column, keys))
        key_types = [_literal_type(r) if not isinstance(r, bool) else "boolean" for r in rows[0]] if rows else []
        for c, t in zip(left_keys, key_types):
            if (t == "string") != (c.dtype == "string"):
                raise BodyNotRead(f"merge of {c.name} ({c.dtype}) with keys of another type")
        matches = [X.and_(*(X.Cmp("=", c, _typed_literal(v, c)) for c, v in zip(left_keys, r))) for r in rows]
        outputs = [(c, c) for c in base.plan.output]
        taken = {c.name for c in base.plan.output}
        for name, values in table.items():
            if name in keys:
                continue
            if name in taken:
                raise BodyNotRead(f"merge adds {name!r}, which the frame has: pandas would rename both")
            dtype = _column_type(values)
            branches = tuple((m, X.Lit(v, dtype)) for m, v in zip(matches, values))
            outputs.append((self.fresh(name, dtype), X.Case(branches, X.Lit(None, dtype))))
        plan: P.Plan = base.plan
        if how == "inner":
            plan = P.Filter(plan, X.or_(*matches) if matches else X.FALSE)
        return _Frame(P.Project(plan, tuple(outputs)))

    def _is_scalar(self, node: ast.expr, env: dict[str, _Frame]) -> bool:
        """Whether `node` reads as a value of the whole group rather than a frame or a series."""
        return _scalar_form(node) or (isinstance(node, ast.Name) and node.id in self.scalars)

    def _frame_of_scalar(self, node: ast.expr, env: dict[str, _Frame]) -> _Frame:
        """The frame whose columns an expression reads (its first frame name)."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in env:
                return env[n.id]
        raise BodyNotRead(f"{ast.unparse(node)} reads no frame")

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
                    raise BodyNotRead("assign with a one-argument lambda")
                s = self.series(node.body, current, {**env, a.args[0].arg: current})
            else:
                # read on the current frame, which equals the base on every column not yet assigned
                s = self.series(node, current, {**env, **{k: current for k, v in env.items() if v is base}})
                if {c.name for c in X.columns(s.expr)} & assigned:
                    raise BodyNotRead(f"assign: {name} reads a column an earlier item of the call replaced")
            current = self._assign(current, ((name, s),))
            assigned.add(name)
        return current

    def _assign(self, base: _Frame, items: tuple[tuple[str, _Series], ...]) -> _Frame:
        """Columns set in order; a name already present is replaced in place, a new one appended."""
        outputs = [(c, c) for c in base.plan.output]
        for name, s in items:
            if s.where is not None:
                raise BodyNotRead(f"{name}: the rows of pdf.loc[mask, column] set as a column (aligned by index)")
            if s.mask is False and s.aggregate is False and isinstance(s.expr, X.Lit):
                raise BodyNotRead(f"{name}: a constant column")
            col = self.fresh(name, _dtype(s.expr))
            at = next((i for i, (c, _) in enumerate(outputs) if c.name == name), None)
            if at is None:
                outputs.append((col, s.expr))
            else:
                outputs[at] = (col, s.expr)
        return _Frame(P.Project(base.plan, tuple(outputs)), base.order)

    # -------------------------------------------------------------------- series

    def series(self, node: ast.expr, frame: _Frame, env: dict[str, _Frame]) -> _Series:
        made = self._scalar(node, frame, env)
        if made is not None:
            return made
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
                raise BodyNotRead("& and | are read over comparison masks only")
            join = X.and_ if isinstance(node.op, ast.BitAnd) else X.or_
            return _Series(join(a.expr, b.expr), mask=True)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            a = self.series(node.operand, frame, env)
            if not a.mask:
                raise BodyNotRead("~ is read over comparison masks only")
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
            raise BodyNotRead("division: pandas gives inf or NaN where Spark gives NULL")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return self._series_method(node, frame, env)
        raise BodyNotRead(f"expression {ast.unparse(node)!r}")

    def _scalar(self, node: ast.expr, frame: _Frame, env: dict[str, _Frame]) -> _Series | None:
        """A value of the whole group (an aggregate), a per-row value of a subgroup
        (`transform`), or the rows of `pdf.loc[mask, "c"]`; None for other expressions."""
        if isinstance(node, ast.Name) and node.id in self.scalars:
            return self.scalars[node.id]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1 and not node.keywords:
            self._whole_frame(node.args[0], frame, env)
            return _Series(X.Agg("pandas_size", None, "long"), aggregate=True)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
                and _constant(node.slice, int) == 0:
            self._whole_frame(node.value.value, frame, env)
            return _Series(X.Agg("pandas_size", None, "long"), aggregate=True)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "loc" \
                and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2 \
                and _constant(node.slice.elts[1], str) is not None:
            self._whole_frame(node.value.value, frame, env)
            mask = self.series(node.slice.elts[0], frame, env)
            if not mask.mask:
                raise BodyNotRead(".loc[...] with something other than a boolean mask")
            return _Series(frame.column(node.slice.elts[1].value), where=mask.expr)
        position = _position(node)
        if position is not None:  # s.iloc[0], s.values[-1], s.to_numpy()[0]
            inner, at = position
            s = self.series(inner, frame, env)
            if not isinstance(s.expr, X.Col) or s.aggregate:
                raise BodyNotRead(f"{ast.unparse(node)}: a position of something other than a column")
            fn = "pandas_first" if at == 0 else "pandas_last"
            return _Series(X.Agg(fn if s.where is None else f"{fn}_where", _where(s), s.expr.dtype), aggregate=True)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "transform":
            return self._transform(node, frame, env)
        return None

    def _whole_frame(self, node: ast.expr, frame: _Frame, env: dict[str, _Frame]) -> None:
        if not (isinstance(node, ast.Name) and env.get(node.id) is frame):
            raise BodyNotRead(f"{ast.unparse(node)} is not the frame it is used on")

    def _transform(self, call: ast.Call, frame: _Frame, env: dict[str, _Frame]) -> _Series:
        """pdf.groupby(k)["c"].transform("mean"): each row's value of its subgroup, a function of
        the subgroup's rows (pandas leaves out rows with a missing key: their value is missing)."""
        fn = _constant(call.args[0], str) if len(call.args) == 1 and not call.keywords else None
        if fn not in _AGGREGATES:
            raise BodyNotRead("transform with the name of a sum, mean, max, min or count")
        target = call.func.value
        if isinstance(target, ast.Subscript) and _constant(target.slice, str) is not None:
            grouped, column = target.value, target.slice.value
        elif isinstance(target, ast.Attribute):
            grouped, column = target.value, target.attr
        else:
            raise BodyNotRead(f"{ast.unparse(call)}")
        if not (isinstance(grouped, ast.Call) and isinstance(grouped.func, ast.Attribute)
                and grouped.func.attr == "groupby" and len(grouped.args) == 1 and not grouped.keywords):
            raise BodyNotRead("transform of groupby(keys)[column]")
        self._whole_frame(grouped.func.value, frame, env)
        keys = _string_list(grouped.args[0]) or ([grouped.args[0].value]
                                                 if _constant(grouped.args[0], str) is not None else None)
        if not keys:
            raise BodyNotRead("groupby with literal column names")
        for k in keys:
            frame.column(k)
        col = frame.column(column)
        agg = _pandas_agg(fn, col)
        return _Series(X.Agg(f"{agg.fn}_by_{'_'.join(keys)}", col, agg.dtype), aggregate=True)

    def _column_of(self, name: ast.Name, column: str, frame: _Frame, env: dict[str, _Frame],
                   by_attribute: bool = False) -> X.Col:
        # a Series of another frame would be aligned by index labels: not modelled
        if env.get(name.id) is not frame:
            raise BodyNotRead(f"{name.id}.{column} does not belong to the frame it is used on")
        if by_attribute and _frame_attribute(column):
            raise BodyNotRead(f"{name.id}.{column} is a DataFrame attribute, not the column")
        return frame.column(column)

    def _series_method(self, call: ast.Call, frame: _Frame, env: dict[str, _Frame]) -> _Series:
        method = call.func.attr
        if call.keywords:
            raise BodyNotRead(f"{method}(...) with keyword arguments")
        if method in _AGGREGATES and not call.args:
            s = self.series(call.func.value, frame, env)
            if not isinstance(s.expr, X.Col):
                raise BodyNotRead(f"{method}() of an expression")
            agg = _pandas_agg(method, s.expr)
            if s.where is not None:
                agg = X.Agg(f"{agg.fn}_where", _where(s), agg.dtype)
            return _Series(agg, aggregate=True)
        if method == "nunique" and not call.args:
            s = self.series(call.func.value, frame, env)
            if not isinstance(s.expr, X.Col):
                raise BodyNotRead("nunique() of an expression")
            return _Series(X.Agg("pandas_nunique" if s.where is None else "pandas_nunique_where", _where(s), "long"),
                           aggregate=True)
        s = self.series(call.func.value, frame, env)
        if s.where is not None:
            raise BodyNotRead(f"{method}() of pdf.loc[mask, column]: only reductions to one value are read")
        if method in ("isna", "isnull", "notna", "notnull") and not call.args:
            missing = X.IsNull(s.expr) if method in ("isna", "isnull") else X.IsNotNull(s.expr)
            return _Series(missing, mask=True)
        if method == "fillna" and len(call.args) == 1:
            # a literal fill: pandas fills None and NaN alike (a double's NaN is read as missing
            # where the column is read), so this is Spark's coalesce
            value = _constant(call.args[0], (int, float, str))
            if value is None or isinstance(value, bool):
                raise BodyNotRead("fillna with a literal number or string")
            lit = _typed_literal(value, s.expr)
            _compare("=", s, _Series(lit))  # the same type rules as ==
            return _Series(X.Coalesce((s.expr, lit)))
        if method == "isin" and len(call.args) == 1 \
                and isinstance(call.args[0], (ast.List, ast.Tuple, ast.Set)):
            values = [_constant(e, (int, float, str)) for e in call.args[0].elts]
            if any(v is None or isinstance(v, bool) for v in values) or not values:
                raise BodyNotRead("isin over a list of literal numbers or strings")
            lits = tuple(_typed_literal(v, s.expr) for v in values)
            for lit in lits:
                _compare("=", s, _Series(lit))  # the same type rules as ==
            return _Series(X.Coalesce((X.In(s.expr, lits), X.FALSE)), mask=True)
        raise BodyNotRead(f"series method {method}(...)")


# ------------------------------------------------------------------------ expression rules


def _compare(op: str, a: _Series, b: _Series) -> X.Expr:
    """pandas' comparison: False where a value is missing (True for !=), never missing itself."""
    if a.mask or b.mask or a.where is not None or b.where is not None:
        raise BodyNotRead("comparison of masks")
    ta, tb = _dtype(a.expr), _dtype(b.expr)
    numeric = _is_number(ta) and _is_number(tb)
    strings = ta == "string" and tb == "string" and op in ("=", "!=")
    if not (numeric or strings):
        # ordering a missing value (None) against a string raises in pandas
        raise BodyNotRead(f"comparison {op} of {ta} and {tb}")
    if isinstance(a.expr, X.Lit) and isinstance(b.expr, X.Lit):
        raise BodyNotRead("comparison of two literals")
    _exact_mix(a.expr, b.expr)
    left = _retype(a.expr, b.expr)
    right = _retype(b.expr, a.expr)
    return X.Coalesce((X.Cmp(op, left, right), X.TRUE if op == "!=" else X.FALSE))


def _arith(op: str, a: _Series, b: _Series) -> X.Expr:
    _numeric(a)
    _numeric(b)
    if isinstance(a.expr, X.Lit) and isinstance(b.expr, X.Lit):
        raise BodyNotRead("arithmetic on two literals")
    _exact_mix(a.expr, b.expr)
    left, right = _retype(a.expr, b.expr), _retype(b.expr, a.expr)
    ta, tb = _dtype(left), _dtype(right)
    if ta in FRACTIONAL or tb in FRACTIONAL:
        dtype = "double"
    else:
        dtype = max((ta, tb), key=lambda t: INTEGER_RANK[t])
    return X.Arith(op, left, right, dtype)


def _where(s: _Series) -> X.Expr:
    """The column a reduction reads: only the rows a `.loc` mask keeps."""
    if s.where is None:
        return s.expr
    return X.Case(((s.where, s.expr),), X.Lit(None, _dtype(s.expr)))


def _position(node: ast.expr) -> tuple[ast.expr, int] | None:
    """(series, 0 or -1) for `s.iloc[i]`, `s.values[i]`, `s.to_numpy()[i]` with i 0 or -1."""
    if not isinstance(node, ast.Subscript):
        return None
    at = _constant(node.slice, int)
    if at is None and isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.op, ast.USub):
        inner = _constant(node.slice.operand, int)
        at = -inner if inner is not None else None
    if at not in (0, -1):
        return None
    holder = node.value
    if isinstance(holder, ast.Attribute) and holder.attr in ("iloc", "values"):
        return holder.value, at
    if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Attribute) and holder.func.attr == "to_numpy" \
            and not holder.args and not holder.keywords:
        return holder.func.value, at
    return None


def _scalar_form(node: ast.expr) -> bool:
    """Whether an expression is written as a value of the whole group (its outermost call or
    subscript reduces a series to one value)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return True
    if _position(node) is not None:
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in (*_AGGREGATES, "nunique") and not node.args:
        return True
    if isinstance(node, ast.BinOp):
        return _scalar_form(node.left) and (_scalar_form(node.right) or isinstance(node.right, ast.Constant)) or \
            _scalar_form(node.right) and isinstance(node.left, ast.Constant)
    return False


def _column_type(values: tuple) -> str:
    present = [v for v in values if v is not None and v == v]
    if present and all(isinstance(v, bool) for v in present):
        return "boolean"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "long"
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "double"
    if present and all(isinstance(v, str) for v in present):
        return "string"
    raise BodyNotRead("a recorded frame column of mixed or unknown type")


def _frame_attribute(name: str) -> bool:
    """`pdf.<name>` is pandas' own attribute (pdf.size, pdf.T), not the column of that name."""
    import pandas

    return hasattr(pandas.DataFrame, name)


def _exact_mix(a: X.Expr, b: X.Expr) -> None:
    # numpy compares and adds a long with a double in float64, which rounds above 2**53
    types = {_dtype(a), _dtype(b)}
    if "long" in types and types & FRACTIONAL:
        raise BodyNotRead("a long combined with a float or double")


def _numeric(s: _Series) -> None:
    if s.mask or s.where is not None or not _is_number(_dtype(s.expr)):
        raise BodyNotRead(f"arithmetic on {s.expr} ({_dtype(s.expr)})")


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
