"""The folds users write, in whole pipelines, on classic and Spark Connect sessions: grouped-
aggregate pandas UDFs whose body reads as Spark's aggregates (translate/pandas_aggregate.py) and
`max_by`/`min_by`. Each push beside a must-not, each rewrite's output bag compared with the
original's on rows with NULLs, NaN and duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET
from tests.cells import rewritten, traced

from .harness import bag
from .test_pandas_aggregates import ROWS, SCHEMA

SESSIONS = ("classic", "connect")

SETUP = (
    "import pandas as pd\n"
    "from pyspark.sql import functions as F\n"
    "t = spark.createDataFrame({}, {!r})\n".format(repr(ROWS).replace("nan", "float('nan')"), SCHEMA)
)


@dataclass(frozen=True)
class Pipeline:
    title: str
    cells: tuple[str, ...]
    expect: str | None  # the kind, or None: nothing may move
    predicate: str | None = None


def _udf(body: str, dtype: str, params: str = "x: pd.Series") -> str:
    return f"@F.pandas_udf({dtype!r})\ndef f({params}) -> float:\n    return {body}\n"


PIPELINES = [
    Pipeline("a sum of the large values over a bound: only large values are read",
             (_udf("float(x[x > 500].sum())", "double"),
              "m = t.groupBy('g').agg(f('d').alias('total'))\nout = m.filter(F.col('total') > 1000)"),
             SUPERSET, '~F.isnan(F.col("d")) & (F.col("d") > 500.0)'),
    Pipeline("a sum of every value over a bound: each value moves it, must not",
             (_udf("float(x.sum())", "double"),
              "m = t.groupBy('g').agg(f('d').alias('total'))\nout = m.filter(F.col('total') > 1000)"),
             None),
    Pipeline("any value in a set: the rows in the set, and the late filter goes",
             (_udf("bool(x.isin([0, 1]).any())", "boolean"),
              "m = t.groupBy('g').agg(f('n').alias('hit'))\nout = m.filter(F.col('hit'))"),
             EQUIVALENT, 'F.col("n").isin(0, 1)'),
    Pipeline("no value in a set: every row of a kept group counts, must not",
             (_udf("bool(x.isin([0, 1]).any())", "boolean"),
              "m = t.groupBy('g').agg(f('n').alias('hit'))\nout = m.filter(~F.col('hit'))"),
             None),
    Pipeline("the group's size: every row counts, must not",
             (_udf("len(x)", "long"),
              "m = t.groupBy('g').agg(f('n').alias('rows'))\nout = m.filter(F.col('rows') >= 2)"),
             None),
    Pipeline("max_by over a when: the rows with an ordering value",
             ("m = t.groupBy('g').agg(F.max_by('d', F.when(F.col('s') != 'c', F.col('n'))).alias('latest'))\n"
              "out = m.filter(F.col('latest') > 100)",),
             SUPERSET, '~(F.col("s") == "c") & F.col("n").isNotNull()'),
    Pipeline("max_by, a bound on the picked value: a lower value's row may be the latest, must not",
             ("m = t.groupBy('g').agg(F.max_by('d', 'n').alias('latest'))\nout = m.filter(F.col('latest') > 100)",),
             None),
    Pipeline("the first value: an order Spark does not fix, must not",
             (_udf("x.iloc[0]", "double"),
              "m = t.groupBy('g').agg(f('d').alias('first'))\nout = m.filter(F.col('first') > 500)"),
             None),
]


@pytest.mark.parametrize("case", PIPELINES, ids=[c.title for c in PIPELINES])
def test_a_pandas_aggregate_in_a_pipeline(shell, spark, case: Pipeline):
    cells = [SETUP, *case.cells]
    ip, _ = shell
    trace = traced(shell, cells)
    original = bag(ip.user_ns["out"])
    result = optimize_trace(trace, cells, time_budget=30)
    found = [s for s in result.suggestions if s.source == "t"]
    if case.expect is None:
        assert found == [], [s.predicate for s in found]
        return
    assert found, (result.notes, result.refusals)
    s = found[0]
    assert (s.kind, s.predicate) == (case.expect, case.predicate)
    namespace = {"spark": spark}
    for cell in rewritten(cells, s):
        exec(compile(cell, "<cell>", "exec"), namespace)  # the suggestion's cells, as a notebook runs them
    assert bag(namespace["out"]) == original and original, (s.predicate, rewritten(cells, s))
