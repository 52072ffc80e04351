"""Which pipelines the optimizer looks at (pipeline.optimize_trace): the longest first, and the
next ones by length while the one before moved none of its last filter. Each case is a notebook
traced in a real IPython shell; every suggestion's rewrite is run again and the named
DataFrames must keep their rows."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import rewritten, rows_of, traced

HEAD = ('from pyspark.sql import functions as F, Window\n'
        'sales = spark.createDataFrame([(i, i % 10, i % 7 if i % 11 else None) for i in range(200)], '
        '"id int, v int, s int")\n'
        'per_s = sales.groupBy("s").agg(F.count("*").alias("n"), F.max("v").alias("top"))')

RANKED = ('ranked = per_s.withColumn("r", F.dense_rank().over(Window.orderBy(F.desc("n"))))'
          '.filter(F.col("r") <= 3).orderBy("r")\nranked.show()')


@dataclass(frozen=True)
class Case:
    title: str
    cells: tuple[str, ...]
    suggested_for: tuple[str, ...]  # the pipelines (their last DataFrames) with a suggestion
    names: tuple[str, ...]


CASES = [
    Case("the longest pipeline ranks on a window's result, which may not move: the next one's filter is suggested",
         (HEAD, RANKED, 'few = sales.groupBy("s").agg(F.max("v").alias("top")).filter(F.col("top") >= 9)\nfew.show()'),
         ("few",), ("ranked", "few")),
    Case("the longest pipeline's own filter moves: the shorter one is not looked at",
         (HEAD, 'ranked = per_s.withColumn("t", F.col("top") * 2).filter(F.col("s") <= 2)'
                '.orderBy("s")\nranked.show()',
          'few = sales.groupBy("s").agg(F.max("v").alias("top")).filter(F.col("top") >= 9)\nfew.show()'),
         ("ranked",), ("ranked", "few")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_pipeline_choice(spark, shell, case: Case):
    trace = traced(shell, list(case.cells))
    result = optimize_trace(trace, [c.source for c in trace.cells])
    assert sorted({s.pipeline for s in result.suggestions}) == sorted(case.suggested_for), result.notes
    for s in result.suggestions:
        new = rewritten(list(case.cells), s)
        assert rows_of(spark, new, case.names) == rows_of(spark, list(case.cells), case.names), new


def test_pipelines_after_the_longest_that_move_nothing_add_nothing_to_the_result(spark, shell):
    """Neither the ranking nor the next pipeline moves: the result is the longest pipeline's, its
    notes unnamed, as if only it had been looked at."""
    cells = [HEAD, RANKED,
             'few = per_s.withColumn("r2", F.row_number().over(Window.orderBy("n"))).filter(F.col("r2") <= 2)\n'
             'few.show()']
    trace = traced(shell, cells)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    assert result.suggestions == ()
    assert result.notes and not any(n.startswith("pipeline ending in") for n in result.notes), result.notes
    assert len(result.pipelines) == 1, [p.get("name") for p in result.pipelines]
