"""Double arithmetic of the late filter, computed at the source from the same values.

Doubles are reals in the model, so a pushed predicate must keep every double `+ - *` the
late filter depends on (verify/model_gaps.py). Kept means the same doubles from the same
values: through a rename or a projection the predicate computes the late filter's expression
over the source's columns, and that is the same computation, not a real-number identity. A
predicate that replaced the arithmetic by what it equals over the reals, or that computes
it over other values (after an aggregate), is refused. Each push runs the original and the
rewritten pipeline on Spark and compares bags over data with NaN, infinities, -0.0 and NULL.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.verify.model_gaps import DOUBLE_GAP
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, check_pushdown, run_engine

SESSIONS = ("classic", "connect")

SCHEMA = "id int, amount double, store string"
PRICES = "pid int, price double"
NAN, INF = float("nan"), float("inf")


def rows() -> list[tuple]:
    rnd = random.Random(37)
    out = [(1, NAN, "X1"), (2, INF, "s"), (3, -INF, "X2"), (4, -0.0, "s"), (5, None, "X3"), (6, 250.0, None)]
    out += [(10 + i, rnd.choice([None, NAN, INF, 0.0, float(rnd.randint(-50, 400))]), rnd.choice(["s", "X", None]))
            for i in range(50)]
    return out + out[:3]


def prices() -> list[tuple]:
    return [(1, 10.0), (2, NAN), (3, 300.0), (4, None), (5, -INF), (5, 80.0)]


def renamed(s):
    return s[0].withColumnRenamed("amount", "amt").withColumn("gross", F.col("amt") * 1.2)


def projected(s):
    return s[0].withColumn("gross", F.col("amount") * 1.2)


def unioned(s):
    return s[0].select(F.col("amount").alias("v")).union(s[1].select(F.col("price").alias("w")))


def projected_bottom(s):
    return projected(s).orderBy("gross", "id").limit(2)


def unioned_limited(s):
    return unioned(s).limit(3)


def zeroed(s):
    return s[0].withColumnRenamed("amount", "amt").withColumn("z", F.lit(0.0) * F.col("amt"))


def maxed(s):
    return s[0].groupBy("store").agg(F.max("amount").alias("top"))


@dataclass(frozen=True)
class Case:
    name: str
    body: Callable
    late: Callable
    expect: str | None
    predicates: tuple[str, ...] | None = None
    refusal: str | None = None  # a refusal reason that must start so


CASES = [
    Case("a rename, then double arithmetic on the renamed column: the same doubles at the source", renamed,
         lambda: F.col("gross") > 100.0, EQUIVALENT, ("(amount * 1.2) > 100.0",)),
    Case("arithmetic in the filter on a computed column: both products at the source", projected,
         lambda: (F.col("gross") * 2.0) > 300.0, EQUIVALENT, ("((amount * 1.2) * 2.0) > 300.0",)),
    Case("a union of two tables: each input computes its own column's product", unioned,
         lambda: (F.col("v") * 2.0) > 100.0, SUPERSET, ("(amount * 2.0) > 100.0", "(price * 2.0) > 100.0")),
    Case("the same product under the two smallest rows: no prefix of the order, must not", projected_bottom,
         lambda: (F.col("gross") * 2.0) > 300.0, None),
    Case("the same union under a limit: which rows the limit keeps changes, must not", unioned_limited,
         lambda: (F.col("v") * 2.0) > 100.0, None),
    Case("0.0 * amt < 3.0 read as a NULL test over the reals (false for NaN and infinities): must not", zeroed,
         lambda: F.when(F.col("store").startswith("X"), F.col("id").isNull()).otherwise(F.col("z") < 3.0), None,
         refusal=DOUBLE_GAP),
    Case("arithmetic on an aggregate is not the same doubles as on each row: must not", maxed,
         lambda: (F.col("top") * 0.5) < 3.0, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_double_arithmetic_case(spark, case: Case):
    sources = [spark.createDataFrame(rows(), SCHEMA), spark.createDataFrame(prices(), PRICES)]
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original)
    check_pushdown(walk, sources, case.body, case.late, case.expect, predicates=case.predicates)
    if case.expect is None:
        assert walk.refusals, "a refusal says why"
        if case.refusal:
            assert any(r.reason.startswith(case.refusal) for r in walk.refusals), walk.refusals
    else:
        assert bag(original), "the data should keep some rows, or the comparison proves little"
