"""`magicpush optimize --remote sc://...`: a saved notebook whose builder names a local master is
replayed on a Spark Connect server instead, traced, proved and measured there."""

from __future__ import annotations

import io
import json

import nbformat
import pytest

from magicpush_lab.cli import main
from tests.connect_support import connect_server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.spark, pytest.mark.kernel]

CELLS = [
    "from pyspark.sql import SparkSession, functions as F\nfrom pyspark.sql.types import IntegerType\n"
    "spark = SparkSession.builder.master('local[2]').appName('orders').getOrCreate()\n"
    "assert type(spark).__module__.startswith('pyspark.sql.connect')",
    "orders = spark.createDataFrame([(i % 1000, i) for i in range(2000)], 'amount int, id int')",
    "@F.udf(IntegerType())\ndef loyalty_points(amount):\n    if amount is None:\n        return None\n"
    "    if amount > 500:\n        return amount + 50\n    return amount // 10\n\n"
    "scored = orders.withColumn('points', loyalty_points(F.col('amount')))",
    "big_earners = scored.filter(F.col('points') > 1000)\nbig_earners.count()",
]


def test_the_cli_replays_on_the_remote_server_and_counts_there(tmp_path, connect_server):  # noqa: F811
    path = tmp_path / "connect.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS]), path)
    out = io.StringIO()
    code = main(["optimize", str(path), "--json", "--remote", connect_server.url], stdout=out)
    result = json.loads(out.getvalue())
    assert code == 0, result
    [s] = result["suggestions"]
    assert s["predicate"] == 'F.col("amount") > 950' and s["kind"] == "equivalent"
    assert (s["rows_before"], s["rows_after"]) == (2000, 98)


def test_remote_must_be_a_connect_url(tmp_path):
    assert main(["optimize", str(tmp_path / "x.ipynb"), "--remote", "http://host:15002"]) == 2
