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
