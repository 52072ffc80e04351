"""A plain-Python evaluator of IR plans with Spark's semantics, for differential tests.

Independent of the symbolic engine: values are Python values, NULL is None,
predicates use three-valued logic (None is unknown), and Python UDFs run in
CPython from their source. A UDF that raises makes the whole evaluation raise,
as it makes a Spark job fail.
"""

from __future__ import annotations

import functools
import math
import textwrap
from collections import Counter
from typing import Any

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

Row = dict[tuple[str, int], Any]


class Undefined(Exception):
    """The expression has no reference semantics here (the test skips that input)."""


def bag(rows: list[Row], columns: tuple[X.Col, ...]) -> Counter:
    return Counter(tuple(_canon(r.get((c.name, c.id))) for c in columns) for r in rows)


def _canon(v: Any) -> Any:
    """Floats to 9 significant digits (Spark and Python may add in another order); NaN as one
    value, since Spark's NaN equals NaN and Python's does not."""
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else float(f"{v:.9g}")
    return v


_RANGE = {"int": (-2**31, 2**31 - 1), "long": (-2**63, 2**63 - 1)}


class Overflow(Undefined):
    """Integer arithmetic left its type. ANSI mode (Spark's default) raises, but where is up to
    Spark's optimizer: it pushes filters through joins itself, and it never computes a column
    nobody reads. Whether the plan raises is therefore not defined by the plan alone, and such
    an input is skipped here (the fuzzer's Spark comparisons cover it)."""


def _fits(v: Any, dtype: str) -> Any:
    lo, hi = _RANGE.get(dtype, (None, None))
    if lo is not None and isinstance(v, int) and not lo <= v <= hi:
        raise Overflow(f"{v} overflows {dtype}")
    return v


def _spark_cmp(a: Any, b: Any) -> int:
    """Spark's order of two non-NULL values: NaN equals NaN and is above every other number."""
    a_nan, b_nan = isinstance(a, float) and math.isnan(a), isinstance(b, float) and math.isnan(b)
    if a_nan or b_nan:
        return (a_nan > b_nan) - (a_nan < b_nan)
    return (a > b) - (a < b)


def _key(v: Any) -> Any:
    """A grouping key as Spark groups: every NaN in one group."""
    return "NaN" if isinstance(v, float) and math.isnan(v) else v


def run(plan: P.Plan, tables: dict[int, list[Row]]) -> list[Row]:
    """Evaluate a plan; `tables` maps a Source's origin to its rows."""
    if isinstance(plan, P.Source):
        return [dict(r) for r in tables[plan.origin]]
    if isinstance(plan, P.Filter):
        return [r for r in run(plan.child, tables) if evaluate(plan.condition, r) is True]
    if isinstance(plan, P.Project):
        return [{(c.name, c.id): evaluate(e, r) for c, e in plan.outputs} for r in run(plan.child, tables)]
    if isinstance(plan, P.InnerJoin):
        left, right = run(plan.left, tables), run(plan.right, tables)
        return [{**a, **b} for a in left for b in right if evaluate(plan.condition, {**a, **b}) is True]
    if isinstance(plan, P.OuterJoin) and plan.preserved == "both":
        return _full_outer_join(plan, tables)
    if isinstance(plan, P.OuterJoin):
        keep, other = (plan.left, plan.right) if plan.preserved == "left" else (plan.right, plan.left)
        pad = {(c.name, c.id): None for c in other.output}
        out = []
        other_rows = run(other, tables)
        for a in run(keep, tables):
            matches = [{**a, **b} for b in other_rows if evaluate(plan.condition, {**a, **b}) is True]
            out.extend(matches or [{**a, **pad}])
        return out
    if isinstance(plan, P.Reorder):
        return run(plan.child, tables)
    if isinstance(plan, P.Union):
        out = []
        for child, mapping in zip(plan.inputs, plan.column_maps()):
            out.extend({(c.name, c.id): r[(m.name, m.id)] for c, m in mapping.items()} for r in run(child, tables))
        return out
    if isinstance(plan, P.Aggregate):
        return _aggregate(plan, run(plan.child, tables))
    if isinstance(plan, P.Expand):
        return [{(c.name, c.id): evaluate(e, r) for c, e in made.items()}
                for r in run(plan.child, tables) for made in plan.rows()]
    if isinstance(plan, P.TopK):
        rows = run(plan.child, tables)
        key = functools.cmp_to_key(lambda a, b: _order(plan, a, b) or _cmp_rows(a, b))
        return sorted(rows, key=key)[: plan.k]
    if isinstance(plan, P.Window):
        return _window(plan, run(plan.child, tables))
    if isinstance(plan, P.GroupedMap):
        return _grouped_map(plan, run(plan.child, tables))
    raise Undefined(f"no reference semantics for {type(plan).__name__}")


