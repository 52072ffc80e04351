"""Spark's plans name a Python UDF by its function's name alone: two lambdas, or a function
defined again differently, share one name there. Each call is tied to the function it was made
from (capture/udfs.py), so each is read with its own body; a call that cannot be tied (one from
SQL text) is never read as either function.

Each case is a notebook traced in a real IPython shell; every suggestion's rewritten cells run
again and must give the original's rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import rewritten, rows_of, traced

HEAD = ('from pyspark.sql import functions as F\nfrom pyspark.sql.types import IntegerType\n'
        'people = spark.createDataFrame([("Female", 40.0), ("Male", 10.0), (None, None), ("Female", 0.0), '
        '("Male", 45.5), ("Other", 39.0)], "gender string, hours double")')

# read from a lambda over a double: NaN and the infinities stay for the late filter to decide
HARD_WORKERS = '(F.col("hours") > 38.8) | F.isnan(F.col("hours") - F.col("hours"))'


@dataclass(frozen=True)
class Case:
    title: str
    cells: tuple[str, ...]
    predicates: tuple[str, ...] | None  # the suggestions' predicates for `people`; None: none may be made


CASES = [
    Case("two lambdas, a filter on the first one's output: read with the first one's body",
         (HEAD,
          'female = F.udf(lambda gender: {"Female": 1, "Male": 0}.get(gender), IntegerType())\n'
          'hard = F.udf(lambda hours: 1 if hours is not None and hours > 38.8 else 0, IntegerType())\n'
          'w = people.withColumn("female", female(F.col("gender"))).withColumn("hw", hard(F.col("hours")))',
          'out = w.filter(F.col("female") == 1)'),
         ('F.col("gender") == "Female"',)),
    Case("two lambdas, a filter on the second one's output: read with the second one's body",
         (HEAD,
          'female = F.udf(lambda gender: {"Female": 1, "Male": 0}.get(gender), IntegerType())\n'
          'hard = F.udf(lambda hours: 1 if hours is not None and hours > 38.8 else 0, IntegerType())\n'
          'w = people.withColumn("female", female(F.col("gender"))).withColumn("hw", hard(F.col("hours")))',
          'out = w.filter(F.col("hw") == 1)'),
         (HARD_WORKERS,)),
    Case("must not read a call from SQL text as either function of its name: `flag` registered twice",
         (HEAD,
          'spark.udf.register("flag", lambda hours: 1 if hours is not None and hours > 38.8 else 0, IntegerType())\n'
          'spark.udf.register("flag", lambda hours: 1 if hours is not None and hours < 20 else 0, IntegerType())\n'
          'w = people.withColumn("f", F.expr("flag(hours)"))',
          'out = w.filter(F.col("f") == 1)'),
         None),
    Case("a named function beside a lambda keeps its own body: its filter pushes",
         (HEAD,
          'def is_female(gender):\n    return {"Female": 1, "Male": 0}.get(gender)\n'
          'female = F.udf(is_female, IntegerType())\n'
          'hard = F.udf(lambda hours: 1 if hours is not None and hours > 38.8 else 0, IntegerType())\n'
          'w = people.withColumn("female", female(F.col("gender"))).withColumn("hw", hard(F.col("hours")))',
          'out = w.filter(F.col("female") == 1)'),
         ('F.col("gender") == "Female"',)),
    Case("one lambda's cell run twice is still one function: its filter pushes",
         (HEAD,
          'male = F.udf(lambda gender: 1 if gender == "Male" else 0, IntegerType())',
          'male = F.udf(lambda gender: 1 if gender == "Male" else 0, IntegerType())\n'
          'w = people.withColumn("m", male(F.col("gender")))',
          'out = w.filter(F.col("m") == 1)'),
         ('F.col("gender") == "Male"',)),
    Case("a function defined again differently: a filter on the first one's output reads the first body",
         (HEAD,
          'def tier(hours):\n    return 1 if hours is not None and hours > 38.8 else 0\n'
          'low = F.udf(tier, IntegerType())\nw = people.withColumn("t1", low(F.col("hours")))',
          'def tier(hours):\n    return 1 if hours is not None and hours < 20 else 0\n'
          'high = F.udf(tier, IntegerType())\nw = w.withColumn("t2", high(F.col("hours")))',
          'out = w.filter(F.col("t1") == 1)'),
         (HARD_WORKERS,)),
    Case("a function defined again differently: a filter on the second one's output reads the second body",
         (HEAD,
          'def tier(hours):\n    return 1 if hours is not None and hours > 38.8 else 0\n'
          'low = F.udf(tier, IntegerType())\nw = people.withColumn("t1", low(F.col("hours")))',
          'def tier(hours):\n    return 1 if hours is not None and hours < 20 else 0\n'
          'high = F.udf(tier, IntegerType())\nw = w.withColumn("t2", high(F.col("hours")))',
          'out = w.filter(F.col("t2") == 1)'),
         ('(F.col("hours") < 20.0) | F.isnan(F.col("hours") - F.col("hours"))',)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_udf_name_case(spark, shell, case: Case):
    trace = traced(shell, list(case.cells))
    result = optimize_trace(trace, [c.source for c in trace.cells])
    on_people = [s for s in result.suggestions if s.source == "people"]
    if case.predicates is None:
        assert on_people == [], [s.predicate for s in on_people]
    else:
        assert [s.predicate for s in on_people] == list(case.predicates), result.notes
    for s in on_people:
        new = rewritten(case.cells, s)
        assert rows_of(spark, new, ("out",)) == rows_of(spark, case.cells, ("out",)), new
