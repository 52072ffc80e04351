"""The pandas API on Spark: a filter on a pandas-on-Spark frame, moved to the frame's read.

Each case is a notebook that reads a Parquet file with `pyspark.pandas`, adds columns and
filters late. It runs in a traced shell and is optimized as the sidebar does; every suggestion
is applied and the notebook run again, and the final frame must be the same: its index, columns,
dtypes and rows (as a bag, as the engine proves). A case that pushes names what the rewritten
read must contain; its must-not neighbour names the note that says why nothing moved.
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

pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::FutureWarning"), pytest.mark.filterwarnings("ignore::UserWarning")]

FRAME = "top"
IMPORTS = "import os\nos.environ['PYARROW_IGNORE_TIMEZONE'] = '1'\nimport pyspark.pandas as ps\n"


@dataclass(frozen=True)
class Case:
    name: str
    cells: tuple[str, ...]  # `{path}` stands for the Parquet file's path
    pushes: tuple[str, ...] | None  # text the rewritten read must contain; None: nothing moves
    note: tuple[str, ...] = ()  # a note one of these must be in (classic and Connect plans may differ)


def case(name, cells, pushes=None, note=()) -> Case:
    return Case(name, tuple(cells), tuple(pushes) if pushes else None, (note,) if isinstance(note, str) else note)


APPLY = ".spark.apply(lambda sdf: sdf.filter("
CASES = [
    case("a mask on a computed column: the formula goes to the read, the index the read gave is kept",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col='id')",
          "psdf['score'] = psdf['a'] * 2 + 1\ntop = psdf[psdf['score'] > 11]"],
         pushes=(APPLY, 'F.col("a")', "index_col='id'")),
    case("two masks and a loc: both conditions go to the read",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col='id')",
          "psdf['twice'] = psdf['a'] * 2\nsel = psdf[psdf['cat'] == 'c1']\ntop = sel.loc[sel['a'] > 3]"],
         pushes=(APPLY, 'F.col("cat") == "c1"', 'F.col("a")')),
    case("an index of two columns is kept as written",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col=['id', 'cat'])",
          "top = psdf[psdf['a'] >= 5]"],
         pushes=(APPLY, "index_col=['id', 'cat']")),
    case("a division column the masks do not read: its divide-by-zero branch (infinities, NaN) does not stop them",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col='id')",
          "psdf['ratio'] = psdf['amount'] / psdf['a']\nsel = psdf[psdf['a'] >= 1]\ntop = sel[sel['a'] > 3]"],
         # the masks' two tests go as one: `a > 3` implies `a >= 1`
         pushes=(APPLY, 'F.col("a") > 3')),
    case("a mask on a division by a literal, whose divide-by-zero branch is never taken: the formula goes to the read",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col='id')",
          "psdf['half'] = psdf['a'] / 2\ntop = psdf[psdf['half'] > 1]"],
         pushes=(APPLY, '/ 2 > 1')),
    case("must not: a mask on a ratio whose divisor may be zero reads an infinity or NaN the model lacks",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col='id')",
          "psdf['ratio'] = psdf['a'] / (psdf['a'] - 2)\ntop = psdf[psdf['ratio'] > 0.5]"],
         note="NaN and infinite literals are not modelled"),
    case("must not: the default index numbers the rows at the read, so a filter below it renumbers them",
         [IMPORTS + "psdf = ps.read_parquet({path})",
          "psdf['score'] = psdf['a'] * 2 + 1\ntop = psdf[psdf['score'] > 11]"],
         note="default index"),
    case("must not: shift() reads every row of the read in order; the frame it aligns with could take the filter, "
         "but both reads are inside the pandas-on-Spark calls",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col='id')",
          "psdf['prev'] = psdf['a'].shift(1)\ntop = psdf[psdf['a'] > 3]"],
         # classic: the window's read needs every row; Connect's plan shows the window reading the row order
         note=("every row on another", "a later step reads it")),
    case("must not: a read that picks its columns (columns=) is not rewritten",
         [IMPORTS + "psdf = ps.read_parquet({path}, index_col='id', columns=['a', 'cat'])",
          "top = psdf[psdf['a'] > 3]"],
         note="columns="),
    case("must not: a read in a loop, whose every run the filter would reach",
         [IMPORTS + "parts = [ps.read_parquet(p, index_col='id') for p in [{path}]]\npsdf = parts[0]",
          "top = psdf[psdf['a'] > 3]"],
         note="more than once"),
]


@pytest.fixture(scope="module")
def parquet(spark, tmp_path_factory) -> str:
    """1,000 rows: `a` in 0..6 with NULLs, a string column, a double, an id to index on."""
    path = str(tmp_path_factory.mktemp("pandas_on_spark") / "orders.parquet")
    spark.range(1000).selectExpr("id", "IF(id % 11 = 0, NULL, id % 7) AS a", "concat('c', id % 4) AS cat",
                                 "IF(id % 11 = 0, NULL, id % 7) * 1.5D AS amount") \
        .repartition(3).write.parquet(path)
    return path


def _cells(c: Case, path: str) -> list[str]:
    return [src.replace("{path}", repr(path)) for src in c.cells]


def _final_frame(spark, cells):
    """The final pandas-on-Spark frame as a user sees it: index name, columns, dtypes, rows."""
    ns = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - the notebook under test
    pdf = ns[FRAME].to_pandas()

    def canon(v):
        return "NaN" if isinstance(v, float) and math.isnan(v) else v

    rows = Counter(tuple(canon(v) for v in row) for row in pdf.reset_index().itertuples(index=False, name=None))
    return list(pdf.index.names), tuple(pdf.columns), tuple(str(t) for t in pdf.dtypes), rows


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_pandas_on_spark_filter_moves_to_the_read_keeping_the_final_frame(traced_session, parquet, c: Case):
    shell, spark = traced_session
    cells = _cells(c, parquet)
    result = optimize_trace(traced(shell, cells), cells, all_pipelines=True)
    before = _final_frame(spark, cells)
    assert before[3], "the case must keep some rows"
    for s in result.suggestions:
        for option in (s, *s.alternatives):
            assert _final_frame(spark, rewritten(cells, option.cells)) == before, option.predicate
    if c.pushes is None:
        assert not result.suggestions, [s.predicate for s in result.suggestions]
    else:
        assert result.suggestions, result.notes
        code = "\n".join(ch.rewritten for s in result.suggestions for ch in s.cells)
        assert all(p in code for p in c.pushes), (code, result.notes)
        # the mask is pandas-on-Spark code the rewrite does not remove: the late filter stays
        assert all(s.kind == "superset" for s in result.suggestions)
    if c.note:
        assert any(option in n for n in result.notes for option in c.note), result.notes


def test_the_rewritten_read_hands_the_filter_to_the_parquet_scan(shell, spark, parquet):
    """What the rewrite is for: Spark gives the moved condition to the file scan, which a
    filter behind the read's row-order column never reaches as a scan filter."""
    c = CASES[2]
    cells = _cells(c, parquet)
    [s] = optimize_trace(traced(shell, cells), cells, all_pipelines=True).suggestions
    ns = {"spark": spark}
    for src in rewritten(cells, s.cells):
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - the notebook under test
    plan = ns["psdf"].spark.frame()._jdf.queryExecution().executedPlan().toString()
    assert "PushedFilters: [IsNotNull(a), GreaterThanOrEqual(a,5)]" in plan, plan