_ARROW_TYPES = {"int": "int32", "long": "int64", "string": "string", "double": "float64", "boolean": "bool",
                "date": "date32"}


def _grouped_map(plan: P.GroupedMap, rows: list[Row]) -> list[Row]:
    """groupBy(keys).applyInPandas(fn, schema) as Spark runs it: the rows grouped as Spark groups
    them, each group handed to fn as Arrow makes a pandas frame (an int column with a NULL is
    float64 with NaN, a double's NULL is NaN, dates are objects), and fn's frame read back by
    column name as Spark 4 converts it (a missing value, NaN too, is NULL; an unsafe cast to the
    schema's type, `spark.sql.execution.pandas.convertToArrowArraySafely` being off)."""
    import pyarrow as pa

    if plan.source is None:
        raise Undefined("applyInPandas without its function's source")
    fn = _udf(plan.source)
    cols = plan.child.output
    schema = pa.schema([(c.name, _ARROW_TYPES[c.dtype]) for c in cols])
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        groups.setdefault(tuple(_key(evaluate(k, r)) for k in plan.keys), []).append(r)
    out: list[Row] = []
    for group in groups.values():
        table = pa.Table.from_pylist([{c.name: r[(c.name, c.id)] for c in cols} for r in group], schema)
        result = fn(table.to_pandas(date_as_object=True))
        columns = []
        for c in plan.output:
            series = result[c.name]
            arrow_type = pa.type_for_alias(_ARROW_TYPES[c.dtype])
            try:
                values = pa.Array.from_pandas(series, mask=series.isnull(), type=arrow_type, safe=False)
            except pa.lib.ArrowInvalid:
                values = pa.Array.from_pandas(series, mask=series.isnull()).cast(arrow_type, safe=False)
            columns.append(values.to_pylist())
        out.extend({(c.name, c.id): v for c, v in zip(plan.output, made)} for made in zip(*columns))
    return out


def _window(plan: P.Window, rows: list[Row]) -> list[Row]:
    """Each row with its window values: partitions as Spark groups them (NULLs together, every
    NaN together, -0.0 with 0.0), each sorted by the window's order; rows that tie in it must
    be equal rows (the fuzzer orders by every column), else the numbering is Spark's choice."""
    if len(plan.calls) != len(plan.computed):
        raise Undefined("a window without its functions")
    parts: dict[tuple, list[Row]] = {}
    for r in rows:
        parts.setdefault(tuple(_key(evaluate(k, r)) for k in plan.partition), []).append(r)
    out = []
    for members in parts.values():
        ordered = sorted(members, key=functools.cmp_to_key(lambda a, b: _order(plan, a, b) or _cmp_rows(a, b)))
        for i, r in enumerate(ordered):
            if any(_order(plan, r, o) == 0 and _cmp_rows(r, o) != 0 for o in ordered):
                raise Undefined("rows that tie in the window's order differ")
            made = dict(r)
            for col, call in zip(plan.computed, plan.calls):
                made[(col.name, col.id)] = _window_value(plan, call, ordered, i)
            out.append(made)
    return out


def _window_value(plan: P.Window, call: P.WindowCall, ordered: list[Row], i: int) -> Any:
    if call.fn == "row_number":
        return i + 1
    if call.fn == "rank":
        return 1 + sum(1 for o in ordered if _order(plan, o, ordered[i]) < 0)
    if call.fn == "dense_rank":
        return len({tuple(_key(evaluate(k, o)) for k, _, _ in plan.order)
                    for o in ordered if _order(plan, o, ordered[i]) <= 0})
    if call.fn in ("lag", "lead"):
        j = i + (call.lower if call.lower is not None else 0)
        return evaluate(call.args[0], ordered[j]) if 0 <= j < len(ordered) else None
    if call.rows:
        lo = 0 if call.lower is None else max(0, i + call.lower)
        hi = len(ordered) - 1 if call.upper is None else min(len(ordered) - 1, i + call.upper)
        frame = ordered[lo:hi + 1]
    elif call.lower is None and call.upper in (0, None):  # RANGE: the current row's ties count as it
        frame = [o for o in ordered if call.upper is None or _order(plan, o, ordered[i]) <= 0]
    else:
        raise Undefined(f"a RANGE frame {call.lower}..{call.upper}")
    if call.fn in ("first", "last"):
        values = [evaluate(call.args[0], o) for o in frame]
        if call.skips_nulls:  # first(x, ignorenulls=True): the first value that is not NULL
            values = [v for v in values if v is not None]
        return (values[0] if call.fn == "first" else values[-1]) if values else None
    agg = X.Agg(call.fn, call.args[0] if call.args else None, call.dtype)
    return _agg(agg, frame)


