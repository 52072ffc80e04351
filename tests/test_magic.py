"""`%magicpush` in a notebook shows the proved suggestion for what the notebook ran, measured."""

from __future__ import annotations

import pytest

from magicpush_lab.kernel.extension import load, magicpush_result, unload
from tests.cells import run_cells

CELLS = [
    "from pyspark.sql import functions as F\nfrom pyspark.sql.types import IntegerType",
    "orders = spark.createDataFrame([(i % 1000,) for i in range(2000)], 'amount int')",
    "@F.udf(IntegerType())\ndef points(amount):\n    if amount is None:\n        return None\n"
    "    if amount > 500:\n        return amount + 50\n    return amount // 10\n\n"
    "scored = orders.withColumn('points', points(F.col('amount')))",
    "big = scored.filter(F.col('points') > 1000)",
]


@pytest.fixture()
def notebook(spark):
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    load(ip)
    ip.user_ns["spark"] = spark
    run_cells(ip, CELLS)
    yield ip
    unload(ip)


def test_magic_shows_the_proved_measured_suggestion(notebook):
    text = magicpush_result(notebook, "")["text/plain"]
    assert 'F.col("amount") > 950' in text
    assert "removed (equivalent)" in text and "RowTransform: row by row (ROW-TO-ROW, 1 row)" in text
    assert "2,000 -> 98" in text  # amounts 951..999, twice each


def test_magic_without_measuring_says_so(notebook):
    text = magicpush_result(notebook, "--no-measure")["text/plain"]
    assert 'F.col("amount") > 950' in text and "not measured" in text


def test_magic_all_shows_every_pipeline_and_the_default_only_the_longest(notebook):
    # as long as the `big` pipeline and more recent: the default picks it alone
    notebook.run_cell("cheap = orders.withColumn('twice', F.col('amount') * 2).filter(F.col('twice') < 10)",
                      store_history=True).raise_error()
    default = magicpush_result(notebook, "--no-measure")["text/plain"]
    every = magicpush_result(notebook, "--all --no-measure")["text/plain"]
    pipelines = lambda text: {ln.split()[1] for ln in text.splitlines()[1:] if ln.split()[1:2] in (["big"], ["cheap"])}  # noqa: E731
    assert pipelines(default) == {"cheap"}, default
    assert pipelines(every) == {"big", "cheap"}, every
    assert 'F.col("amount") > 950' in every and 'F.col("amount") * 2 < 10' in every


def test_magic_rejects_an_unknown_option_and_names_the_known_ones(notebook):
    text = magicpush_result(notebook, "--everything")["text/plain"]
    assert "unknown option '--everything'" in text and "--all" in text


def test_help_lists_every_form(notebook):
    text = magicpush_result(notebook, "--help")["text/plain"]
    for form in ("%magicpush --no-measure", "--budget SECONDS", "--all", "apply N", "%%magicpush", "--help"):
        assert form in text


@pytest.mark.parametrize("line,message", [
    ("apply", "apply needs a suggestion number"),
    ("apply x", "apply needs a suggestion number"),
    ("apply 7", "there is no suggestion 7 (the last table has 1 to 1)"),
    ("apply 1 --together", "has no other filter"),
    ("--budget -2", "--budget must be between 0 and 600 seconds"),
])
def test_apply_refuses_what_the_last_table_does_not_have(notebook, line, message):
    magicpush_result(notebook, "--no-measure")
    assert message in magicpush_result(notebook, line)["text/plain"]


def test_apply_before_any_table_says_to_run_magicpush_first(notebook):
    assert "run %magicpush first" in magicpush_result(notebook, "apply 1")["text/plain"]


def test_apply_asks_the_notebook_to_rewrite_the_cells_that_ran_by_their_ids(spark):
    """apply N hands the notebook each cell's id, its code as it ran and the rewrite; running the
    rewritten cells gives the same rows."""
    from collections import Counter

    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.protocol import APPLY_MIME

    ip = InteractiveShell.instance()
    load(ip)
    try:
        ip.user_ns["spark"] = spark
        ids = [f"cell-{i}" for i in range(len(CELLS))]
        run_cells(ip, CELLS, ids)
        magicpush_result(ip, "--no-measure")
        shown = magicpush_result(ip, "apply 1")
    finally:
        unload(ip)
    payload = shown[APPLY_MIME]
    assert payload["id"] and "filter orders" in payload["what"]
    by_id = {c["cell_id"]: c for c in payload["cells"]}
    assert set(by_id) == {"cell-1", "cell-3"}  # the read of orders gets the filter, the late one goes
    assert all(by_id[i]["original"] == CELLS[ids.index(i)] for i in by_id)
    # the late filter's cell says where its filter went, rather than a bare `big = scored`
    assert by_id["cell-3"]["rewritten"] == "big = scored  # filter moved to the source: F.col('points') > 1000"
    new = [by_id[i]["rewritten"] if i in by_id else c for c, i in zip(CELLS, ids)]

    def rows(cells):
        ns = {"spark": spark}
        for src in cells:
            exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
        return Counter(map(tuple, ns["big"].collect()))
    assert rows(new) == rows(CELLS)
    assert "replace these cells' code" in shown["text/plain"]


