"""A long chain of `withColumn` calls folded into `withColumns` (rewrite/fold_columns.py).

Each `withColumn` nests the plan a level deeper; a few hundred levels are more than Spark takes.
The fold is offered for a chain of at least fold_columns.MIN_CALLS calls, and only where the
calls it folds read no column made earlier in the same `withColumns`, repeat no name and are
deterministic (translate/column_steps.py). The 600-call chain fails as written and runs once
folded: its output is compared, as a bag, with the same columns computed by one `select`. Each
must-not case runs the chain as written and as folded and compares the bags.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.rewrite.fold_columns import MIN_CALLS
from magicpush_lab.server.validation import validator
from tests.cells import out_bag, rewritten
from tests.connect_support import connect_mode, connect_server, connect_spark  # noqa: F401 - fixtures

pytestmark = pytest.mark.spark

SOURCE = ("from pyspark.sql import functions as F\n"
          "src = spark.createDataFrame([(i, i % 7, None if i % 5 == 0 else i * 2) for i in range(40)], "
          "'k long, v long, w long')")
DEEP = 600


def statements(steps: list[str]) -> str:
    """A chain written as statements reassigning one name, its last DataFrame `out`."""
    return "df = src\n" + "".join(f"df = df.withColumn({s})\n" for s in steps) + "out = df"


def method_chain(steps: list[str]) -> str:
    """A chain written as one method chain."""
    return "out = (src\n" + "".join(f"       .withColumn({s})\n" for s in steps) + ")"


def loop(value: str, n: int, after: str = "out = df") -> str:
    """A chain written as a loop of one statement."""
    return f"df = src\nfor i in range({n}):\n    df = df.withColumn(f'c{{i}}', {value})\n{after}"


def plain(n: int) -> list[str]:
    return [f"'c{i}', F.col('k') * {i} + F.col('v')" for i in range(n)]


def shallow(n: int) -> str:
    """The columns of `plain(n)` computed by one select: what the chain means, nested one deep."""
    return ("out = src.select('*', *[(F.col('k') * i + F.col('v')).alias(f'c{i}') "
            f"for i in range({n})])")


def run(ip, cells: list[str]) -> list:
    """Run the cells in the traced shell; the error of each (None: it ran)."""
    return [ip.run_cell(c, store_history=True).error_in_exec for c in cells]


# --------------------------------------------------------------------------- the deep chain

def _deep_chain_folds(ip, tracer, spark):
    cells = [SOURCE, statements(plain(DEEP)), "n = out.count()"]
    errors = run(ip, cells)
    assert any(e is not None for e in errors), "the 600-deep chain ran as written: the case shows nothing"
    result = optimize_trace(tracer.trace(), cells)
    [fold] = result.folds
    assert fold.with_columns == 1 and fold.folded == fold.calls, fold
    assert "nest the plan" in fold.reason and "withColumns" in fold.reason
    answer = json.loads(json.dumps(result.to_json()))
    assert answer["folds"][0]["calls"] == fold.calls
    assert [e.message for e in validator("OptimizeResult").iter_errors(answer)] == []  # the JSON contract
    folded = rewritten(cells, fold)
    assert folded[1].count(".withColumn(") == DEEP - fold.calls  # those after the failure, as written
    assert out_bag(spark, folded) == out_bag(spark, [SOURCE, shallow(DEEP)])


# about 100 to 160 s (Spark analyses each of the ~450 calls that run before the driver's stack
# overflows, each over the whole chain): slow tier. In CI the table below folds 120-step chains
@pytest.mark.slow
def test_a_600_deep_chain_fails_as_written_and_runs_folded_on_classic(spark, shell):
    ip, tracer = shell
    _deep_chain_folds(ip, tracer, spark)


@pytest.mark.slow  # reading the 600 Connect relations of the trace takes minutes (each step's schema is asked)
def test_a_600_deep_chain_fails_as_written_and_runs_folded_on_connect(connect_spark):  # noqa: F811
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload

    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns["spark"] = connect_spark
    try:
        with connect_mode():
            _deep_chain_folds(ip, tracer, connect_spark)
    finally:
        unload(ip)


# --------------------------------------------------------------------------- must-not cases

@dataclass(frozen=True)
class Case:
    title: str
    chain: str  # the chain cell, its last DataFrame `out`
    folded: int | None  # withColumn calls folded (None: no fold offered)
    written: int = 0  # withColumns calls written
    compared: tuple[str, ...] = ()  # columns the bags are compared on (empty: all)


N = MIN_CALLS + 20
READS = plain(N)
READS[60] = "'c60', F.col('c10') + 1"  # reads a column made earlier in the run: a new layer starts there
REPEATS = plain(N)
REPEATS[60] = "'C10', F.col('k') - 1"  # replaces c10 (Spark resolves names case-insensitively)
RANDOM = plain(N)
RANDOM[60] = "'c60', F.rand(7)"
PYTHON_VALUE = plain(N)
PYTHON_VALUE[60] = "'c60', F.lit(len(df.columns))"  # a Python value of the chain's DataFrame: no plan shows it

CASES = [
    Case("a call reading a column made earlier splits the fold in two", method_chain(READS), N, 2),
    Case("a repeated name splits the fold in two", statements(REPEATS), N, 2),
    Case("a nondeterministic call stays as written between two folds", statements(RANDOM), N - 1, 2,
         tuple(f"c{i}" for i in range(N) if i != 60)),
    Case("a short chain is not folded", statements(plain(MIN_CALLS - 1)), None),
    Case("a call whose Python arguments read the reassigned name is not folded", statements(PYTHON_VALUE), None),
    Case("a loop of one withColumn folds into one comprehension", loop("F.col('k') * i + F.col('v')", N), N, 1),
    Case("a loop whose variable is read after it is not folded",
         loop("F.col('k') * i", N, "out = df.withColumn('last', F.lit(i))"), None),
    Case("a loop reading the column its run before made is not folded",
         loop("F.col(f'c{i - 1}') + 1 if i else F.col('k')", N), None),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_a_fold_keeps_the_chains_rows(case, spark, shell):
    ip, tracer = shell
    cells = [SOURCE, case.chain]
    assert run(ip, cells) == [None, None]
    result = optimize_trace(tracer.trace(), cells)
    if case.folded is None:
        assert result.folds == ()
        return
    [fold] = result.folds
    assert (fold.folded, fold.with_columns) == (case.folded, case.written), fold
    answer = json.loads(json.dumps(result.to_json()))
    assert [e.message for e in validator("OptimizeResult").iter_errors(answer)] == []  # the JSON contract
    folded = rewritten(cells, fold)
    assert folded[1].count(".withColumns(") == case.written, folded[1]
    assert _bag(spark, folded, case.compared) == _bag(spark, cells, case.compared)


def _bag(spark, cells: list[str], columns: tuple[str, ...]) -> Counter:
    ns: dict = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
    out = ns["out"].select(*columns) if columns else ns["out"]
    return Counter(map(tuple, out.collect()))
