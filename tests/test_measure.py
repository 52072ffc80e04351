"""Counting rows before and after a pushed predicate, on real Spark."""

from __future__ import annotations

import pytest

from magicpush_lab.ir.expr import And, Cmp, Col, IsNotNull, Lit, PyUdf
from magicpush_lab.measure import measure


@pytest.fixture(scope="module")
def frames(spark):
    nums = spark.range(0, 1000).withColumnRenamed("id", "v")
    with_nulls = spark.createDataFrame([(1,), (None,), (5,), (None,), (9,)], "x int")
    return {0: nums, 1: with_nulls, 2: spark.range(0, 200000).withColumnRenamed("id", "v")}


def test_exact_counts(frames):
    assert measure(frames, 0, Cmp(">", Col("v", 1, "bigint"), Lit(995, "int"))) == (1000, 4, False)
    both = And((Cmp(">=", Col("v"), Lit(10, "int")), Cmp("<", Col("v"), Lit(20, "int"))))
    assert measure(frames, 0, both) == (1000, 10, False)


def test_null_predicate_drops_the_row(frames):
    assert measure(frames, 1, Cmp(">", Col("x"), Lit(2, "int"))) == (5, 2, False)
    assert measure(frames, 1, IsNotNull(Col("x"))) == (5, 3, False)


def test_python_udf_is_never_measured(frames):
    with pytest.raises(ValueError, match="Python UDF"):
        measure(frames, 0, Cmp(">", PyUdf("f", (Col("v"),), "int"), Lit(1, "int")))


def test_missing_event(frames):
    with pytest.raises(KeyError):
        measure(frames, 42, Cmp(">", Col("v"), Lit(1, "int")))


def test_time_limit_falls_back_to_a_sample(frames):
    before, after, estimated = measure(frames, 2, Cmp("<", Col("v"), Lit(50000, "int")), time_limit=0.0,
                                       sample_fraction=0.5, sample_time_limit=120)
    assert estimated is True
    assert 180000 < before < 220000
    assert 0.2 < after / before < 0.3
