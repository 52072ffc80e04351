"""A source read by several branches of one pipeline, where a filter reached only some reads:
the suggestion names the filter it adds on those reads, never the reads' disjunction (TRUE,
`F.lit(True)`, which would say it filters nothing), and the notebook's rows stay the same.
"""

from __future__ import annotations

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import rewritten, rows_of, traced

HEAD = ('from pyspark.sql import functions as F\n'
        'tx = spark.createDataFrame([(i % 9, "Current" if i % 3 else "Savings", i * 10) for i in range(90)], '
        '"account int, kind string, amount int")')

CASES = [
    # the kind is a column of the details branch only: its read takes the filter, the sums' read none
    ('details = tx.select("account", "kind").distinct()\n'
     'sums = tx.groupBy("account").agg(F.sum("amount").alias("total"))\n'
     'out = details.join(sums, "account", "left").filter((F.col("kind") == "Current") & (F.col("total") >= 3000))',
     'F.col("kind") == "Current"'),
]


@pytest.mark.parametrize("cell, predicate", CASES, ids=["a filter on one branch's column: that read's filter"])
def test_a_filter_on_one_read_of_a_shared_source_is_named_as_that_filter(spark, shell, cell, predicate):
    cells = [HEAD, cell]
    trace = traced(shell, cells)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    on_tx = [s for s in result.suggestions if s.source == "tx"]
    assert on_tx, result.notes
    assert all(s.predicate != "F.lit(True)" for s in result.suggestions), [s.predicate for s in result.suggestions]
    assert [s.predicate for s in on_tx] == [predicate]
    for s in on_tx:
        new = rewritten(cells, s)
        assert rows_of(spark, new, ("out",)) == rows_of(spark, cells, ("out",)), new


def test_must_not_suggest_a_filter_that_keeps_every_row_when_no_read_takes_one(spark, shell):
    """The late filter reads only a sum, which no filter below the aggregate keeps: no read of
    the source gets a filter, and nothing is suggested for it (no `F.lit(True)`)."""
    cells = [HEAD,
             'details = tx.select("account", "kind").distinct()\n'
             'sums = tx.groupBy("account").agg(F.sum("amount").alias("total"))\n'
             'out = details.join(sums, "account", "left").filter(F.col("total") >= 3000)']
    trace = traced(shell, cells)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    assert [s.predicate for s in result.suggestions if s.source == "tx"] == [], result.notes
    assert result.notes
