"""Seeded random pipelines, late filters and tables for the differential fuzzer.

A pipeline stacks 1-3 IR operators (projection with CASE chains, arithmetic, string
functions and Python UDFs; filter; inner, left, right and full outer join; groupBy;
top-k; union; unpivot; pivot) over two or three sources. Every plan is well-typed
(int, long, double, string columns) and every column has its own name, so the Spark
executor (tests/engine/spark_ir.py) can address it. Tables are small and nasty: NULLs,
duplicates, empty strings, zero, negatives, NaN and the integer extremes.

>>> import random
>>> case = random_case(random.Random(1))
>>> isinstance(case.late, P.Filter) and set(case.tables) >= {0, 1}
True
"""

from __future__ import annotations

import datetime
import itertools
import random
from dataclasses import dataclass

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

INT_MIN, INT_MAX = -2**31, 2**31 - 1
LONG_MIN, LONG_MAX = -2**63, 2**63 - 1
NAN, INF = float("nan"), float("inf")

A, B = X.Col("a", 1, "int"), X.Col("b", 2, "long")
S, D = X.Col("s", 3, "string"), X.Col("d", 4, "double")
K, T, E = X.Col("k", 5, "int"), X.Col("t", 6, "string"), X.Col("e", 7, "double")
A2, S2 = X.Col("a2", 8, "int"), X.Col("s2", 9, "string")
DT = X.Col("dt", 10, "date")
LEFT = P.Source("left", (A, B, S, D, DT), origin=0)
RIGHT = P.Source("right", (K, T, E), origin=1)
OTHER = P.Source("other", (A2, S2), origin=2)

VALUES = {
    "int": [None, None, 0, 0, 1, -1, 2, 3, 5, -7, INT_MAX, INT_MIN],
    "long": [None, 0, 1, -1, 3, 2**40, LONG_MAX, LONG_MIN, INT_MAX + 1],
    "string": [None, "", "", "x", "y", "X", "xy", " x"],
    "double": [None, 0.0, 1.5, -2.5, 3.0, NAN, NAN, 1e300, -1e300, INF, -INF, 1.0000000000000002, 2.0**53],
    # a leap day, a Saturday and a Sunday, the first and last dates Python has, the epoch
    "date": [None, datetime.date(2024, 2, 29), datetime.date(2024, 3, 1), datetime.date(2024, 3, 2),
             datetime.date(2024, 3, 3), datetime.date(1970, 1, 1), datetime.date(2023, 12, 31),
             datetime.date(1, 1, 1), datetime.date(9999, 12, 31)],
}

