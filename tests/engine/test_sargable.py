"""At the scan, a predicate Parquet can skip on: `year(d) <op> Y` becomes a range on `d`.

The range is used only when Z3 proves it keeps the same rows (year of a date is encoded
exactly). Each case compares the original and the rewritten pipeline on Spark; the
neighbours keep the function form (a timestamp's year depends on the session time zone;
a year compared with another column has no constant range).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.verify.verdict import EQUIVALENT

from .harness import bag, rewritten_pipeline, run_engine

ROWS = [(dt.date(2024, 1, 1), dt.datetime(2024, 1, 1, 0, 30), 2024), (dt.date(2023, 12, 31), None, 2023),
        (None, dt.datetime(2023, 12, 31, 23), 2024), (dt.date(2024, 12, 31), dt.datetime(2025, 1, 1), 2025),
        (dt.date(2025, 1, 1), dt.datetime(2024, 6, 1), None), (dt.date(2000, 2, 29), None, 2000),
        (dt.date(2024, 2, 29), dt.datetime(2024, 2, 29, 12), 2024)]


@dataclass(frozen=True)
class Case:
    title: str
    body: Callable
    late: Callable
    predicate: str


def _year_of(column: str):
    return lambda s: s[0].withColumn("y", F.year(column))


CASES = [
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


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_sargable_case(spark, case: Case):
    sources = [spark.createDataFrame(ROWS, "d date, ts timestamp, target int")]
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original)
    assert [(str(p.predicate), p.kind) for p in walk.pushed] == [(case.predicate, EQUIVALENT)], walk.refusals
    rewritten = rewritten_pipeline(walk, sources, case.body, case.late, False)
    assert bag(rewritten) == bag(original) and bag(original)
