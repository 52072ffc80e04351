"""A Spark function in a pushed predicate is written back as the PySpark function that builds it.

The engine reads Catalyst expression classes (`DayOfMonth`, `StringLPad`) and writes predicates
as PySpark code (`F.dayofmonth`, `F.lpad`). Each case filters a table with the function, reads
the filter back into the IR, writes it as code, and runs that code: the rows must be the same.
"""

from __future__ import annotations

import datetime as dt

import pytest

from magicpush_lab.rewrite.pyspark_code import to_pyspark
from magicpush_lab.rewrite.pyspark_column import to_column
from magicpush_lab.translate.spark_plan import _PREDICATE_FUNCTIONS, _snake
from tests.engine.harness import bag, translate_pipeline

ROWS = [
    (dt.date(2024, 1, 31), "  ab ", 3, 1_700_000_000, dt.datetime(2024, 5, 17, 13, 5)),
    (dt.date(2024, 2, 29), "Hello world", 0, 0, dt.datetime(2023, 12, 31, 23, 59)),
    (dt.date(2023, 12, 1), "", -2, 86_400, dt.datetime(2024, 1, 1, 0, 0)),
    (None, None, None, None, None),
]
SCHEMA = "d date, s string, n int, sec long, ts timestamp"

# (pyspark function, the late filter using it)
CASES = [
    ("dayofmonth", 'F.dayofmonth("d") > 15'),
    ("dayofweek", 'F.dayofweek("d") == 4'),
    ("dayofyear", 'F.dayofyear("d") > 40'),
    ("weekday", 'F.weekday("d") < 3'),
    ("weekofyear", 'F.weekofyear("d") == 5'),
    ("initcap", 'F.initcap("s") == "Hello World"'),
    ("trim", 'F.trim("s") == "ab"'),
    ("ltrim", 'F.ltrim("s") == "ab "'),
    ("rtrim", 'F.rtrim("s") == "  ab"'),
    ("lpad", 'F.lpad("s", 6, "*") == "*  ab "'),
    ("rpad", 'F.rpad("s", 3, "-") == "Hel"'),
    ("instr", 'F.instr("s", "o") == 5'),
    ("locate", 'F.locate("o", "s", 6) == 8'),
    ("repeat", 'F.repeat("s", 2) == "  ab   ab "'),
    ("unbase64", 'F.unbase64(F.lit("YWI=")).isNotNull() & (F.col("n") > 0)'),
    ("xxhash64", 'F.xxhash64("s") > 0'),
    ("date_format", 'F.date_format("d", "yyyy-MM") == "2024-02"'),
    ("from_unixtime", 'F.from_unixtime("sec", "yyyy") == "1970"'),
    ("trunc", 'F.trunc("d", "month") == F.lit(dt.date(2024, 1, 1))'),
    ("date_trunc", 'F.date_trunc("hour", "ts") == F.lit(dt.datetime(2024, 5, 17, 13, 0))'),
]


@pytest.mark.parametrize("function,late", CASES, ids=[c[0] for c in CASES])
def test_a_filter_with_a_spark_function_is_written_back_as_code_that_keeps_the_same_rows(spark, function, late):
    from pyspark.sql import functions as F

    src = spark.createDataFrame(ROWS, SCHEMA)
    final = src.filter(eval(late, {"F": F, "dt": dt}))
    assert 0 < len(bag(final)) < len(ROWS), "the case must keep some rows and drop others"
    condition = translate_pipeline([src], final).condition
    code = to_pyspark(condition, "F")
    assert f"F.{function}(" in code
    assert bag(src.filter(eval(code, {"F": F, "datetime": dt}))) == bag(final)
    assert bag(src.filter(to_column(condition))) == bag(final)


def test_a_function_without_a_pyspark_name_is_not_written_as_code(spark):
    """must not write: a struct field read has no function of its own; code that guessed one
    would not run, or would compute something else."""
    from pyspark.sql import functions as F

    src = spark.createDataFrame([((1, "a"),), ((2, "b"),)], "p struct<x: int, y: string>")
    final = src.filter(F.col("p").getField("x") > 1)
    condition = translate_pipeline([src], final).condition
    with pytest.raises(ValueError):
        to_pyspark(condition, "F")


def test_every_deterministic_function_class_has_a_pyspark_name_or_is_known_to_have_none():
    """A class the translation reads gets its PySpark name in spark_plan._FUNCTION_NAMES, or is
    listed here among those that have none (they are refused when writing code)."""
    from pyspark.sql import functions as F

    without = {"AtLeastNNonNulls", "CreateArray", "CreateNamedStruct", "GetArrayItem", "GetMapValue",
               "GetStructField", "If", "KnownFloatingPointNormalized", "KnownNotNull",
               "Murmur3Hash", "NaNvl", "ParseToDate", "ParseToTimestamp", "StringReplace"}
    missing = {c for c in _PREDICATE_FUNCTIONS if not callable(getattr(F, _snake(c), None))}
    assert missing == without
