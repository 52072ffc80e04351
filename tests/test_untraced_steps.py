"""Steps the tracer does not see being made, and Spark ML's steps it records (capture/ml.py).

A DataFrame made in the JVM by a library's function (a projection the tracer never sees called)
is tied to the traced DataFrame its plan is built on (translate/dataflow.py), so a filter on
other columns is proved past it, to the read. It is written there when the statement that made
the step can be named (rewrite/untraced_sites.py); when it cannot (the step ran inside a
condition), the note names the untraced step as what stopped it.

An ML transformer's `transform` is a step of its own, with its input and its place in the cell,
even when the DataFrame it read is held by nothing else; an estimator's `fit` and a quantile
taken from a DataFrame (a correlation, its rows as JSON text) read every row of it, so no filter
goes below them in place.

Each case is a notebook traced in a real IPython shell; each suggestion's rewritten cells are run
again and the late filter's DataFrame must have the original's rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import rewritten, rows_of, traced

HEAD = ('from pyspark.sql import functions as F\n'
        'from pyspark.sql import DataFrame\n'
        'from pyspark.ml.feature import Bucketizer, QuantileDiscretizer\n'
        'people = spark.createDataFrame([(i, float(i % 70), i % 2 if i % 13 else None) for i in range(300)], '
        '"id int, age double, churn int")\n'
        'def jvm_twice(df):  # a library making its DataFrame in the JVM: no traced call\n'
        '    return DataFrame(df._jdf.withColumn("twice", F.expr("age * 2")._jc), df.sparkSession)')
BUCKETS = ('bucketizer = Bucketizer(splits=[0, 35, 45, 70], inputCol="age", outputCol="age_cat")\n'
           'senior = F.udf(lambda a: "senior" if a is not None and a >= 45 else "other", "string")\n')
LATE = 'out = df.filter((F.col("group") == "senior") & (F.col("churn") == 1))'
PROVED = "(age >= 45.0 OR isnan((age - age))) AND churn = 1"


@dataclass(frozen=True)
class Case:
    title: str
    cells: tuple[str, ...]
    predicate: str | None  # what is proved for `people`'s read, or None: nothing may move there
    written: bool = False  # the proved filter is suggested at the read
    why: str = ""  # when proved and not written: what the note says stopped it
    traced_step: bool = False  # the step is a traced one (a transform), not an untraced DataFrame


CASES = [
    Case("a filter on a Python UDF's output walks past a library's JVM step to the read",
         (HEAD, BUCKETS + 'df = jvm_twice(people.withColumn("k", F.lit(1)))\n'
          'df = df.withColumn("group", senior("age"))', LATE),
         PROVED, written=True),
    Case("must not be written: the library's step made inside a condition, whose other path the trace did not see",
         (HEAD, BUCKETS + 'df = people.withColumn("k", F.lit(1))\n'
          'if df.columns:\n    df = jvm_twice(df)\n'
          'df = df.withColumn("group", senior("age"))', LATE),
         PROVED, why="code the tracer does not see"),
    Case("a transformer's transform is a step: its input, held by nothing else once the cell ends, is copied with it",
         (HEAD, BUCKETS + 'df = people.withColumn("twice", F.col("age") * 2)\n'
          'df = bucketizer.transform(df)\n'
          'df = df.withColumn("cat", F.col("age_cat") + 1).withColumn("group", senior("age"))', LATE),
         PROVED, written=True, traced_step=True),
    Case("must not be written: the transform made inside a condition, whose other path the trace did not see",
         (HEAD, BUCKETS + 'df = people.withColumn("twice", F.col("age") * 2)\n'
          'if df.columns:\n    df = bucketizer.transform(df)\n'
          'df = df.withColumn("cat", F.col("age_cat") + 1).withColumn("group", senior("age"))', LATE),
         PROVED, why="conditional block", traced_step=True),
    Case("must not move: a filter on the bucket the JVM UDF computes, which no predicate could write",
         (HEAD, BUCKETS + 'df = bucketizer.transform(people.withColumn("twice", F.col("age") * 2))\n'
          'df = df.withColumn("cat", F.col("age_cat") + 1)',
          'out = df.filter(F.col("cat") == 2)'),
         None, traced_step=True),
    Case("must not be written at the read: a model fit on a DataFrame on the way splits by every row's age",
         (HEAD, BUCKETS + 'df = people.withColumn("twice", F.col("age") * 2)\n'
          'model = QuantileDiscretizer(numBuckets=3, inputCol="age", outputCol="q").fit(df)\n'
          'df = model.transform(df).withColumn("group", senior("age"))', LATE),
         PROVED, why="inspected (fit)", traced_step=True),
    Case("must not be written at the read: a quantile of a DataFrame on the way sets a column",
         (HEAD, BUCKETS + 'df = people.withColumn("twice", F.col("age") * 2)\n'
          'median = df.approxQuantile("age", [0.5], 0.0)[0]\n'
          'df = df.withColumn("above", F.col("age") > median).withColumn("group", senior("age"))', LATE),
         PROVED, why="inspected (approxQuantile)"),
    Case("must not be written at the read: a correlation of a DataFrame on the way sets a column",
         (HEAD, BUCKETS + 'df = people.withColumn("twice", F.col("age") * 2)\n'
          'r = df.corr("age", "id")\n'
          'df = df.withColumn("r", F.lit(r)).withColumn("group", senior("age"))', LATE),
         PROVED, why="inspected (corr)"),
    Case("must not be written at the read: rows of a DataFrame on the way taken as JSON text",
         (HEAD, BUCKETS + 'df = people.withColumn("twice", F.col("age") * 2)\n'
          'n = len(df.toJSON().collect())\n'
          'df = df.withColumn("n", F.lit(n)).withColumn("group", senior("age"))', LATE),
         PROVED, why="inspected (toJSON)"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_untraced_step_case(spark, shell, case: Case):
    trace = traced(shell, list(case.cells))
    made = [e for e in trace.events if e.op == "unknown"]
    if case.traced_step:
        assert made and all(e.site is not None and e.inputs for e in made), made
    result = optimize_trace(trace, [c.source for c in trace.cells])
    proved = [n for n in result.notes if "proved for people" in n]
    on_people = [s for s in result.suggestions if s.source == "people"]
    if case.written:
        assert len(on_people) == 1, (result.notes, [s.predicate for s in result.suggestions])
    elif case.predicate is None:
        assert proved == [] and on_people == [], (proved, [s.predicate for s in on_people])
    else:
        assert on_people == [] and len(proved) == 1 and proved[0].startswith(case.predicate), result.notes
        assert case.why in proved[0], proved[0]
    for s in result.suggestions:
        new = rewritten(list(case.cells), s)
        assert rows_of(spark, new, ["out"]) == rows_of(spark, list(case.cells), ["out"]), new