# Python UDF bodies, as a user writes them: branches, None checks, some that raise on None, and
# everyday Python (str methods, recorded dicts and sets, re, math, helpers, try/except)
UDFS = {
    "int": [
        "def f(x):\n    if x is None:\n        return None\n    if x > 2:\n        return 1\n    return 0\n",
        "def f(x):\n    return 0 if x is None else (x if -9 < x < 9 else 9)\n",
        "def f(x):\n    return x + 1 if x is not None and abs(x) < 1000 else None\n",
        "def f(x):\n    return x * 2\n",  # raises on None, may leave the int range
        # Python's integers are unbounded: x * x never overflows here, as it would in Spark
        "def f(x):\n    if x is None:\n        return 0\n    y = x * x\n    return 1 if y > 50 else 0\n",
        # everyday Python: a recorded set, try/except, a helper, str() of a value
        "ALLOWED = {0, 1, 5}\ndef f(x):\n    return 1 if x in ALLOWED else 0\n",
        "def f(x):\n    try:\n        return 100 // x\n    except (ZeroDivisionError, TypeError):\n        return None\n",
        "def helper(v):\n    return v % 7 if v is not None else -1\ndef f(x):\n    return helper(x) + helper(3)\n",
        "def f(x):\n    return len(str(x))\n",
    ],
    "string": [
        "def f(x):\n    if x is None:\n        return 'none'\n    return x.upper()\n",
        "def f(x):\n    return '' if x is None else x.strip()\n",
        "def f(x):\n    return x + '!'\n",  # raises on None
        "MAP = {'x': 'y', 'y': 'x'}\ndef f(x):\n    return MAP.get(x, x)\n",
        "def f(x):\n    if x is None:\n        return None\n    return x.split('x')[0] + '|' + x[:1]\n",
        "def f(x):\n    if x is None or x.startswith(('x', ' ')):\n        return 'p'\n    return x.replace('y', 'Y')\n",
        "import re\ndef f(x):\n    return None if x is None else re.sub('x+', 'z', x)\n",
        "def f(x):\n    return f'<{x}>'\n",
        # text cleaning written as Column code at the source (symbolic/udf_inline.py)
        "def f(x):\n    return x.replace('x', '') if isinstance(x, str) else '0'\n",
        "CODES = {'x': 'X', 'y': 'z'}\ndef f(x):\n    return CODES[x] if x in CODES else x\n",
        # a count of pieces, written as size(split(x, 'x', -1)) inside the CASE
        "def f(x):\n    return 'many' if x is not None and len(x.split('x')) > 1 else 'few'\n",
        # a regex group, written as regexp_extract inside the CASE
        "import re\ndef f(x):\n    return re.match('([^y]*)y', x)[1] if x is not None and re.match('([^y]*)y', x) "
        "else 'none'\n",
    ],
    "double": [
        "def f(x):\n    if x is None:\n        return None\n    return 1 if x > 1.0 else 0\n",
        "def f(x):\n    return 0 if x is None or x != x else 1\n",
        "def f(x):\n    if x is None:\n        return None\n    return 1 if x * 0 == 0 else 0\n",  # finite?
        "import math\ndef f(x):\n    if x is None or math.isnan(x) or math.isinf(x):\n        return None\n"
        "    return 1 if math.floor(x) > 1 else 0\n",
        "def f(x):\n    try:\n        return 1 if round(x) == 2 else 0\n    except (TypeError, ValueError, OverflowError):\n        return -1\n",
    ],
    # dates: weekday and isoweekday, the parts, comparisons with date literals, timedelta (which
    # raises past 9999-12-31), strftime with a fixed format
    "date": [
        "def f(x):\n    return None if x is None else x.weekday()\n",
        "def f(x):\n    if x is None:\n        return -1\n    return 1 if x.isoweekday() >= 6 else 0\n",
        "def f(x):\n    return x.year * 100 + x.month if x is not None else None\n",
        "def f(x):\n    return x.day\n",  # raises on None
        "import datetime\ndef f(x):\n    if x is None:\n        return 0\n    return 1 if x >= datetime.date(2024, 3, 1) else 0\n",
        "from datetime import date\ndef f(x):\n    return 1 if x is not None and date(2000, 1, 1) < x <= date(2024, 3, 2) else 0\n",
        "import datetime\ndef f(x):\n    if x is None:\n        return None\n    return (x + datetime.timedelta(days=3)).month\n",
        "from datetime import timedelta\ndef f(x):\n    return 1 if x is not None and x - timedelta(days=1) < x.replace(day=1) else 0\n",
        "def f(x):\n    return int(x.strftime('%Y%m%d')) if x is not None else 0\n",
    ],
}
UDF_RESULT = {"int": "int", "string": "string", "double": "int", "date": "int"}


@dataclass(frozen=True)
class Case:
    """One fuzz input: a late filter over a pipeline, and tables for its sources."""

    late: P.Filter
    tables: dict[int, list[dict]]


class Names:
    """Fresh column names and ids, distinct from the sources' (Spark addresses columns by name)."""

    def __init__(self) -> None:
        self._ids = itertools.count(100)

    def col(self, dtype: str) -> X.Col:
        i = next(self._ids)
        return X.Col(f"c{i}", i, dtype)


