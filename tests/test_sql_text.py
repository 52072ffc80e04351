"""Pipelines written partly as SQL text: `spark.sql(...)` is a step like any other.

Spark's analyzed plan of a `spark.sql` call holds the plan of every temp view it reads, so the
walk goes through the SQL's projections, filters, joins, windows and aggregates to the
DataFrame that registered the view, and the filter is placed there. A DataFrame registered as
a view in the same line that makes it (held by no variable, only by the view) stays in the
trace for that reason (capture/recorder.named_view). Each "pushes" case has a "must not"
neighbour whose SQL stops the filter (a LIMIT, a window over all rows, an aggregate's value),
and every suggestion's output bag is compared with the original's on Spark.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import out_bag, rewritten, traced

pytestmark = pytest.mark.spark

# the view is made and named in one line: nothing but the view holds that DataFrame
SOURCES = ("from pyspark.sql import functions as F\n"
           "spark.createDataFrame([(i, ['EU', 'APAC', 'US'][i % 3], float(i)) for i in range(300)],\n"
           "                      'id int, region string, amount double').createOrReplaceTempView('orders')\n"
           "@F.udf('double')\n"
           "def points(a):\n"
           "    return None if a is None else a + 100.0\n"
           "_ = spark.udf.register('points', points)")


@dataclass(frozen=True)
class Case:
    sql: str
    late: str  # the late filter on the SQL's result, as PySpark
    pushes: bool
    why: str = ""  # a must-not case: what in the SQL stops the filter


CASES = {
    "through_a_udf_column_and_the_sql_where": Case(
        "SELECT id, region, amount, points(amount) AS points FROM orders WHERE region <> 'APAC'",
        'F.col("points") > 350', True),
    "must_not_through_a_limit": Case(
        "SELECT id, region, amount, points(amount) AS points FROM orders LIMIT 120",
        'F.col("points") > 350', False, "LIMIT keeps the first rows, whichever they are"),
    "to_a_group_key_through_an_aggregate": Case(
        "SELECT region, sum(amount) AS total FROM orders GROUP BY region",
        'F.col("region") == "EU"', True),
    "must_not_on_an_aggregate_value": Case(
        "SELECT region, sum(amount) AS total FROM orders GROUP BY region",
        'F.col("total") > 15000', False, "the sum is known only after every row of the group"),
    "to_a_partition_key_through_a_window": Case(
        "SELECT id, region, amount, rank() OVER (PARTITION BY region ORDER BY amount DESC) AS r FROM orders",
        'F.col("region") == "US"', True),
    "must_not_through_a_window_over_all_rows": Case(
        "SELECT id, region, amount, rank() OVER (ORDER BY amount DESC) AS r FROM orders",
        'F.col("region") == "US"', False, "the rank is over every row"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_filter_after_sql_text_moves_to_the_view_only_where_the_sql_lets_it(name, spark, shell):
    case = CASES[name]
    cells = [SOURCES, f'df = spark.sql("{case.sql}")\nout = df.filter({case.late})']
    result = optimize_trace(traced(shell, cells), cells)
    assert bool(result.suggestions) == case.pushes, (result.suggestions, result.notes)
    original = out_bag(spark, cells)
    for s in result.suggestions:
        changed = rewritten(cells, s)
        # placed where the view's DataFrame is made, before it is named for the SQL
        assert ".filter(" in changed[0].split("createOrReplaceTempView")[0], changed[0]
        assert out_bag(spark, changed) == original, s.predicate
