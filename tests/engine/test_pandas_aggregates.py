"""Grouped-aggregate pandas UDFs read as Spark's aggregates (translate/pandas_aggregate.py).

Each readable body runs on Spark beside the expression it is read as, on groups with NULLs,
NaN, duplicates, a group of only NULLs and a group the body's mask keeps nothing of: the
two columns must agree on every group, since the proofs reason about the expression while
the user's function is what runs. Bodies that are not read say why. Whole pipelines are in
test_fold_pipelines.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.ir import expr as X
from magicpush_lab.rewrite.pyspark_column import to_column
from magicpush_lab.translate.pandas_aggregate import aggregate_of
from magicpush_lab.translate.pandas_body import BodyNotRead

ROWS = [(1, 10, 1.0, "a"), (1, 700, 600.0, "b"), (1, 700, 600.0, "b"), (2, None, float("nan"), None),
        (2, 3, None, "a"), (3, None, None, None), (4, 0, 0.0, "c"), (4, 1, 900.0, "a"), (4, 1, float("nan"), "c"),
        (5, 600, 501.0, "b"), (5, 2, -3.0, None)]
SCHEMA = "g int, n int, d double, s string"


@dataclass(frozen=True)
class Body:
    title: str
    source: str
    args: tuple[str, ...]
    dtype: str


def _fn(body: str, params: str = "x") -> str:
    """A grouped-aggregate function: series in, one value out (its hints say so to Spark)."""
    hinted = ", ".join(f"{p.strip()}: pd.Series" for p in params.split(","))
    return f"def f({hinted}) -> float:\n    return {body}\n"


READ = [
    Body("sum of the values over 500", _fn("float(x[x > 500].sum())"), ("d",), "double"),
    Body("sum of every value (NaN skipped, 0 for none)", _fn("x.sum()"), ("d",), "double"),
    Body("mean of the values not 600", _fn("x[x != 600].mean()"), ("d",), "double"),
    Body("max and min of a masked series", _fn("x[(x > 0) & ~(x > 800)].max()"), ("d",), "double"),
    Body("min, bound to a name first", "def f(x: pd.Series) -> float:\n    kept = x[x < 700]\n    return kept.min()\n",
         ("d",), "double"),
    Body("count of present values", _fn("x.count()"), ("d",), "long"),
    Body("count of present values of an int column", _fn("x.count()"), ("n",), "long"),
    Body("len of a masked series, as a double", _fn("len(x[x.isna()])"), ("d",), "double"),
    Body("size of the group", _fn("x.size"), ("n",), "long"),
    Body("any of isin over an int column with NULLs", _fn("bool(x.isin([0, 1]).any())"), ("n",), "boolean"),
    Body("all of a comparison", _fn("(x >= 1).all()"), ("n",), "boolean"),
    Body("any of a masked mask", _fn("(x > 1)[x < 650].any()"), ("n",), "boolean"),
    Body("sum of a mask counts it", _fn("int((x > 1).sum())"), ("n",), "long"),
    Body("a mask on another argument", _fn("v[k == 'b'].sum()", "v, k"), ("d", "s"), "double"),
    Body("string isin and notna", _fn("(k.isin(['a', 'c']) | k.isna()).sum()", "k"), ("s",), "long"),
]

NOT_READ = [
    (_fn("x.sum()"), ("n",), "long", "numpy wraps"),
    (_fn("x.median()"), ("d",), "double", "median"),
    (_fn("x.iloc[0]"), ("d",), "double", "not read"),
    (_fn("(k > 'a').sum()", "k"), ("s",), "long", "ordering strings"),
    (_fn("x[x > LIMIT].sum()"), ("d",), "double", "LIMIT"),
    (_fn("x.sum()"), ("d",), "long", "float result returned as long"),
    (_fn("x.isin([0, 1])"), ("n",), "boolean", "series"),
    ("@cache\ndef f(x):\n    return x.sum()\n", ("d",), "double", "decorator"),
]


@pytest.fixture(scope="module")
def per_group(spark) -> dict[int, dict]:
    """Every body's UDF and its expression over the same groups, in two aggregations (Spark runs
    pandas aggregates apart from its own), not two per body: group -> column -> value."""
    import pandas as pd
    from pyspark.sql import functions as F

    types = dict(c.split() for c in SCHEMA.split(", "))
    udfs, exprs = [], []
    for i, body in enumerate(READ):
        cols = tuple(X.Col(name, j, types[name]) for j, name in enumerate(body.args))
        namespace: dict = {"pd": pd}
        exec(compile(body.source, "<udf>", "exec"), namespace)  # the body as a function, as a cell defines it
        udfs.append(F.pandas_udf(namespace["f"], body.dtype)(*body.args).alias(f"udf_{i}"))
        exprs.append(to_column(aggregate_of(body.source, cols, body.dtype)).alias(f"expr_{i}"))
    frame = spark.createDataFrame(ROWS, SCHEMA)
    found: dict[int, dict] = {}
    for columns in (udfs, exprs):
        for r in frame.groupBy("g").agg(*columns).collect():
            found.setdefault(r["g"], {}).update(r.asDict())
    return found


@pytest.mark.parametrize("index", range(len(READ)), ids=[b.title for b in READ])
def test_a_read_body_gives_the_udfs_value_on_every_group(per_group, index):
    def same(a, b) -> bool:
        return a == b or (a != a and b != b)  # NaN

    differ = {g: (row[f"udf_{index}"], row[f"expr_{index}"]) for g, row in per_group.items()
              if not same(row[f"udf_{index}"], row[f"expr_{index}"])}
    assert len(per_group) == len({r[0] for r in ROWS}) and not differ, differ


@pytest.mark.parametrize("source,args,dtype,why", NOT_READ, ids=[w for *_, w in NOT_READ])
def test_a_body_that_is_not_read_says_why(source, args, dtype, why):
    types = {"d": "double", "n": "int", "s": "string"}
    cols = tuple(X.Col(a, i, types[a]) for i, a in enumerate(args))
    with pytest.raises(BodyNotRead, match=why):
        aggregate_of(source, cols, dtype)