# ----------------------------------------------------------------------------- expressions


def literal(rng: random.Random, dtype: str) -> X.Lit:
    small = {"int": [0, 1, 2, 3, -1, 5], "long": [0, 1, 3, -1], "string": ["x", "y", "", "X"],
             "double": [0.0, 1.5, -2.5, 3.0], "date": [datetime.date(2024, 3, 1), datetime.date(2024, 3, 2)]}[dtype]
    # NaN too: NaN = NaN in Spark; no date of the year 1, which PySpark cannot make a literal of
    pool = small * 3 + [v for v in VALUES[dtype] if v is not None and v != datetime.date(1, 1, 1)]
    return X.Lit(rng.choice(pool), dtype)


def of_type(cols: tuple[X.Col, ...], dtype: str) -> list[X.Col]:
    return [c for c in cols if c.dtype == dtype]


def value_expr(rng: random.Random, cols: tuple[X.Col, ...], dtype: str, depth: int = 2) -> X.Expr:
    """A random expression of type `dtype` over `cols` (a column or literal at the leaves)."""
    mine = of_type(cols, dtype)
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(mine) if mine and rng.random() < 0.8 else literal(rng, dtype)
    kind = rng.random()
    if kind < 0.25:
        return X.Case(tuple((predicate(rng, cols, depth - 1), value_expr(rng, cols, dtype, depth - 1))
                            for _ in range(rng.randint(1, 2))),
                      value_expr(rng, cols, dtype, 0) if rng.random() < 0.7 else X.Lit(None, dtype))
    if kind < 0.35:
        return X.Coalesce((value_expr(rng, cols, dtype, depth - 1), value_expr(rng, cols, dtype, 0)))
    if kind < 0.5:
        sources = [t for t in UDF_RESULT if UDF_RESULT[t] == dtype and of_type(cols, t)]
        if sources:
            arg_type = rng.choice(sources)
            return X.PyUdf("f", (rng.choice(of_type(cols, arg_type)),), dtype, rng.choice(UDFS[arg_type]))
    if dtype in ("int", "long", "double"):
        if kind < 0.75:
            left = value_expr(rng, cols, dtype, depth - 1)
            # x - x, x * x: identities over the reals that NaN and overflow break
            right = left if rng.random() < 0.25 else value_expr(rng, cols, dtype, 0)
            return X.Arith(rng.choice("+-*"), left, right, dtype)
        if kind < 0.82:
            return X.Func("abs", (value_expr(rng, cols, dtype, depth - 1),), dtype)
        if dtype == "int" and of_type(cols, "string") and kind < 0.9:
            # length is modelled exactly; octet_length and bit_length are uninterpreted functions a
            # filter may pass (and never calls): spark_plan._DETERMINISTIC_NEVER_WRITTEN
            name = "length" if kind < 0.86 else rng.choice(["octet_length", "bit_length"])
            return X.Func(name, (value_expr(rng, cols, "string", depth - 1),), "int")
        if dtype in ("long", "double") and of_type(cols, "int"):
            return X.Cast(rng.choice(of_type(cols, "int")), dtype)  # widening
    if dtype == "string" and kind < 0.8:
        return X.Func(rng.choice(["upper", "lower"]), (value_expr(rng, cols, "string", depth - 1),), "string")
    return rng.choice(mine) if mine else literal(rng, dtype)


def predicate(rng: random.Random, cols: tuple[X.Col, ...], depth: int = 2) -> X.Expr:
    """A random boolean expression over `cols`."""
    if depth == 0 or rng.random() < 0.35:
        return atom(rng, cols, depth)
    kind = rng.random()
    if kind < 0.4:
        return X.and_(predicate(rng, cols, depth - 1), predicate(rng, cols, depth - 1))
    if kind < 0.75:
        return X.or_(predicate(rng, cols, depth - 1), predicate(rng, cols, depth - 1))
    if kind < 0.9:
        return X.Not(predicate(rng, cols, depth - 1))
    # a CASE whose values are predicates: a UDF-like boolean
    return X.Case(((predicate(rng, cols, 0), predicate(rng, cols, 0)),), predicate(rng, cols, 0))


