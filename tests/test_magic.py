"""`%magicpush` in a notebook shows the proved suggestion for what the notebook ran, measured."""

from __future__ import annotations

import pytest

from magicpush_lab.kernel.extension import load, magicpush_result, unload

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
    for cell in CELLS:
        ip.run_cell(cell, store_history=True).raise_error()
    yield ip
    unload(ip)


def test_magic_shows_the_proved_measured_suggestion(notebook):
    text = magicpush_result(notebook, "")["text/plain"]
    assert 'F.col("amount") > 950' in text
    assert "equivalent" in text and "ROW-TO-ROW (1 row)" in text
    assert "2000 -> 98" in text  # amounts 951..999, twice each


def test_magic_without_measuring_says_so(notebook):
    text = magicpush_result(notebook, "--no-measure")["text/plain"]
    assert 'F.col("amount") > 950' in text and "not measured" in text


def test_magic_all_shows_every_pipeline_and_the_default_only_the_longest(notebook):
    # as long as the `big` pipeline and more recent: the default picks it alone
    notebook.run_cell("cheap = orders.withColumn('twice', F.col('amount') * 2).filter(F.col('twice') < 10)",
                      store_history=True).raise_error()
    default = magicpush_result(notebook, "--no-measure")["text/plain"]
    every = magicpush_result(notebook, "--all --no-measure")["text/plain"]
    pipelines = lambda text: {ln.split()[0] for ln in text.splitlines()[1:] if ln.split()[:1] in (["big"], ["cheap"])}  # noqa: E731
    assert pipelines(default) == {"cheap"}, default
    assert pipelines(every) == {"big", "cheap"}, every
    assert 'F.col("amount") > 950' in every and 'F.col("amount") * 2 < 10' in every


def test_magic_rejects_an_unknown_option_and_names_the_known_ones(notebook):
    text = magicpush_result(notebook, "--everything")["text/plain"]
    assert "unknown option '--everything'" in text and "--all" in text
