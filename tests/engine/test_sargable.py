"""At the scan, predicates Parquet can skip on: a year as a date range, a linear comparison
solved for its column, a when-chain compared with a literal as its branch conditions.

A form is used only when Z3 proves it keeps the same rows and that neither side can raise.
Each case compares the original and the rewritten pipeline on Spark; the neighbours keep
the original form (a timestamp's year depends on the session time zone; an int plus one
can overflow; double arithmetic rounds; a modulo is not solvable; a branch value that is
a column has no constant outcome).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.verify.verdict import EQUIVALENT

from .harness import bag, rewritten_pipeline, run_engine

DATES = [(dt.date(2024, 1, 1), dt.datetime(2024, 1, 1, 0, 30), 2024), (dt.date(2023, 12, 31), None, 2023),
         (None, dt.datetime(2023, 12, 31, 23), 2024), (dt.date(2024, 12, 31), dt.datetime(2025, 1, 1), 2025),
         (dt.date(2025, 1, 1), dt.datetime(2024, 6, 1), None), (dt.date(2000, 2, 29), None, 2000),
         (dt.date(2024, 2, 29), dt.datetime(2024, 2, 29, 12), 2024)]
DATE_SCHEMA = "d date, ts timestamp, target int"

NUMBERS = [(Decimal("100.00"), 5, 11, 1.5, "x"), (Decimal("100.01"), 6, 6, 100.0, None),
           (Decimal("99.99"), None, None, None, "y"), (None, -32768, 5, 100.5, "z"),
           (Decimal("100.75"), 32767, 150, -1.0, "w"), (Decimal("-5.50"), 1, 2, 0.0, "v"),
           (Decimal("100.74"), 2, 7, 99.0, "u")]
NUMBER_SCHEMA = "amount decimal(10,2), s short, i int, x double, name string"


@dataclass(frozen=True)
class Case:
    title: str
    body: Callable
    late: Callable
    predicate: str
    rows: list = None  # type: ignore[assignment]
    schema: str = DATE_SCHEMA


def _year_of(column: str):
    return lambda s: s[0].withColumn("y", F.year(column))


def _with_y(make: Callable):
    return lambda s: s[0].withColumn("y", make())


def _chain():
    return F.when(F.col("i") > 10, "hi").when(F.col("i") > 5, "mid").otherwise("lo")


def _source(s):
    return s[0]


YEAR_CASES = [
    Case("year(d) = 2024 reaches the scan as a date range", _year_of("d"), lambda: F.col("y") == 2024,
         "d >= datetime.date(2024, 1, 1) AND d < datetime.date(2025, 1, 1)"),
    Case("year(d) > 2023 as a lower bound", _year_of("d"), lambda: F.col("y") > 2023,
         "d >= datetime.date(2024, 1, 1)"),
    Case("year(d) != 2024 as the two ranges outside the year", _year_of("d"), lambda: F.col("y") != 2024,
         "d < datetime.date(2024, 1, 1) OR d >= datetime.date(2025, 1, 1)"),
    Case("the year of a timestamp stays a function: it depends on the session's time zone",
         _year_of("ts"), lambda: F.col("y") == 2024, "year(cast(ts as date)) = 2024"),
    Case("a year compared with another column has no constant range", _year_of("d"),
         lambda: F.col("y") == F.col("target"), "year(d) = target"),
]

LINEAR_CASES = [
    Case("a decimal amount + 1 > 101 is solved to amount > 100", _with_y(lambda: F.col("amount") + 1),
         lambda: F.col("y") > 101, "amount > 100"),
    Case("2 * s - 3 <= 7 on a short column is solved to s <= 5 (the int result cannot overflow)",
         _with_y(lambda: 2 * F.col("s") - 3), lambda: F.col("y") <= 7, "s <= 5"),
    Case("a negative coefficient turns the comparison round and the bound is rounded up: 3 - 2 * s > 0",
         _with_y(lambda: 3 - 2 * F.col("s")), lambda: F.col("y") > 0, "s < 2"),
    Case("a decimal bound keeps its cents: amount * 2 >= 201.50 is amount >= 100.75",
         _with_y(lambda: F.col("amount") * 2), lambda: F.col("y") >= F.lit(Decimal("201.50")),
         "amount >= '100.75'"),
    Case("an int column plus one is left alone: it overflows at 2147483647 (ANSI raises, legacy wraps)",
         _with_y(lambda: F.col("i") + 1), lambda: F.col("y") > 101, "(i + 1) > 101"),
    Case("double arithmetic is left alone: its rounding is not modelled",
         _with_y(lambda: F.col("x") + 1), lambda: F.col("y") > 101, "(x + cast(1 as double)) > cast(101 as double)"),
    Case("a modulo is not injective: left alone", _with_y(lambda: F.col("s") % 3), lambda: F.col("y") == 1,
         "(cast(s as int) % 3) = 1"),
]

CASE_CASES = [
    Case("a when-chain equal to its middle value becomes that branch's condition", _source,
         lambda: _chain() == "mid", "i <= 10 AND i > 5"),
    Case("a when-chain equal to its ELSE value keeps the rows whose tests are NULL", _source,
         lambda: F.when(F.col("i") > 10, "hi").otherwise("lo") == "lo", "i <= 10 OR i IS NULL"),
    Case("a when-chain with a column as a branch value has no constant outcome: left alone", _source,
         lambda: F.when(F.col("i") > 10, F.col("name")).otherwise("lo") == "lo",
         "CASE WHEN i > 10 THEN name ELSE 'lo' END = 'lo'"),
]

CASES = YEAR_CASES + [Case(c.title, c.body, c.late, c.predicate, NUMBERS, NUMBER_SCHEMA)
                      for c in LINEAR_CASES + CASE_CASES]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_sargable_case(spark, case: Case):
    sources = [spark.createDataFrame(case.rows or DATES, case.schema)]
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original)
    assert [(str(p.predicate), p.kind) for p in walk.pushed] == [(case.predicate, EQUIVALENT)], walk.refusals
    rewritten = rewritten_pipeline(walk, sources, case.body, case.late, False)
    assert bag(rewritten) == bag(original) and bag(original)