def atom(rng: random.Random, cols: tuple[X.Col, ...], depth: int) -> X.Expr:
    c = rng.choice(cols)
    left: X.Expr = c
    if depth > 0 and rng.random() < 0.45:
        left = value_expr(rng, cols, c.dtype, 1)
    kind = rng.random()
    if kind < 0.1:
        return X.IsNull(left)
    if kind < 0.2:
        return X.IsNotNull(left)
    if kind < 0.3:
        return X.In(left, tuple(literal(rng, c.dtype) for _ in range(rng.randint(1, 3)))
                    + ((X.Lit(None, c.dtype),) if rng.random() < 0.2 else ()))
    if kind < 0.35 and c.dtype == "double":
        return X.Func("isnan", (left,), "boolean")
    if kind < 0.4 and c.dtype == "string":
        return X.Func(rng.choice(["startswith", "endswith", "contains"]), (left, literal(rng, "string")), "boolean")
    others = [o for o in of_type(cols, c.dtype) if o != c]
    right = rng.choice(others) if others and rng.random() < 0.2 else literal(rng, c.dtype)
    return X.Cmp(rng.choice(["=", "!=", "<", "<=", ">", ">=", "<=>"]), left, right)


# ----------------------------------------------------------------------------- operators


def project(rng, plan, names, used):
    cols = plan.output
    kept = [c for c in cols if rng.random() < 0.7] or [rng.choice(cols)]
    outputs = [(c, c) for c in kept]
    for _ in range(rng.randint(1, 2)):
        dtype = rng.choice(sorted({c.dtype for c in cols}))
        outputs.append((names.col(dtype), value_expr(rng, cols, dtype)))
    rng.shuffle(outputs)
    return P.Project(plan, tuple(outputs))


def filter_(rng, plan, names, used):
    return P.Filter(plan, predicate(rng, plan.output, 1))


def join(rng, plan, names, used):
    if 1 in used:
        return None
    used.add(1)
    left_keys, right_keys = of_type(plan.output, "int"), [K]
    if not left_keys:
        return None
    cond = X.Cmp(rng.choice(["=", "=", "=", "<=>", "<"]), rng.choice(left_keys), K)
    if rng.random() < 0.25:  # a condition with a one-input conjunct
        side = rng.choice([right_keys, left_keys])
        cond = X.and_(cond, X.Cmp(rng.choice([">", "!="]), rng.choice(side), literal(rng, "int")))
    elif rng.random() < 0.15:
        cond = X.or_(cond, X.IsNull(K))
    kind = rng.choice(["inner", "left", "right", "full"])
    if kind == "inner":
        return P.InnerJoin(plan, RIGHT, cond)
    return P.OuterJoin(plan, RIGHT, cond, {"left": "left", "right": "right", "full": "both"}[kind])


