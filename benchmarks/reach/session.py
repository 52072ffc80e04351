"""The one SparkSession a run of the benchmark or the checker uses."""

from __future__ import annotations

from typing import Any

# adaptive execution replaces a stage it finds empty with an empty relation, which takes that
# stage's scan, and so its rows-read figure, out of the executed plan (as benchmarks/run.py)
EMPTY_RELATION_RULE = "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation"


def spark_session() -> Any:
    """local[2], no UI, two shuffle partitions (the data is small), errors only in the log."""
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("magicpush-reach")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.adaptive.optimizer.excludedRules", EMPTY_RELATION_RULE)
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark
