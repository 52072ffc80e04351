"""The one SparkSession a run of the benchmark or the checker uses."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator

# adaptive execution replaces a stage it finds empty with an empty relation, which takes that
# stage's scan, and so its rows-read figure, out of the executed plan (as benchmarks/run.py)
EMPTY_RELATION_RULE = "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation"


def spark_session(quiet: bool = True) -> Any:
    """local[2], no UI, two shuffle partitions (the data is small), errors only in the log;
    `quiet`: the JVM's own output goes to /dev/null (quiet_jvm)."""
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]").appName("magicpush-reach")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.adaptive.optimizer.excludedRules", EMPTY_RELATION_RULE))
    if quiet:
        with quiet_jvm():
            spark = builder.getOrCreate()
    else:
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextmanager
def quiet_jvm() -> Iterator[None]:
    """A JVM started in the block writes its standard output and error to /dev/null: Spark
    sends its Python workers' output there too (a pandas UDF's `print`), and its start-up
    warnings. This process's own output is untouched after the block; errors still reach it as
    exceptions."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    kept = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(kept[0], 1)
        os.dup2(kept[1], 2)
        for fd in kept + [devnull]:
            os.close(fd)
