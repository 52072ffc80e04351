"""fillna, na.fill, replace and cast in a RowTransform, on real Spark plans.

Spark writes `fillna` as `coalesce(x, v)` (`coalesce(nanvl(x, v), v)` for
doubles, where NaN is replaced too), `replace` as a CASE WHEN, and casts as
Cast. A cast that can fail (a string that is not a number, under ANSI mode)
must not be evaluated by the rewrite on a row the original never casts, and a
pushdown that skips a row the original casts is flagged as able to hide an
error. Every pushing case runs the original and the rewritten pipeline on
Spark and compares the output bags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.verify.verdict import EQUIVALENT

from .harness import bag, check_pushdown, run_engine
from .test_row_to_row_pipelines import SALES_SCHEMA, sales_rows

SESSIONS = ("classic", "connect")
# what the Connect reader does not read yet (tests/engine/conftest.py: expected to fail there)
CONNECT_GAPS = {
    'replace on an int column, filter on the new value: the old value comes along':
        'replace() is not read on Spark Connect yet',
    'replace on an int column, filter on neither value: pushed unchanged':
        'replace() is not read on Spark Connect yet',
    "a try_cast in the projection, filter on another column: moves, and hides no error":
        'try_cast is not read on Spark Connect yet',
    "a filter on a try_cast's value moves as the same try_cast, never as a cast (which would raise on 'x')":
        'try_cast is not read on Spark Connect yet',
}

CODES_SCHEMA = "code string, store string, big long"
# every code here is a number or NULL, so the original runs under ANSI mode
CODES_ROWS = [("12", "a", 1), ("7", "b", 2**40), ("-3", "a", -5), (None, "b", 6), ("0", None, 7), ("12", "a", 1),
              ("900", "c", 2**31), ("5", "a", None), ("6", "c", -(2**31) - 1)]
# with codes that are not numbers: only a pipeline that never casts them runs under ANSI mode
MIXED_ROWS = CODES_ROWS + [("x", "b", 3), ("1e", "a", 4), ("", None, 5)]


@dataclass(frozen=True)
class Case:
    title: str
    body: Callable  # (list of source DataFrames) -> DataFrame before the late filter
    late: Callable  # () -> Column
    expect: str | None  # EQUIVALENT, SUPERSET, or None when nothing may be pushed
    table: str = "sales"
    not_pushed: str | None = None  # a predicate that must not be the one pushed
    hides_errors: bool | None = None


CASES = [
    Case("fillna on a double, filter the fill value fails: pushed, NaN and NULL rows stay out",
         lambda s: s[0].fillna(0.0, subset=["amount"]),
         lambda: F.col("amount") > 5.0, EQUIVALENT, "sales_with_nan"),
    Case("fillna on a double, filter the fill value passes: NaN rows must stay, not `amount < 1.0`",
         lambda s: s[0].fillna(0.0, subset=["amount"]),
         lambda: F.col("amount") < 1.0, EQUIVALENT, "sales_with_nan", not_pushed="amount < 1.0"),
    Case("na.fill on a string, filter on the fill value: the NULL rows are kept",
         lambda s: s[0].na.fill("x", subset=["store"]),
         lambda: F.col("store") == "x", EQUIVALENT, not_pushed="store = 'x'"),
    Case("na.fill on a string, filter the fill value fails: pushed",
         lambda s: s[0].na.fill("x", subset=["store"]),
         lambda: F.col("store") == "a", EQUIVALENT),
    Case("replace on an int column, filter on the new value: the old value comes along",
         lambda s: s[0].replace(1, 2, subset=["v"]),
         lambda: F.col("v") == 2, EQUIVALENT, not_pushed="v = 2"),
    Case("replace on an int column, filter on neither value: pushed unchanged",
         lambda s: s[0].replace(1, 2, subset=["v"]),
         lambda: F.col("v") > 900, EQUIVALENT),
    Case("cast in a projection, filter on the cast: pushed, every row is cast on both sides",
         lambda s: s[0].withColumn("n", F.col("code").cast("int")),
         lambda: F.col("n") > 5, EQUIVALENT, "codes", hides_errors=False),
    Case("a cast that can fail in the projection, filter on another column: flagged as able to hide an error",
         lambda s: s[0].withColumn("n", F.col("code").cast("int")),
         lambda: F.col("store") == "a", EQUIVALENT, "codes", hides_errors=True),
    Case("a cast that cannot fail in the projection, filter on another column: not flagged",
         lambda s: s[0].withColumn("n", F.col("big").cast("string")),
         lambda: F.col("store") == "a", EQUIVALENT, "codes", hides_errors=False),
    Case("narrowing cast in a projection, filter on it: pushed, cast on both sides alike",
         lambda s: s[0].withColumn("n", F.col("big").cast("int")),
         lambda: F.col("n") > 5, EQUIVALENT, "fits", hides_errors=False),
    Case("narrowing cast guarded by a range filter: the cast is not moved below its guard",
         lambda s: s[0].filter(F.col("big").between(-100, 100)).withColumn("n", F.col("big").cast("int")),
         lambda: F.col("n") > 5, None, "fits"),
    Case("a failing cast must not move below the filter that guards it (it would raise on 'x')",
         lambda s: s[0].filter(F.col("code").rlike("^-?[0-9]+$")),
         lambda: F.col("code").cast("int") > 5, None, "mixed"),
    Case("a filter on a try_cast's value moves as the same try_cast, never as a cast (which would raise on 'x')",
         lambda s: s[0].withColumn("n", F.col("code").try_cast("int")),
         lambda: F.col("n") == 12, EQUIVALENT, "mixed", not_pushed="cast(code as int) = 12", hides_errors=False),
    Case("must not write either cast of an expression holding a try_cast and a cast (which is which is not known)",
         lambda s: s[0].withColumn("n", F.coalesce(F.col("code").try_cast("int"), F.col("big").cast("int"))),
         lambda: F.col("n") == 12, None, "mixed"),
    Case("a try_cast in the projection, filter on another column: moves, and hides no error",
         lambda s: s[0].withColumn("n", F.col("code").try_cast("int")),
         lambda: F.col("store") == "a", EQUIVALENT, "mixed", hides_errors=False),
    Case("the guarded cast through a projection: pushed to the guard, not below it",
         lambda s: s[0].filter(F.col("code").rlike("^-?[0-9]+$")).withColumn("n", F.col("code").cast("int")),
         lambda: F.col("n") > 5, None, "mixed"),
]


def _sources(spark, case: Case):
    data = {"sales": (sales_rows(), SALES_SCHEMA),
            "sales_with_nan": (sales_rows() + [(7, "a", float("nan")), (8, None, float("nan"))], SALES_SCHEMA),
            "codes": (CODES_ROWS, CODES_SCHEMA), "mixed": (MIXED_ROWS, CODES_SCHEMA),
            "fits": ([r for r in CODES_ROWS if r[2] is None or abs(r[2]) < 2**31], CODES_SCHEMA)}
    return [spark.createDataFrame(*data[case.table])]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_fill_replace_cast_pushdown(spark, case: Case):
    sources = _sources(spark, case)
    original = case.body(sources).filter(case.late())
    assert len(bag(original)) > 0, "the case's data should keep some rows, or the comparison proves little"
    walk = run_engine(sources, original)
    check_pushdown(walk, sources, case.body, case.late, case.expect, hides_errors=case.hides_errors,
                   not_pushed=case.not_pushed)


def test_the_refused_cast_pushdown_would_make_a_working_pipeline_fail(spark):
    """The refusal above is not overcautious: below its guard, the cast meets 'x' and raises."""
    source = spark.createDataFrame(MIXED_ROWS, CODES_SCHEMA)
    guarded = source.filter(F.col("code").rlike("^-?[0-9]+$")).filter(F.col("code").cast("int") > 5)
    assert len(bag(guarded)) > 0
    assert spark.conf.get("spark.sql.ansi.enabled") == "true", "Spark 4's default, under which casts raise"
    moved = source.filter(F.col("code").cast("int") > 5).filter(F.col("code").rlike("^-?[0-9]+$"))
    with pytest.raises(Exception, match="CAST_INVALID_INPUT"):
        moved.collect()
