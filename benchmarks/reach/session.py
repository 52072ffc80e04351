"""The one SparkSession a run of the benchmark or the checker uses."""

from __future__ import annotations

import os
import sys
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


def quiet_workers() -> None:
    """Send what Spark's processes write to standard output (a pandas UDF's `print` runs in a
    Python worker the JVM started) to /dev/null, while this process's own output still goes
    where it went: call before the session starts, as the JVM inherits the descriptor then."""
    sys.stdout.flush()
    kept = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = os.fdopen(kept, "w", buffering=1)
