"""pandas after `toPandas()`: the pandas filter's Spark counterpart, pushed into the pipeline.

Each case is a notebook: a Spark pipeline over a table with NULLs, NaN and duplicate rows, a
`toPandas()`, then pandas code that filters the frame. It runs in a traced shell and is optimized
as the sidebar does; every suggestion is applied and the notebook run again, and the final pandas
frame must be the same: the same rows (as a bag: the index numbers the rows that arrive, see
docs/semantics.md), the same columns, the same dtypes. A case that pushes names what the Spark
filter must contain; its must-not neighbour names the note that says why nothing moved.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import traced
from tests.connect_support import connect_server, connect_spark, traced_session  # noqa: F401 - fixtures
from tests.notebook_sinks import rewritten

pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

SETUP = """\
import datetime as dt
import pandas as pd
from pyspark.sql import functions as F
ROWS = [(i, i % 7 if i % 11 else None, None if i % 13 == 0 else i * 1.5, f"c{i % 4}", i % 3 == 0,
         dt.date(2024, 1 + i % 12, 1 + i % 28)) for i in range(200)]
ROWS += [(5, 5, float("nan"), "c1", None, None)] * 2 + [(None, None, None, None, None, None)]
orders = spark.createDataFrame(ROWS, "id long, k int, amount double, cat string, flag boolean, day date")
"""
FRAME = "top"


@dataclass(frozen=True)
class Case:
    name: str
    cells: tuple[str, ...]
    pushes: tuple[str, ...] | None  # text the Spark filter's code must contain; None: nothing moves
    note: str | None = None  # a note that must be given


def case(name, cells, pushes=None, note=None) -> Case:
    return Case(name, (SETUP, *cells), tuple(pushes) if pushes else None, note)


CASES = [
    # ---- boolean masks over computed columns
    case("a mask on a computed column: the formula moves into Spark, NULL rows of the integer"
         " columns kept so every dtype stays, and rows too large for the proof kept for pandas",
         ['recent = orders.where(F.col("cat") != "c3")\npdf = recent.toPandas()',
          'pdf["score"] = pdf["k"] * 10 + 1\ntop = pdf[pdf["score"] > 50]'],
         pushes=('F.col("k")', 'F.col("id").isNull()', 'F.col("k").isNull()', "16777216")),
    case("must not: a double computed in the pandas code (Spark makes NaN where pandas sees missing)",
         ['pdf = orders.toPandas()', 'pdf["score"] = pdf["amount"] * 2 + 1\ntop = pdf[pdf["score"] > 250]'],
         note="computes in doubles"),
    case("must not: the frame is shown before the filter, so every row of it is seen",
         ['pdf = orders.toPandas()\npdf.head()', 'top = pdf[pdf["amount"] > 250]'],
         note="reads `pdf`, which holds every collected row"),
    case("a mask on a long column: rows whose id float64 may round are kept too",
         ['pdf = orders.select("id", "cat").toPandas()', 'top = pdf[pdf.id + 1 > 150]'],
         pushes=('F.col("id")', '4503599627370496')),
    case("must not: arithmetic that overflows whatever size its columns are held to",
         ['pdf = orders.select("id", "k").toPandas()', 'top = pdf[pdf.k * 2147483647 * 2147483647 > 150]'],
         note="may overflow"),
    # ---- NaN: pandas reads it as missing, Spark sorts it above every number
    case("a comparison on a double with NaN: NaN is read as missing, as pandas does",
         ['pdf = orders.toPandas()\ntop = pdf[pdf.amount >= 290]'],
         pushes=('isnan',)),
    case("must not: a double computed in the pandas code and compared where NaN differs",
         ['pdf = orders.toPandas()\npdf["r"] = pdf.amount - pdf.amount\ntop = pdf[pdf.r != 0]'],
         note="computes in doubles"),
    # ---- other constructs: loc, assign, dropna, string and date masks
    case("loc with a mask and a column list",
         ['pdf = orders.toPandas()', 'top = pdf.loc[pdf["cat"] == "c2", ["id", "cat"]]'],
         pushes=('F.col("cat")',)),
    case("assign, then a mask joined with &",
         ['pdf = orders.toPandas()',
          'top = pdf.assign(big=pdf.k * 2)\ntop = top[(top.big > 5) & (top.cat != "c0")]'],
         pushes=('F.col("k")', 'F.col("cat")')),
    case("query: a string of comparisons read as the mask it means",
         ['pdf = orders.toPandas()\ntop = pdf.query("k >= 5 and cat != \'c1\'")'],
         pushes=('F.col("k")', 'F.col("cat")')),
    case("toPandas() and the query in one statement",
         ['top = orders.where(F.col("cat") != "c0").toPandas().query("k >= 5")'],
         pushes=('F.col("k")',)),
    case("must not: one statement whose head() comes before the query",
         ['top = orders.toPandas().sort_values("id").head(30).query("k > 2")'],
         note="`top = orders.toPandas().sort_values"),
    case("must not: a query that reads a Python variable (@name)",
         ['limit = 5\npdf = orders.toPandas()\ntop = pdf.query("k >= @limit")'],
         note="query"),
    case("dropna on a subset",
         ['pdf = orders.toPandas()\ntop = pdf.dropna(subset=["amount"])'],
         pushes=('isnan',)),
    case("must not: a head without a sort keeps rows by their order, which the filter would change",
         ['pdf = orders.toPandas()\ntop = pdf.head(10)[pdf.head(10).amount > 3]'],
         note="head(k) without a sort"),
    case("must not: a function defined earlier reads the frame when called",
         ['def peek():\n    return len(pdf)', 'pdf = orders.toPandas()\ntop = pdf[pdf.k > 3]\nprint(peek())'],
         note="`peek`"),
    case("must not: a second frame made from the unfiltered one",
         ['pdf = orders.toPandas()\nother = pdf.assign(z=pdf.k)\ntop = pdf[pdf.amount > 100]'],
         note="reads `pdf`"),
    case("after the filter the frame may be used in any way",
         ['pdf = orders.toPandas()\ntop = pdf[pdf.k == 3]\nprint(len(top))\ntop.head()'],
         pushes=('F.col("k")',)),
    # ---- where the walk cannot go further, the filter goes right before toPandas()
    case("a filter on an aggregate: it cannot pass the groupBy, so it goes right before toPandas()",
         ['totals = orders.groupBy("cat").agg(F.sum("k").alias("total"))\npdf = totals.toPandas()',
          'top = pdf[pdf.total > 130]'],
         pushes=('totals.filter(', 'F.col("total")')),
    case("a filter on a random column: it cannot pass the step that makes it, and goes before toPandas()",
         ['noisy = orders.withColumn("r", F.rand(3).cast("double"))\npdf = noisy.toPandas()\ntop = pdf[pdf.r > 0.5]'],
         pushes=('noisy.filter(', 'F.col("r")')),
    # ---- what comes after the filter sees the same rows; what comes before must map rows one by one
    case("an aggregate after the filter: groupby().agg over the rows the filter keeps",
         ['pdf = orders.toPandas()\ntop = pdf[pdf.k > 3].groupby("cat", as_index=False).agg(n=("k", "sum"))'],
         pushes=('F.col("k")',)),
    case("sort_values().head() after the filter",
         ['pdf = orders.toPandas()\ntop = pdf[pdf.k >= 4]', 'top = top.sort_values(["id", "cat"]).head(7)'],
         pushes=('F.col("k")',)),
    case("drop_duplicates after the filter",
         ['pdf = orders.toPandas()\ntop = pdf.loc[pdf.cat == "c1"]\ntop = top.drop_duplicates()'],
         pushes=('F.col("cat")',)),
    case("must not: sort_values().head() before the filter keeps rows by their order",
         ['pdf = orders.toPandas()\nfirst = pdf.sort_values("id").head(20)\ntop = first[first.k > 3]'],
         note="an output row depends on other rows"),
    case("fillna before the filter: a missing value becomes the number the filter then reads",
         ['pdf = orders.toPandas()\npdf["k"] = pdf["k"].fillna(9)\ntop = pdf[pdf.k > 5]'],
         pushes=('F.col("k")', 'F.lit(9)')),
    case("fillna of a double fills NaN too, so the rows with NaN stay",
         ['pdf = orders.toPandas()\npdf["amount"] = pdf["amount"].fillna(0)\ntop = pdf[pdf.amount < 1]'],
         pushes=('F.col("amount")', 'isnan')),
    case("must not: fillna with the column's mean, which depends on every row",
         ['pdf = orders.toPandas()\npdf["k"] = pdf["k"].fillna(pdf["k"].mean())\ntop = pdf[pdf.k > 5]'],
         note="fillna"),
    case("must not: ffill, which fills a row from the one before it",
         ['pdf = orders.toPandas()\npdf["k"] = pdf["k"].ffill()\ntop = pdf[pdf.k > 5]'],
         note="ffill"),
    case("must not: a merge with a frame the pipeline did not trace",
         ['names = pd.DataFrame({"cat": ["c0", "c1"], "label": ["zero", "one"]})\npdf = orders.toPandas()',
          'pdf = pdf.merge(names, on="cat", how="left")\ntop = pdf[pdf.label == "one"]'],
         note="merge"),
    # ---- isin: a list of literals is Spark's IN; pandas' False for a missing value is kept
    case("isin over strings",
         ['pdf = orders.toPandas()\ntop = pdf[pdf.cat.isin(["c1", "c2"])]'],
         pushes=('F.col("cat")', '"c1"')),
    case("isin over an integer column with NULLs, which pandas holds as float64",
         ['pdf = orders.select("id", "k").toPandas()\ntop = pdf[pdf["k"].isin([1, 3])]'],
         pushes=('F.col("k")',)),
    case("~isin keeps the rows whose value is missing, as pandas does",
         ['pdf = orders.toPandas()\ntop = pdf[~pdf.k.isin([1, 2, 3, 4, 5, 6])]'],
         pushes=('F.col("k")',)),
    case("must not: isin with None in the list (pandas matches a missing value with it)",
         ['pdf = orders.toPandas()\ntop = pdf[pdf.k.isin([1, None])]'],
         note="isin"),
    case("must not: isin over a list the code computes",
         ['allowed = ["c" + str(i) for i in range(2)]\npdf = orders.toPandas()\ntop = pdf[pdf.cat.isin(allowed)]'],
         note="isin"),
    case("must not: the mask reads a column pandas holds as an object of another kind (a date)",
         ['pdf = orders.toPandas()\ntop = pdf[pdf.day > dt.date(2024, 6, 1)]'],
         note="pandas"),
]


def _frame_bag(frame) -> tuple:
    """A pandas frame as what a user sees of it, bar the index: its columns, dtypes and rows."""
    def canon(v):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        return v

    rows = Counter(tuple(canon(v) for v in row) for row in frame.itertuples(index=False, name=None))
    return tuple(frame.columns), tuple(str(t) for t in frame.dtypes), rows


def _final_frame(spark, cells):
    ns = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - the notebook under test
    return _frame_bag(ns[FRAME])


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_pandas_filter_after_toPandas_moves_into_spark_keeping_the_final_frame(traced_session, c: Case):
    shell, spark = traced_session
    cells = list(c.cells)
    trace = traced(shell, cells)
    result = optimize_trace(trace, cells, all_pipelines=True)
    assert not [n for n in result.notes if "could not analyse" in n], result.notes
    before = _final_frame(spark, cells)
    mine = [s for s in result.suggestions if s.pipeline == FRAME]
    for s in mine:
        for option in (s, *s.alternatives):
            assert _final_frame(spark, rewritten(cells, option.cells)) == before, option.predicate
    if c.pushes is None:
        assert mine == [], [s.predicate for s in mine]
    else:
        assert mine, result.notes
        code = "\n".join(ch.rewritten for ch in mine[0].cells)
        assert all(p in code for p in c.pushes), code
        assert mine[0].kind == "superset"
        assert mine[0].late_filter_cell is not None and "top" in mine[0].late_predicate
    if c.note is not None:
        assert any(c.note in n for n in result.notes), result.notes


def test_timing_a_pandas_filter_suggestion_counts_the_rows_into_python_instead_of_comparing(shell):
    """The rewritten DataFrame holds fewer rows than the original by design: "Measure run time"
    says how many rows each hands to Python, and does not call the outputs different."""
    from magicpush_lab.kernel.bundles import runtime_result

    cells = [SETUP, 'pdf = orders.toPandas()\ntop = pdf[pdf.k == 3]']
    trace = traced(shell, cells)
    [s] = [s for s in optimize_trace(trace, cells).suggestions if s.pipeline == FRAME]
    assert s.late_filter_in_pandas and s.sink_event is not None
    answer = runtime_result(shell[1], {**s.to_json(), "runs": 1})
    original = shell[0].user_ns["orders"].count()
    kept = len(shell[0].user_ns["top"])
    assert answer["outputs_equal"] is None, answer
    assert f"rows into Python: {original:,} → " in answer["note"], answer["note"]
    after = int(answer["note"].split("→ ", 1)[1].split(";", 1)[0].replace(",", ""))
    assert kept <= after < original, (kept, after, original)