def test_cell_magic_runs_the_cell_and_optimizes_only_its_pipeline(notebook):
    """`big` is the longest pipeline, but %%magicpush looks at the one its cell ends in; applying
    rewrites the magic's own cell, magic line kept."""
    from magicpush_lab.kernel.extension import _loaded
    from magicpush_lab.protocol import APPLY_MIME

    body = "cheap = orders.withColumn('twice', F.col('amount') * 2).filter(F.col('twice') < 10)"
    magic_cell = f"%%magicpush --no-measure\n{body}"
    notebook.run_cell(magic_cell, store_history=True, cell_id="magic-cell").raise_error()
    assert "cheap" in notebook.user_ns  # the body ran in the user's namespace
    result, _, _ = _loaded[id(notebook)].last
    assert [s.pipeline for s in result.suggestions] == ["cheap"]
    assert result.suggestions[0].predicate == 'F.col("amount") * 2 < 10'
    [cell] = magicpush_result(notebook, "apply 1")[APPLY_MIME]["cells"]
    assert (cell["cell_id"], cell["original"]) == ("magic-cell", magic_cell)
    assert cell["rewritten"].startswith("%%magicpush --no-measure\ncheap = orders.filter(")


def test_measuring_that_cancels_its_own_jobs_logs_nothing_and_keeps_the_notebooks_log_level(
        notebook, spark, monkeypatch):
    """%magicpush times the pipeline on a sample and stops at that timing's limit by cancelling
    its own noop writes: what Spark logs of them (the aborted write, killed tasks) would show in
    the cell's output, and is not logged; the notebook's log level is its own afterwards."""
    from magicpush_lab import runtime
    from magicpush_lab.measure import QUIET_LOGGERS, QUIET_LOGS
    from tests.spark_logs import LOGGED_NOISE, spark_log, users_levels

    # a source of 20,000 rows: enough for the time per row to be timed (runtime.COST_MIN_ROWS)
    notebook.run_cell("wide = spark.range(20000).selectExpr('cast(id % 1000 as int) as amount')\n"
                      "wide_big = wide.withColumn('points', points(F.col('amount'))).filter(F.col('points') > 1000)",
                      store_history=True).raise_error()
    monkeypatch.setattr(runtime, "COST_TIME_LIMIT", 0.3)  # far less than five Spark jobs take
    # an earlier test's stopped measurement may still be ending, its logs quiet until it has
    assert QUIET_LOGS.wait_restored(120)
    spark.sparkContext.setLogLevel("WARN")  # a notebook's default
    try:
        before = users_levels(spark, QUIET_LOGGERS)
        with spark_log(spark) as logged:
            text = magicpush_result(notebook, "")["text/plain"]
            assert QUIET_LOGS.wait_restored(120)
            said = logged()
        after = users_levels(spark, QUIET_LOGGERS)
    finally:
        spark.sparkContext.setLogLevel("ERROR")  # the test session's level
    assert "wide_big" in text and "20,000 -> 980" in text, text
    assert "took over 0.3 s" in text, text  # the timing was stopped
    assert not [word for word in LOGGED_NOISE if word in said + text], said
    assert after == before


def test_magic_suggests_the_simplest_proved_predicate_of_a_redundant_late_filter(notebook):
    """Written with tests the first implies, the late filter's suggestion is the one test a
    person writes at the read, not a conjunct per written test."""
    notebook.run_cell("big = scored.filter((F.col('points') > 1000) & (F.col('points') > 10)"
                      " & F.col('points').isNotNull())", store_history=True).raise_error()
    text = magicpush_result(notebook, "--no-measure")["text/plain"]
    [first] = [ln for ln in text.splitlines() if ln.startswith("1. ")]
    assert first.endswith('F.col("amount") > 950'), text
    assert "isNotNull" not in first



def test_apply_adds_no_second_import_of_functions_imported_before_tracing(spark):
    """`from pyspark.sql import functions as F` ran before `%load_ext magicpush_lab`: the trace
    has no such cell, but the notebook has F, so the rewrite uses it and imports nothing."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.protocol import APPLY_MIME

    ip = InteractiveShell.instance()
    ip.user_ns["spark"] = spark
    ip.run_cell(CELLS[0], store_history=True).raise_error()
    load(ip)
    try:
        run_cells(ip, CELLS[1:], [f"cell-{i}" for i in range(1, len(CELLS))])
        magicpush_result(ip, "--no-measure")
        shown = magicpush_result(ip, "apply 1")
    finally:
        unload(ip)
    [read] = [c["rewritten"] for c in shown[APPLY_MIME]["cells"] if c["cell_id"] == "cell-1"]
    assert read.startswith("orders = spark.createDataFrame(") and "import" not in read, read


def test_magic_says_which_conjunct_stays_in_the_late_filter_and_why(notebook):
    """Item 4 in the magic's text: the conjunct on the aggregate stops at the groupBy and is said
    with its step; the key's conjunct moves."""
    notebook.run_cell('g = orders.groupBy("amount").agg(F.count("*").alias("n"))\n'
                      'late = g.filter((F.col("amount") > 990) & (F.col("n") > 1))', store_history=True).raise_error()
    text = magicpush_result(notebook, "--no-measure")["text/plain"]
    assert '1. orders: F.col("amount") > 990' in text, text
    [said] = [ln for ln in text.splitlines() if "stays in the late filter" in ln]
    assert said.startswith('note: `F.col("n") > 1` stays in the late filter: ') and "groupBy" in said, said


def test_magic_says_a_failed_cell_first_and_still_optimizes_what_ran_before(notebook):
    """Item 5 in the magic's text: the failed cell's root cause first, the pipeline before it
    still suggested."""
    notebook.run_cell("ratio = 1 / 0", store_history=True)  # fails, as the case needs
    text = magicpush_result(notebook, "--no-measure")["text/plain"]
    notes = [ln for ln in text.splitlines() if ln.startswith("note: ")]
    assert notes and "failed (ZeroDivisionError: division by zero); the cells after it have not run" in notes[0]
    assert 'F.col("amount") > 950' in text