def _full_outer_join(plan: P.OuterJoin, tables: dict[int, list[Row]]) -> list[Row]:
    """Matched pairs, then each unmatched row of either input with the other input's columns NULL."""
    left, right = run(plan.left, tables), run(plan.right, tables)
    pad_left = {(c.name, c.id): None for c in plan.left.output}
    pad_right = {(c.name, c.id): None for c in plan.right.output}
    out, matched_right = [], set()
    for a in left:
        hits = [j for j, b in enumerate(right) if evaluate(plan.condition, {**a, **b}) is True]
        out.extend({**a, **right[j]} for j in hits)
        if not hits:
            out.append({**a, **pad_right})
        matched_right.update(hits)
    out.extend({**pad_left, **b} for j, b in enumerate(right) if j not in matched_right)
    return out


def _aggregate(plan: P.Aggregate, rows: list[Row]) -> list[Row]:
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        groups.setdefault(tuple(_key(evaluate(k, r)) for k in plan.keys), []).append(r)
    if not plan.keys and not groups:
        groups[()] = []
    out = []
    for members in groups.values():
        rep = members[0] if members else {}
        values = {}
        for _, e in plan.outputs:
            for node in X.walk(e):
                if isinstance(node, X.Agg):
                    values[node] = _agg(node, members)
        out.append({(c.name, c.id): evaluate(X.transform(e, lambda n: _Value(values[n]) if isinstance(n, X.Agg)
                                                        else None), rep)
                    for c, e in plan.outputs})
    return out


class _Value(X.Lit):
    def __init__(self, value: Any) -> None:
        super().__init__(value, "other")


def _agg(a: X.Agg, rows: list[Row]) -> Any:
    if a.arg is None:
        return len(rows)
    if a.fold is not None and a.fold.reduce is not None:  # rdd.reduceByKey(f): Python's fold, None included
        # outside its type createDataFrame's check raises
        return _python_int_in_range(functools.reduce(_udf(a.fold.reduce.source), [evaluate(a.arg, r) for r in rows]),
                                    a.dtype, str(a))
    if a.fn == "first":  # dropDuplicates' other columns: defined only when the group agrees on them
        values = {_key(evaluate(a.arg, r)) for r in rows}
        if len(values) > 1:
            raise Undefined(f"{a}: the group's rows differ, and which one is kept is Spark's choice")
        return evaluate(a.arg, rows[0]) if rows else None
    if a.by is not None and a.fn in ("max_by", "min_by"):
        return _pick_by(a, rows)
    vals = [v for v in (evaluate(a.arg, r) for r in rows) if v is not None]
    if a.fn == "count":
        return len(vals)
    if not vals:
        return None
    if a.fn in ("second_max", "second_min"):  # sort_array(collect_list(x))[1]: equal values apart
        ordered = sorted(vals, key=functools.cmp_to_key(_spark_cmp), reverse=a.fn == "second_max")
        return ordered[1] if len(ordered) > 1 else None
    if a.fn in ("max", "min"):
        pick = functools.reduce(lambda x, y: y if (_spark_cmp(y, x) > 0) == (a.fn == "max") and
                                _spark_cmp(y, x) != 0 else x, vals)
        return pick
    if a.fn == "sum":
        return _fits(sum(vals), a.dtype)
    if a.fn in ("avg", "average") and all(isinstance(v, (int, float)) for v in vals):
        return sum(vals) / len(vals)
    return _undefined(a)


def _pick_by(a: X.Agg, rows: list[Row]) -> Any:
    """max_by/min_by: the value of a row whose ordering value is the extreme; defined only where
    the rows tied there agree on the value (which of them Spark takes is its choice)."""
    ordered = [(o, r) for o, r in ((evaluate(a.by, r), r) for r in rows) if o is not None]
    if not ordered:
        return None
    sign = 1 if a.fn == "max_by" else -1
    extreme = functools.reduce(lambda x, y: y if _spark_cmp(y, x) * sign > 0 else x, [o for o, _ in ordered])
    values = {_key(evaluate(a.arg, r)) for o, r in ordered if _spark_cmp(o, extreme) == 0}
    if len(values) > 1:
        raise Undefined(f"{a}: rows tied at the extreme differ, and which one is taken is Spark's choice")
    return next(evaluate(a.arg, r) for o, r in ordered if _spark_cmp(o, extreme) == 0)


def _undefined(a: X.Agg) -> Any:
    raise Undefined(str(a))


def _order(plan: P.TopK, a: Row, b: Row) -> int:
    for key, ascending, nulls_first in plan.order:
        x, y = evaluate(key, a), evaluate(key, b)
        if x is None and y is None:
            continue
        if x is None or y is None:
            first_is_null = x is None
            return -1 if first_is_null == nulls_first else 1
        if _spark_cmp(x, y) != 0:
            return _spark_cmp(x, y) * (1 if ascending else -1)
    return 0


