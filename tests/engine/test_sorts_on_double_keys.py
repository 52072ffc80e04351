"""Sorts, limits and their late filters on double keys, on real Spark plans.

Spark sorts NaN above every number and equal to itself, and -0.0 equal to 0.0. A filter that
only compares the double key keeps a prefix of the sort order exactly when it does so on the
reals with NaN above every number, so the TOPK proof covers NaN (verify/topk.py); arithmetic
on the key or a Python UDF reading it is refused by name (symbolic/nan.order_gap). Each push
runs the original and the rewritten pipeline on Spark and compares bags; the data has NaN,
the infinities, -0.0 and 0.0, NULLs and duplicate rows, and the sorts are total orders (an
`id` breaks ties) so that the limit's rows are determined.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, check_pushdown, run_engine, udf_record

SESSIONS = ("classic", "connect")

SCHEMA = "id int, amount double, store string"
NAN, INF = float("nan"), float("inf")


def rows() -> list[tuple]:
    rnd = random.Random(31)
    special = [NAN, NAN, INF, -INF, -0.0, 0.0, None, 1000.0, 999.5, 5.0]
    out = [(i, v, rnd.choice(["s1", "s3", None])) for i, v in enumerate(special)]
    out += [(100 + i, rnd.choice([None, NAN, -0.0, 0.0, float(rnd.randint(-20, 1200))]), rnd.choice(["s1", "s3", None]))
            for i in range(60)]
    return out + [out[0], out[5]]  # duplicate rows: equal in every key, the same row whichever comes first


def top(k: int, order: Callable) -> Callable:
    return lambda s: s[0].orderBy(*order(), F.col("id"), F.col("store")).limit(k)


def desc_amount():
    return (F.col("amount").desc(),)


def asc_nulls_first():
    return (F.col("amount").asc_nulls_first(),)


def over_one(x):
    if x is None:
        return None
    return 1 if x > 1.0 else 0


@dataclass(frozen=True)
class Case:
    name: str
    body: Callable
    late: Callable
    expect: str | None
    predicate: str | None = None
    udfs: tuple = ()


CASES = [
    Case("limit by amount desc (NaN first): amount > 999 keeps the top, moves below", top(8, desc_amount),
         lambda: F.col("amount") > 999.0, EQUIVALENT, "amount > 999.0"),
    Case("limit by amount desc: amount < 5 keeps the bottom, must not", top(8, desc_amount),
         lambda: F.col("amount") < 5.0, None),
    Case("limit by amount desc: isnan(amount) keeps NaN, which sorts first, moves below", top(8, desc_amount),
         lambda: F.isnan("amount"), EQUIVALENT, "isnan(amount)"),
    Case("limit by amount asc, NULLs first: NULL or below zero keeps a prefix, -0.0 with 0.0 excluded",
         top(12, asc_nulls_first), lambda: F.col("amount").isNull() | (F.col("amount") < 0.0), EQUIVALENT,
         "amount IS NULL OR amount < 0.0"),
    Case("limit by amount asc: amount <= 0 keeps -0.0 and 0.0 alike, a prefix after the NULLs is not one",
         top(12, asc_nulls_first), lambda: F.col("amount") <= 0.0, None),
    Case("limit by amount desc: amount - amount = 0 drops NaN and the infinities, which sort first, must not",
         top(8, desc_amount), lambda: (F.col("amount") - F.col("amount")) == 0.0, None),
    Case("limit by amount desc: a Python UDF comparing the amount as Python does, must not",
         top(8, desc_amount), lambda: F.udf(over_one, IntegerType())(F.col("amount")) == 1, None,
         udfs=(udf_record("over_one", over_one),)),
    Case("limit by amount desc: the amount conjunct moves below, the store conjunct stays above",
         top(8, desc_amount), lambda: (F.col("amount") >= 999.5) & (F.col("store") == "s1"), SUPERSET,
         "amount >= 999.5"),
    Case("orderBy without a limit: any filter moves below", lambda s: s[0].orderBy(F.col("amount").desc()),
         lambda: F.col("amount") < 5.0, EQUIVALENT, "amount < 5.0"),
    Case("the same order with a limit: amount < 5.0 is no prefix of the descending order, must not",
         top(8, desc_amount), lambda: F.col("amount") < 5.0, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_sort_on_double_key_case(spark, case: Case):
    sources = [spark.createDataFrame(rows(), SCHEMA)]
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original, case.udfs)
    check_pushdown(walk, sources, case.body, case.late, case.expect,
                   predicates=[case.predicate] if case.predicate else None)
    if case.expect is None:
        assert walk.refusals, "a refusal says why"
        naive = case.body([sources[0].filter(case.late())]).filter(case.late())
        assert bag(naive) != bag(original), "the data should show why the late filter cannot move"
    else:
        assert bag(original), "the data should keep some rows, or the comparison proves little"