def aggregate(rng, plan, names, used):
    cols = plan.output
    key = rng.choice([c for c in cols if c.dtype != "double"] or list(cols))
    outputs: list[tuple[X.Col, X.Expr]] = [(key, key)]
    others = [c for c in cols if c != key]
    for _ in range(rng.randint(1, 2)):
        fn = rng.choice(["max", "min", "count", "count*", "sum", "avg", "count_when", "max_by", "top2"])
        if fn == "count*" or not others:
            outputs.append((names.col("long"), X.Agg("count", None, "long")))
            continue
        arg = rng.choice(others)
        if fn == "count":
            outputs.append((names.col("long"), X.Agg("count", arg, "long")))
        elif fn == "count_when":  # count(when(cond, 1)): the rows of a condition
            counted = X.Case(((predicate(rng, (arg,), depth=0), X.Lit(1, "int")),), X.Lit(None, "null"))
            outputs.append((names.col("long"), X.Agg("count", counted, "long")))
        elif fn == "max_by":  # the value of the row with the largest (smallest) ordering value
            orders = [c for c in others if c != arg and c.dtype in ("int", "double", "string")]
            if not orders:
                continue
            by = rng.choice(orders)
            if rng.random() < 0.5:  # an ordering value only some rows have: max_by over a when
                by = X.Case(((predicate(rng, (arg, by), depth=0), by),), X.Lit(None, "null"))
            outputs.append((names.col(arg.dtype), X.Agg(rng.choice(["max_by", "min_by"]), arg, arg.dtype, by=by)))
        elif fn == "top2":  # the first two items of sort_array(collect_list(arg)): max and the second
            if arg.dtype not in ("int", "double"):
                continue
            first, second = rng.choice([("max", "second_max"), ("min", "second_min")])
            outputs.append((names.col(arg.dtype), X.Agg(first, arg, arg.dtype)))
            outputs.append((names.col(arg.dtype), X.Agg(second, arg, arg.dtype)))
        elif fn == "avg":
            if arg.dtype not in ("int", "double"):
                continue
            outputs.append((names.col("double"), X.Agg("avg", arg, "double")))
        elif fn == "sum":
            if arg.dtype in ("string", "date"):
                continue
            dtype = "double" if arg.dtype == "double" else "long"
            outputs.append((names.col(dtype), X.Agg("sum", arg, dtype)))
        else:
            outputs.append((names.col(arg.dtype), X.Agg(fn, arg, arg.dtype)))
    return P.Aggregate(plan, (key,), tuple(outputs))


def pivot(rng, plan, names, used):
    cols = plan.output
    ints = of_type(cols, "int")
    keys = [c for c in cols if c.dtype != "double" and c not in ints[:1]]
    if not ints or not keys:
        return None
    by, key = ints[0], rng.choice(keys)
    values = [c for c in cols if c not in (by, key)] or [key]
    arg = rng.choice(values)
    fn = rng.choice(["max", "min"])
    slots = tuple((names.col(arg.dtype),
                   X.Agg(fn, X.Case(((X.Cmp("<=>", by, X.Lit(v, "int")), arg),), X.Lit(None, "null")), arg.dtype))
                  for v in (0, 1))
    return P.Aggregate(plan, (key,), ((key, key), *slots), pivot=True)


def top_k(rng, plan, names, used):
    cols = list(plan.output)
    rng.shuffle(cols)
    # every column in the order: ties would make the kept rows Spark's choice
    order = tuple((c, rng.random() < 0.5, rng.random() < 0.5) for c in cols)
    return P.TopK(plan, order, rng.randint(1, 4))


def union(rng, plan, names, used):
    if 2 in used:
        return None
    used.add(2)
    outputs = []
    for c in plan.output:
        same = of_type(OTHER.output, c.dtype)
        outputs.append((names.col(c.dtype), rng.choice(same) if same and rng.random() < 0.8
                        else literal(rng, c.dtype)))
    second = P.Project(OTHER, tuple(outputs))
    inputs = (plan, second) if rng.random() < 0.7 else (second, plan)
    out = tuple(names.col(c.dtype) for c in inputs[0].output)
    return P.Union(inputs, out)


def unpivot(rng, plan, names, used):
    cols = plan.output
    by_type = {}
    for c in cols:
        by_type.setdefault(c.dtype, []).append(c)
    pairs = [cs for cs in by_type.values() if len(cs) >= 2]
    if not pairs:
        return None
    values = rng.sample(rng.choice(pairs), 2)
    ids = [c for c in cols if c not in values]
    name, val = names.col("string"), names.col(values[0].dtype)
    new_ids = [names.col(c.dtype) for c in ids]
    rows = tuple((*ids, X.Lit(v.name, "string"), v) for v in values)
    return P.Expand(plan, rows, (*new_ids, name, val))


