"""Random operators of the kinds issue 20 closed, for the differential fuzzer's pipelines.

Each generator has generate.py's shape, `(rng, plan, names, used) -> P.Plan | None` (None
when the plan's columns do not allow it), builds well-typed IR whose new columns come from
`names`, and is run by both executors: the reference evaluator (tests/engine/reference.py:
windows, `first` for dropDuplicates, `avg`) and Spark (tests/engine/spark_ir.py):

- `window`: row_number, rank, dense_rank, lag/lead, running, moving, suffix and whole-partition
  sum/count/max/min/first/last, partitioned by a column, by nothing or by an expression
  (`upper(s)`, `abs(a)`); ordered by every input column, so rows that tie in the order are
  equal rows and the numbering is not Spark's choice;
- `double_keyed_window`: the same with a double first in the order or as the partition key
  (the tables have NaN, the infinities, -0.0 and 0.0);
- `deduplicate`: dropDuplicates on a strict subset of the columns (the reference leaves a
  group undefined when its rows differ outside the subset: which one Spark keeps is its choice);
- `pivot_by_aggregate`: groupBy().pivot() with max, min, sum, count(*), count of a column or avg,
  each slot written as translate/spark_plan.py writes it;
- `top_k_on_doubles`: orderBy with a double first, then every other column, and a limit;
- `rdd_round_trip`: `df.rdd[.filter(g)].map(f)[.mapValues(h)]` made back with an explicit schema,
  recorded as the tracer records it and read by translate/rdd.py (a Project, and a Filter, of the
  Python UDFs it writes: the recorded functions and createDataFrame's check of each field);
- `rdd_reduce`: `df.rdd.map(lambda r: (r.k, r.v)).reduceByKey(f)` made back with a schema, `f` a
  maximum (raising on None, or giving the other value back), a minimum, a sum, the first value
  met or a maximum that makes 0 of None: read by translate/rdd.py as a fold when Z3 proves f
  order-free and None-neutral; the reference folds the values in Python, None included, and
  Spark runs reduceByKey itself;
- `apply_in_pandas`: groupBy(k).applyInPandas(f, schema), `f` one of the bodies notebooks write
  (len, shape, nunique, iloc[0]/[-1], to_numpy, values, loc[mask, col], groupby().transform,
  masks, assignments, sort and head), read by translate/pandas_body.py; both executors run `f`
  itself (the reference converts each group as Spark's Arrow path does).

generate.py's `operators()` adds them to its own list, so every fuzz run draws them.
`OPERATORS` below weights them as generate.py weights its own (one entry each, windows twice).

>>> import random
>>> from tests.fuzz.generate import LEFT, Names
>>> rng, names = random.Random(3), Names()
>>> [type(op(rng, LEFT, names, set())).__name__ for op in OPERATORS]
['Window', 'Window', 'Window', 'Aggregate', 'Aggregate', 'TopK', 'Project', 'GroupedMap', 'Aggregate']
"""

from __future__ import annotations

import random

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

from tests.fuzz.generate import Names, of_type

NULL = X.Lit(None, "null")
_NUMERIC = ("int", "long", "double")

# (function, frame lower, frame upper, ROWS frame): what notebooks compute over a window
_FRAMED = [("sum", None, 0, True), ("sum", None, 0, False), ("count", None, 0, True), ("max", None, 0, True),
           ("min", -1, 0, True), ("sum", -2, 0, True), ("sum", 0, None, True), ("count", 0, None, True),
           ("max", None, None, True), ("first", None, 0, False), ("first", None, None, True),
           ("last", None, None, True), ("last", None, 0, False)]


