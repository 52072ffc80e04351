"""Steps the tracer does not see: a DataFrame made by an ML transformer's `transform` (a JVM
UDF in a projection) is tied to the traced DataFrame its plan is built on (translate/dataflow.py),
so a filter on other columns is proved past it, to the read. It is written there when the
statement that made the step can be named (rewrite/untraced_sites.py); when it cannot (the
transform ran inside a condition), the note names the untraced step as what stopped it.

Each case is a notebook traced in a real IPython shell; each suggestion's rewritten cells are run
again and the late filter's DataFrame must have the original's rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import rewritten, rows_of, traced

HEAD = ('from pyspark.sql import functions as F\n'
        'from pyspark.ml.feature import Bucketizer\n'
        'people = spark.createDataFrame([(i, float(i % 70), i % 2 if i % 13 else None) for i in range(300)], '
        '"id int, age double, churn int")')
BUCKETS = ('bucketizer = Bucketizer(splits=[0, 35, 45, 70], inputCol="age", outputCol="age_cat")\n'
           'senior = F.udf(lambda a: "senior" if a is not None and a >= 45 else "other", "string")\n')


@dataclass(frozen=True)
class Case:
    title: str
    cells: tuple[str, ...]
    predicate: str | None  # what is proved for `people`'s read, or None: nothing may move there
    written: bool = False  # the proved filter is suggested at the read


CASES = [
    Case("a filter on a Python UDF's output walks past a Bucketizer's transform to the read",
         (HEAD, BUCKETS + 'df = bucketizer.transform(people.withColumn("twice", F.col("age") * 2))\n'
          'df = df.withColumn("cat", F.col("age_cat") + 1).withColumn("group", senior("age"))',
          'out = df.filter((F.col("group") == "senior") & (F.col("churn") == 1))'),
         "(age >= 45.0 OR isnan((age - age))) AND churn = 1", written=True),
    Case("must not be written: the transform made inside a condition, whose other path the trace did not see",
         (HEAD, BUCKETS + 'df = people.withColumn("twice", F.col("age") * 2)\n'
          'if df.columns:\n    df = bucketizer.transform(df)\n'
          'df = df.withColumn("cat", F.col("age_cat") + 1).withColumn("group", senior("age"))',
          'out = df.filter((F.col("group") == "senior") & (F.col("churn") == 1))'),
         "(age >= 45.0 OR isnan((age - age))) AND churn = 1"),
    Case("must not move: a filter on the bucket the JVM UDF computes, which no predicate could write",
         (HEAD, BUCKETS + 'df = bucketizer.transform(people.withColumn("twice", F.col("age") * 2))\n'
          'df = df.withColumn("cat", F.col("age_cat") + 1)',
          'out = df.filter(F.col("cat") == 2)'),
         None),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_untraced_step_case(spark, shell, case: Case):
    trace = traced(shell, list(case.cells))
    assert any(e.op == "unknown" for e in trace.events), "the transform's DataFrame is one the tracer did not make"
    result = optimize_trace(trace, [c.source for c in trace.cells])
    proved = [n for n in result.notes if "proved for people" in n]
    on_people = [s for s in result.suggestions if s.source == "people"]
    if case.written:
        assert len(on_people) == 1, (result.notes, [s.predicate for s in result.suggestions])
    elif case.predicate is None:
        assert proved == [] and on_people == [], (proved, [s.predicate for s in on_people])
    else:
        assert on_people == [] and len(proved) == 1 and proved[0].startswith(case.predicate), result.notes
        assert "code the tracer does not see" in proved[0], proved[0]
    for s in result.suggestions:
        new = rewritten(list(case.cells), s)
        assert rows_of(spark, new, ["out"]) == rows_of(spark, list(case.cells), ["out"]), new
