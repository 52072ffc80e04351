"""Pipelines written partly as SQL text: `spark.sql(...)` is a step like any other.

Spark's analyzed plan of a `spark.sql` call holds the plan of every temp view it reads, so the
walk goes through the SQL's projections, filters, joins, windows and aggregates to the
DataFrame that registered the view, and the filter is placed there; where that DataFrame also
feeds other code (another query reads the view), the filter is written into this query's SQL
text instead, where it reads the view (rewrite/sql_text.py). A DataFrame registered as
a view in the same line that makes it (held by no variable, only by the view) stays in the
trace for that reason (capture/recorder.named_view). Each "pushes" case has a "must not"
neighbour whose SQL stops the filter (a LIMIT, a window over all rows, an aggregate's value),
and every suggestion's output bag is compared with the original's on Spark.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import out_bag, rewritten, traced

pytestmark = pytest.mark.spark

# the view is made and named in one line: nothing but the view holds that DataFrame
SOURCES = ("from pyspark.sql import functions as F\n"
           "spark.createDataFrame([(i, ['EU', 'APAC', \"US's\"][i % 3], float(i)) for i in range(300)],\n"
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
        'F.col("region") == "US\'s"', True),
    "must_not_through_a_window_over_all_rows": Case(
        "SELECT id, region, amount, rank() OVER (ORDER BY amount DESC) AS r FROM orders",
        'F.col("region") == "US\'s"', False, "the rank is over every row"),
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


# another query reads the view too: the filter goes into this query's SQL text, where it reads
# the view, so the other query keeps every row
OTHER = ('other = spark.sql("SELECT region, count(*) AS n FROM orders GROUP BY region")\n'
         "spark.createDataFrame([('EU', 'Europe'), ('APAC', 'Asia')], 'region string, name string')"
         ".createOrReplaceTempView('regions')")


@dataclass(frozen=True)
class InText:
    sql: str
    late: str
    written: str | None  # the query's SQL text as rewritten (or a part of it); None: must not be rewritten


IN_TEXT = {
    "where_added_after_the_view_and_its_alias": InText(
        "SELECT o.id, o.amount, points(o.amount) AS points FROM orders o",
        'F.col("points") > 350',
        "SELECT o.id, o.amount, points(o.amount) AS points FROM orders o WHERE (`amount` + 100.0D) > 350.0D"),
    "a_derived_table_beside_the_query_s_own_where": InText(
        "SELECT id, region, amount, points(amount) AS points FROM orders WHERE region <> 'APAC'",
        'F.col("points") > 350',
        "SELECT id, region, amount, points(amount) AS points FROM (SELECT * FROM orders WHERE (`amount` + 100.0D)"
        " > 350.0D) AS orders WHERE region <> 'APAC'"),
    "a_quote_in_a_string_literal": InText(
        "SELECT id, region, points(amount) AS points FROM orders",
        '(F.col("points") > 350) & (F.col("region") == "US\'s")',
        "`region` = 'US\\'s'"),
    "a_derived_table_for_the_second_view_of_a_join": InText(
        "SELECT o.id, r.name, points(o.amount) AS points FROM regions r JOIN orders o ON r.region = o.region",
        'F.col("points") > 350',
        "JOIN (SELECT * FROM orders WHERE (`amount` + 100.0D) > 350.0D) o ON r.region = o.region"),
    "must_not_through_a_limit": InText(
        "SELECT id, amount, points(amount) AS points FROM orders LIMIT 120", 'F.col("points") > 350', None),
    "must_not_where_the_query_reads_the_view_twice": InText(
        "SELECT a.id, a.amount, points(a.amount) AS points FROM orders a JOIN orders b ON a.id = b.id",
        'F.col("points") > 350', None),
}


@pytest.mark.parametrize("name", list(IN_TEXT))
def test_a_view_other_code_reads_gets_the_filter_in_the_sql_text(name, spark, shell):
    case = IN_TEXT[name]
    cells = [SOURCES, OTHER, f'df = spark.sql("{case.sql}")\nout = df.filter({case.late})']
    result = optimize_trace(traced(shell, cells), cells)
    in_text = [s for s in result.suggestions if any("spark.sql(" in c.rewritten and c.rewritten != c.original
                                                    and c.index == 2 for c in s.cells)]
    assert bool(in_text) == (case.written is not None), (result.suggestions, result.notes)
    originals = {n: out_bag(spark, cells, n) for n in ("out", "other")}
    for s in result.suggestions:
        changed = rewritten(cells, s)
        assert changed[0] == cells[0] and changed[1] == cells[1], "the view and the other query stay as they were"
        for n, bag in originals.items():
            assert out_bag(spark, changed, n) == bag, (n, s.predicate, changed[2])
    if case.written is not None:
        [s] = in_text
        assert case.written in _sql_of(rewritten(cells, s)[2])


def _sql_of(cell: str) -> str:
    """The SQL text of the cell's one `spark.sql("...")` call, as Python reads it."""
    [call] = [n for n in ast.walk(ast.parse(cell)) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "sql"]
    return call.args[0].value