OPERATORS = [project, project, filter_, join, join, aggregate, pivot, top_k, union, unpivot]


def operators() -> list:
    """This module's operators and the kinds of operator_kinds.py (windows, dropDuplicates on a
    subset, pivots by aggregate, limits on double keys), weighted as these are. Imported here,
    not at the top: operator_kinds builds on this module's helpers."""
    from tests.fuzz import operator_kinds

    return [*OPERATORS, *operator_kinds.OPERATORS]


def pipeline(rng: random.Random, names: Names) -> P.Plan:
    plan: P.Plan = LEFT
    used: set[int] = set()
    kinds = operators()
    for _ in range(rng.randint(1, 3)):
        for _ in range(10):
            made = rng.choice(kinds)(rng, plan, names, used)
            if made is not None:
                plan = made
                break
    return plan


def table(rng: random.Random, source: P.Source, rows: int) -> list[dict]:
    out = [{(c.name, c.id): rng.choice(VALUES[c.dtype]) for c in source.output} for _ in range(rows)]
    if out and rng.random() < 0.5:
        out.append(dict(rng.choice(out)))  # a duplicate row
    return out


def tables(rng: random.Random) -> dict[int, list[dict]]:
    return {0: table(rng, LEFT, rng.randint(0, 5)), 1: table(rng, RIGHT, rng.randint(0, 4)),
            2: table(rng, OTHER, rng.randint(0, 3))}


def kinds_of(plan: P.Plan) -> set[str]:
    """What a pipeline is made of, for the run's figures: its operators by class (a round trip's
    Project as "RDD round trip", its fold as "reduceByKey", a GroupedMap as "applyInPandas"), "max_by"
    for an Aggregate with max_by or min_by, "sorted list" for one with a sorted list's second item, and "date UDF" or "Python UDF"
    for each Python UDF a filter or projection calls, "uninterpreted function" for a deterministic
    function the engine never writes into a predicate (octet_length, bit_length).

    >>> sorted(kinds_of(P.Filter(LEFT, X.Cmp(">", X.PyUdf("f", (DT,), "int", UDFS["date"][0]), X.Lit(1, "int")))))
    ['Filter', 'date UDF']
    """
    kinds = set()
    for node in P.nodes(plan):
        udfs = [e for ex in P.expressions(node) for e in X.walk(ex) if isinstance(e, X.PyUdf)]
        if isinstance(node, P.Project) and any(u.name.startswith("rdd") for u in udfs):
            kinds.add("RDD round trip")
            continue
        if isinstance(node, P.Aggregate) and any(isinstance(e, X.Agg) and e.fold is not None and e.fold.reduce
                                                 for ex in P.expressions(node) for e in X.walk(ex)):
            kinds.add("reduceByKey")
            continue
        kinds.add({"GroupedMap": "applyInPandas"}.get(type(node).__name__, type(node).__name__))
        if isinstance(node, P.Aggregate) and any(isinstance(e, X.Agg) and e.by is not None
                                                 for ex in P.expressions(node) for e in X.walk(ex)):
            kinds.add("max_by")
        if isinstance(node, P.Aggregate) and any(isinstance(e, X.Agg) and e.fn.startswith("second_")
                                                 for ex in P.expressions(node) for e in X.walk(ex)):
            kinds.add("sorted list")
        for u in udfs:
            kinds.add("date UDF" if any(X.dtype_of(a) == "date" for a in u.args) else "Python UDF")
        if any(isinstance(e, X.Func) and e.name in ("octet_length", "bit_length")
               for ex in P.expressions(node) for e in X.walk(ex)):
            kinds.add("uninterpreted function")
    kinds.discard("Source")
    return kinds


def random_case(rng: random.Random) -> Case:
    names = Names()
    plan = pipeline(rng, names)
    return Case(P.Filter(plan, predicate(rng, plan.output)), tables(rng))