def window(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    cols = plan.output
    if not cols:
        return None
    partition = _partition(rng, cols)
    return _window(rng, plan, names, partition, _total_order(rng, cols))


def double_keyed_window(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    cols = plan.output
    doubles = of_type(cols, "double")
    if not doubles:
        return None
    d = rng.choice(doubles)
    if rng.random() < 0.5:  # partition by the double: NaN together, -0.0 with 0.0
        rest = [c for c in cols if c != d]
        return _window(rng, plan, names, (d,), _total_order(rng, rest) if rest else ())
    return _window(rng, plan, names, _partition(rng, cols), _total_order(rng, cols, first=d))


def _window(rng: random.Random, plan: P.Plan, names: Names, partition: tuple[X.Expr, ...],
            order: tuple[tuple[X.Expr, bool, bool], ...]) -> P.Plan | None:
    calls = [_call(rng, plan.output) for _ in range(rng.randint(1, 2))]
    calls = [c for c in calls if c is not None]
    if not calls:
        return None
    computed = tuple(names.col(c.dtype) for c in calls)
    return P.Window(plan, partition, computed, None, order, tuple(calls))


def _partition(rng: random.Random, cols: tuple[X.Col, ...]) -> tuple[X.Expr, ...]:
    kind = rng.random()
    if kind < 0.15:
        return ()
    strings, ints = of_type(cols, "string"), of_type(cols, "int")
    if kind < 0.35 and strings:
        return (X.Func("upper", (rng.choice(strings),), "string"),)
    if kind < 0.45 and ints:
        return (X.Func("abs", (rng.choice(ints),), "int"),)
    return (rng.choice([c for c in cols if c.dtype != "double"] or list(cols)),)


def _total_order(rng: random.Random, cols, first: X.Col | None = None) -> tuple[tuple[X.Expr, bool, bool], ...]:
    """Every column, `first` leading: rows tying in it are equal rows."""
    rest = [c for c in cols if c != first]
    rng.shuffle(rest)
    keys = ([first] if first is not None else []) + rest
    return tuple((c, rng.random() < 0.5, rng.random() < 0.5) for c in keys)


def _call(rng: random.Random, cols: tuple[X.Col, ...]) -> P.WindowCall | None:
    kind = rng.random()
    if kind < 0.3:
        fn = rng.choice(["row_number", "row_number", "rank", "dense_rank"])
        return P.WindowCall(fn, (), None, 0, True, "int")
    if kind < 0.5:
        arg = rng.choice(cols)
        return rng.choice([P.WindowCall("lag", (arg,), -1, -1, True, arg.dtype),
                           P.WindowCall("lead", (arg,), 1, 1, True, arg.dtype)])
    fn, lower, upper, rows = rng.choice(_FRAMED)
    args = [c for c in cols if c.dtype in _NUMERIC] if fn == "sum" else list(cols)
    if not args:
        return None
    column = rng.choice(args)
    dtype = {"count": "long"}.get(fn, "long" if fn == "sum" and column.dtype != "double" else column.dtype)
    # functions that skip NULL arguments, sometimes over `CASE WHEN <test> THEN x END` (a base
    # year's value, as notebooks index a series on it): only the rows the test keeps are read
    skips = fn in ("sum", "count", "max", "min") or rng.random() < 0.5
    arg: X.Expr = column
    tests = [c for c in cols if c.dtype in ("int", "long")]
    if skips and tests and rng.random() < 0.4:
        t = rng.choice(tests)
        arg = X.Case(((X.Cmp(rng.choice(["=", ">="]), t, X.Lit(rng.randint(0, 3), t.dtype)), column),),
                     X.Lit(None, column.dtype))
    return P.WindowCall(fn, (arg,), lower, upper, rows, dtype, skips)


def deduplicate(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    cols = plan.output
    if len(cols) < 2:
        return None
    keys = set(rng.sample(list(cols), rng.randint(1, len(cols) - 1)))
    outputs = tuple((c, c) if c in keys else (c, X.Agg("first", c, c.dtype)) for c in cols)
    return P.Aggregate(plan, tuple(c for c in cols if c in keys), outputs, deduplicate=True)


def pivot_by_aggregate(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    cols = plan.output
    ints = of_type(cols, "int")
    keys = [c for c in cols if c.dtype != "double" and c not in ints[:1]]
    if not ints or not keys:
        return None
    by, key = ints[0], rng.choice(keys)
    values = [c for c in cols if c not in (by, key)] or [key]
    fn = rng.choice(["max", "min", "sum", "count", "count*", "avg"])
    numeric = [c for c in values if c.dtype in _NUMERIC]
    if fn in ("sum", "avg") and not numeric:
        fn = "max"
    arg = rng.choice(numeric if fn in ("sum", "avg") else values)
    slots = []
    for v in (0, 1):
        chosen = X.Cmp("<=>", by, X.Lit(v, "int"))
        slots.append(_slot(fn, arg, chosen, names))
    return P.Aggregate(plan, (key,), ((key, key), *slots), pivot=True)


def _slot(fn: str, arg: X.Col, chosen: X.Expr, names: Names) -> tuple[X.Col, X.Expr]:
    """One pivoted column, as translate/spark_plan._pivot_slot writes it."""
    if fn in ("count", "count*"):
        counted = X.Lit(1, "int") if fn == "count*" else arg
        rows = X.Agg("count", X.Case(((chosen, X.Lit(1, "int")),), NULL), "long")
        value = X.Agg("count", X.Case(((chosen, counted),), NULL), "long")
        return names.col("long"), X.Case(((X.Cmp(">", rows, X.Lit(0, "long")), value),), NULL)
    dtype = {"sum": "long" if arg.dtype != "double" else "double", "avg": "double"}.get(fn, arg.dtype)
    return names.col(dtype), X.Agg(fn, X.Case(((chosen, arg),), NULL), dtype)


def top_k_on_doubles(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    doubles = of_type(plan.output, "double")
    if not doubles:
        return None
    return P.TopK(plan, _total_order(rng, plan.output, first=rng.choice(doubles)), rng.randint(1, 4))



# ----------------------------------------------------------------------------- RDD round trips

# (expression of one field `{c}` of the row, the field's type in the schema) by the column's type:
# what a map step computes; each is read by the reader of Python UDFs once the round trip is
# written as UDFs (translate/rdd.py)
_RDD_FIELDS = {
    "int": [("{c} * 2 if {c} is not None else None", "long"), ("({c} or 0) + 1", "int"),
            ("abs({c})", "int"), ("1 if {c} is not None and {c} > 2 else 0", "int")],
    "long": [("{c} // 2 if {c} is not None else None", "long")],
    "string": [("{c}.upper() if {c} else ''", "string"), ("len({c} or '')", "int"),
               ("{c}[:1] if {c} is not None else None", "string")],
    "double": [("{c} * 2.0 if {c} is not None else None", "double"), ("0 if {c} is None else 1", "int")],
    "date": [("{c}.weekday() if {c} else None", "int"), ("{c}.year if {c} is not None else 0", "int")],
}
# what a filter step tests
_RDD_TESTS = {
    "int": ["{c} is not None and {c} > 1", "{c} is not None"],
    "long": ["{c} is not None and {c} != 0"],
    "string": ["{c} != 'x'", "bool({c})"],
    "double": ["{c} is not None and {c} < 2.0"],
    "date": ["{c} is None or {c}.month != 3"],
}
_SCHEMA_TYPES = {"int": "integer", "long": "long", "string": "string", "double": "double", "date": "date"}
_EVENTS = iter(range(10_000, 10**9))


def rdd_round_trip(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    """`df.rdd[.filter(g)].map(f)[.mapValues(h)]` made back into a DataFrame with an explicit
    schema, as the tracer records it (capture/rdd.py) and translate/rdd.py reads it: a Project
    (and a Filter) of Python UDFs whose bodies are the recorded functions and createDataFrame's
    check of each field."""
    import json

    from magicpush_lab.capture.rdd import OP, STEPS_PREFIX
    from magicpush_lab.capture.trace import Event
    from magicpush_lab.translate.rdd import round_trip_plan

    cols = [c for c in plan.output if c.dtype in _RDD_FIELDS]
    if not cols:
        return None
    steps = []
    if rng.random() < 0.4:
        c = rng.choice(cols)
        steps.append({"method": "filter", "name": "<lambda>",
                      "source": f"lambda r: {rng.choice(_RDD_TESTS[c.dtype]).format(c=f'r.{c.name}')}"})
    fields: list[tuple[str, str]] = []  # (expression, type)
    for _ in range(rng.randint(1, 3)):
        c = rng.choice(cols)
        if rng.random() < 0.45:  # a field passed through, under its type or a wider integer
            fields.append((f"r.{c.name}", "long" if c.dtype == "int" and rng.random() < 0.3 else c.dtype))
        else:
            template, dtype = rng.choice(_RDD_FIELDS[c.dtype])
            fields.append((template.format(c=f"r.{c.name}"), dtype))
    if len(fields) == 2 and rng.random() < 0.4:  # a pair, its value mapped by mapValues
        c = rng.choice(cols)
        template, dtype = rng.choice(_RDD_FIELDS[c.dtype])
        steps.append({"method": "map", "name": "<lambda>", "source": f"lambda r: ({fields[0][0]}, r.{c.name})"})
        steps.append({"method": "mapValues", "name": "<lambda>", "source": f"lambda v: {template.format(c='v')}"})
        fields[1] = ("", dtype)
    elif rng.random() < 0.3:  # a function rather than a lambda
        body = ", ".join(e for e, _ in fields)
        steps.append({"method": "map", "name": "to_row", "source": f"def to_row(r):\n    return ({body},)\n"})
    else:
        steps.append({"method": "map", "name": "<lambda>",
                      "source": f"lambda r: ({', '.join(e for e, _ in fields)},)"})
    output = tuple(names.col(dtype) for _, dtype in fields)
    schema = {"type": "struct", "fields": [{"name": c.name, "type": _SCHEMA_TYPES[c.dtype], "nullable": True,
                                            "metadata": {}} for c in output]}
    arg = STEPS_PREFIX + json.dumps({"steps": steps, "schema": schema, "explicit": True, "verify": True})
    made = round_trip_plan(Event(next(_EVENTS), OP, (0,), None, args=(arg,)), plan, output)
    return None if isinstance(made, P.Other) else made


_REDUCERS = ["lambda a, b: a if a > b else b", "lambda a, b: b if a is None else (a if b is None or a > b else b)",
             "lambda a, b: min(a, b)", "lambda a, b: a + b", "lambda a, b: a", "lambda a, b: max(a or 0, b or 0)"]


def rdd_reduce(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    """`df.rdd.map(lambda r: (r.k, r.v)).reduceByKey(f).toDF(schema)`, as the tracer records it
    and translate/rdd.py reads it (None where it is a barrier: the fuzzer wants the fold)."""
    import json

    from magicpush_lab.capture.rdd import OP, STEPS_PREFIX
    from magicpush_lab.capture.trace import Event
    from magicpush_lab.translate.rdd import round_trip_plan

    keys = [c for c in plan.output if c.dtype in ("int", "long", "string", "date")]
    values = [c for c in plan.output if c.dtype in ("int", "long")]
    if not keys or not values:
        return None
    k, v = rng.choice(keys), rng.choice(values)
    steps = [{"method": "map", "name": "<lambda>", "source": f"lambda r: (r.{k.name}, r.{v.name})"},
             {"method": "reduceByKey", "name": "<lambda>", "source": rng.choice(_REDUCERS)}]
    output = (names.col(k.dtype), names.col(v.dtype))
    schema = {"type": "struct", "fields": [{"name": c.name, "type": _SCHEMA_TYPES[c.dtype], "nullable": True,
                                            "metadata": {}} for c in output]}
    arg = STEPS_PREFIX + json.dumps({"steps": steps, "schema": schema, "explicit": True, "verify": True})
    made = round_trip_plan(Event(next(_EVENTS), OP, (0,), None, args=(arg,)), plan, output)
    return None if isinstance(made, P.Other) else made


# ----------------------------------------------------------------------------- applyInPandas bodies

# pandas functions as notebooks write them: {k} is the grouping key, {x} a number column, {n} a new
# column; scalars of the group (len, shape, nunique, iloc[0] and [-1] of the key, to_numpy, values,
# loc[mask, col], groupby().transform) and row-by-row bodies (masks, assignments, sort and head)
_BODIES = [
    'def f(pdf):\n    return pd.DataFrame({{"{k}": [pdf.{k}.iloc[0]], "{n}": [len(pdf)]}})\n',
    'def f(pdf):\n    return pd.DataFrame({{"{k}": [pdf.{k}.iloc[-1]], "{n}": [pdf.{x}.max()]}})\n',
    'def f(pdf):\n    pdf["{n}"] = pdf.shape[0]\n    return pdf\n',
    'def f(pdf):\n    pdf["{n}"] = pdf.{x}.nunique()\n    return pdf\n',
    'def f(pdf):\n    pdf["{n}"] = pdf.{k}.to_numpy()[0]\n    return pdf\n',
    'def f(pdf):\n    pdf["{n}"] = pdf.{k}.values[-1]\n    return pdf\n',
    'def f(pdf):\n    base = pdf.loc[pdf.{x} > 0, "{x}"].max()\n    pdf["{n}"] = pdf.{x} - base\n    return pdf\n',
    'def f(pdf):\n    pdf["{n}"] = pdf.groupby("{k}")["{x}"].transform("max")\n    return pdf\n',
    'def f(pdf):\n    return pdf[pdf.{x} > pdf.{x}.mean()]\n',
    'def f(pdf):\n    pdf = pdf[pdf.{x} > 1]\n    pdf["{n}"] = pdf.{x} * 2\n    return pdf\n',
    'def f(pdf):\n    pdf.loc[pdf.{x} > 1, "{x}"] = 0\n    return pdf\n',
    # sorted by every column: rows that tie are equal rows, so head(2) keeps one bag
    'def f(pdf):\n    return pdf.sort_values([{every}]).head(2)\n',
]


def apply_in_pandas(rng: random.Random, plan: P.Plan, names: Names, used: set[int]) -> P.Plan | None:
    """groupBy(k).applyInPandas(f, schema) with `f` from the bodies above, read by
    translate/pandas_body.py as the translator reads it (a GroupedMap over the body's sub-plan)."""
    from magicpush_lab.translate import pandas_body

    cols = plan.output
    keys = [c for c in cols if c.dtype in ("int", "string")]
    numbers = [c for c in cols if c.dtype in ("int", "double")]
    if not keys or not numbers or len({c.name for c in cols}) != len(cols):
        return None
    k, x = rng.choice(keys), rng.choice(numbers)
    new = names.col("long")  # its name only: the body gives the type
    source = "import pandas as pd\n" + rng.choice(_BODIES).format(
        k=k.name, x=x.name, n=new.name, every=", ".join(repr(c.name) for c in cols))
    try:
        body = pandas_body.body_plan(source, tuple(cols))
    except pandas_body.BodyNotRead:
        return None
    # Spark's columns of the result: the body's names and types, new ids
    output = tuple(X.Col(c.name, names.col(c.dtype).id, c.dtype) for c in body.output)
    return P.GroupedMap(plan, (k,), body, output, source=source)


OPERATORS = [window, window, double_keyed_window, deduplicate, pivot_by_aggregate, top_k_on_doubles,
             rdd_round_trip, apply_in_pandas, rdd_reduce]