# a catalog table read inside SQL text: no DataFrame of the notebook's behind it, so the filter
# can only go into the text; the table is written once for the module, outside the repository
@pytest.fixture(scope="module")
def catalog_orders(spark, tmp_path_factory):
    table = "magicpush_sql_text_orders"
    rows = [(i, ["EU", "APAC", "US"][i % 3], float(i)) for i in range(300)]
    spark.createDataFrame(rows, "id int, region string, amount double").write.mode("overwrite") \
        .option("path", str(tmp_path_factory.mktemp("orders"))).saveAsTable(table)
    yield f"default.{table}"
    spark.sql(f"DROP TABLE IF EXISTS {table}")


UDF = ("from pyspark.sql import functions as F\n"
       "@F.udf('double')\n"
       "def points(a):\n"
       "    return None if a is None else a + 100.0\n"
       "_ = spark.udf.register('points', points)")


@dataclass(frozen=True)
class OnTable:
    sql: str  # {t}: the table's name
    late: str
    written: str | None  # a part of the query's SQL text as rewritten; None: no suggestion
    looks: str = ""  # code run on the query's result besides the pipeline


ON_TABLE = {
    "a_where_after_the_table": OnTable(
        "SELECT id, region, points(amount) AS points FROM {t}", 'F.col("points") > 350',
        "FROM {t} WHERE (`amount` + 100.0D) > 350.0D"),
    "a_derived_table_beside_the_query_s_own_where": OnTable(
        "SELECT o.id, points(o.amount) AS points FROM {t} o WHERE o.region <> 'APAC'", 'F.col("points") > 350',
        "FROM (SELECT * FROM {t} WHERE (`amount` + 100.0D) > 350.0D) o WHERE"),
    "must_not_through_a_limit": OnTable(
        "SELECT id, points(amount) AS points FROM {t} LIMIT 120", 'F.col("points") > 350', None),
    "must_not_where_the_table_is_read_twice": OnTable(
        "SELECT a.id, points(a.amount) AS points FROM {t} a JOIN {t} b ON a.id = b.id", 'F.col("points") > 350', None),
    "must_not_when_the_query_s_result_is_counted_on_its_own": OnTable(
        "SELECT id, points(amount) AS points FROM {t}", 'F.col("points") > 350', None, "n = df.count()"),
}


@pytest.mark.parametrize("name", list(ON_TABLE))
def test_a_catalog_table_read_in_sql_text_gets_the_filter_in_the_text(name, spark, shell, catalog_orders):
    from magicpush_lab.assist import measure_requests
    from magicpush_lab.kernel.bundles import measure_in_kernel

    case = ON_TABLE[name]
    sql = case.sql.format(t=catalog_orders)
    cells = [UDF, f'df = spark.sql("{sql}")\nout = df.filter({case.late})' + (f"\n{case.looks}" if case.looks else "")]
    result = optimize_trace(traced(shell, cells), cells)
    assert bool(result.suggestions) == (case.written is not None), (result.suggestions, result.notes)
    original = out_bag(spark, cells)
    for s in result.suggestions:
        changed = rewritten(cells, s)
        assert case.written.format(t=catalog_orders) in _sql_of(changed[1]), changed[1]
        assert out_bag(spark, changed) == original, s.predicate
        # counted on the table itself, read by its name in the notebook's session
        [counted] = measure_in_kernel(shell[1], measure_requests([s]))
        assert (counted["rows_before"], counted["rows_after"]) == (300, 49), counted