def _cmp_rows(a: Row, b: Row) -> int:
    ka, kb = repr(sorted(a.items())), repr(sorted(b.items()))
    return (ka > kb) - (ka < kb)


# ----------------------------------------------------------------------------- expressions


def evaluate(e: X.Expr, row: Row) -> Any:
    if isinstance(e, X.Col):
        if (e.name, e.id) not in row:
            raise Undefined(f"column {e} not in row")
        return row[(e.name, e.id)]
    if isinstance(e, X.Lit):
        return e.value
    if isinstance(e, X.Arith):
        a, b = evaluate(e.left, row), evaluate(e.right, row)
        if a is None or b is None:
            return None
        if e.op == "/":
            return None if b == 0 else a / b
        if e.op not in ("+", "-", "*"):
            raise Undefined(str(e))
        return _fits(a + b if e.op == "+" else a - b if e.op == "-" else a * b, e.dtype)
    if isinstance(e, X.Neg):
        a = evaluate(e.arg, row)
        return None if a is None else _fits(-a, X.dtype_of(e.arg))
    if isinstance(e, X.Cmp):
        a, b = evaluate(e.left, row), evaluate(e.right, row)
        if e.op == "<=>":
            return _spark_cmp(a, b) == 0 if a is not None and b is not None else (a is None and b is None)
        if a is None or b is None:
            return None
        c = _spark_cmp(a, b)
        return {"=": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[e.op]
    if isinstance(e, X.And):
        vals = [evaluate(a, row) for a in e.args]
        return False if False in vals else (None if None in vals else True)
    if isinstance(e, X.Or):
        vals = [evaluate(a, row) for a in e.args]
        return True if True in vals else (None if None in vals else False)
    if isinstance(e, X.Not):
        a = evaluate(e.arg, row)
        return None if a is None else not a
    if isinstance(e, X.IsNull):
        return evaluate(e.arg, row) is None
    if isinstance(e, X.IsNotNull):
        return evaluate(e.arg, row) is not None
    if isinstance(e, X.In):
        a = evaluate(e.arg, row)
        vals = [evaluate(v, row) for v in e.values]
        if a is None:
            return None
        if any(_spark_cmp(a, v) == 0 for v in vals if v is not None):
            return True
        return None if None in vals else False
    if isinstance(e, X.Case):
        for cond, value in e.branches:
            if evaluate(cond, row) is True:
                return evaluate(value, row)
        return evaluate(e.default, row)
    if isinstance(e, X.Coalesce):
        for a in e.args:
            v = evaluate(a, row)
            if v is not None:
                return v
        return None
    if isinstance(e, X.Cast):  # the differential tests only use widening casts
        value = evaluate(e.arg, row)
        if e.dtype in ("double", "float") and isinstance(value, int) and not isinstance(value, bool):
            return float(value)  # a double, compared to 9 digits as every double is
        return value
    if isinstance(e, X.Func):
        args = [evaluate(a, row) for a in e.args]
        if e.name == "isnan":  # FALSE on NULL, not NULL
            return isinstance(args[0], float) and math.isnan(args[0])
        if any(a is None for a in args):
            return None
        if e.name not in _FUNCS:
            raise Undefined(e.name)
        return _fits(_FUNCS[e.name](*args), e.dtype)
    if isinstance(e, X.PyUdf):
        return _python_int_in_range(_udf(e.source)(*[evaluate(a, row) for a in e.args]), e.dtype, e.name)
    raise Undefined(type(e).__name__)


_FUNCS = {"upper": lambda s: s.upper(), "lower": lambda s: s.lower(), "length": len, "abs": abs,
          "startswith": lambda s, x: s.startswith(x), "endswith": lambda s, x: s.endswith(x),
          "contains": lambda s, x: x in s,
          # deterministic functions the engine models as uninterpreted and never writes into a predicate
          "octet_length": lambda s: len(s.encode("utf-8")), "bit_length": lambda s: 8 * len(s.encode("utf-8"))}


@functools.lru_cache(maxsize=None)
def _python_int_in_range(out: Any, dtype: str, what: str) -> Any:
    """A Python function's result for an integer type: undefined outside the type's range."""
    if isinstance(out, int) and not isinstance(out, bool) and dtype in _RANGE:
        lo, hi = _RANGE[dtype]
        if not lo <= out <= hi:
            raise Undefined(f"{what} returned {out}, outside {dtype}")
    return out


def _udf(source: str):
    namespace: dict[str, Any] = {}
    exec(compile(textwrap.dedent(source), "<udf>", "exec"), namespace)  # test reference only
    fns = [v for k, v in namespace.items() if callable(v) and not k.startswith("__")]
    return fns[-1]
