"""distinct() and dropDuplicates() over every column read as a GroupBy keyed on all columns.

A filter above a distinct reads only group keys, so it moves below unchanged (equivalent).
Each push runs the original and the rewritten pipeline on Spark and compares bags.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.verify.verdict import EQUIVALENT

from .harness import check_pushdown, run_engine

SESSIONS = ("classic", "connect")
# what the Connect reader does not read yet (tests/engine/conftest.py: expected to fail there)
CONNECT_GAPS = {
    'distinct: a filter drawing random numbers stays':
        'rand() is not read on Spark Connect: the late filter is a barrier (nothing moves, as the case wants), but the case needs a filter to walk',
}

SCHEMA = "id int, dept int, score double"


def rows() -> list[tuple]:
    rnd = random.Random(7)
    base = [(1, 3, 10.0), (1, 3, 10.0), (2, 3, None), (2, 4, 5.0), (None, 4, 5.0), (None, 4, 5.0)]
    return base + [(rnd.choice([None, *range(5)]), rnd.choice([None, 3, 4, 5]),
                    rnd.choice([None, float(rnd.randint(0, 20))])) for _ in range(60)]


@dataclass(frozen=True)
class Case:
    name: str
    body: Callable
    late: Callable
    expect: str | None


CASES = [
    Case("distinct: a filter on a column moves below it", lambda s: s[0].distinct(),
         lambda: F.col("score") > 6, EQUIVALENT),
    Case("distinct after a projection: a filter on a computed column moves below both",
         lambda s: s[0].select("dept", (F.col("score") * 2).alias("s2")).distinct(),
         lambda: (F.col("s2") > 8) & (F.col("dept") != 4), EQUIVALENT),
    Case("dropDuplicates() on all columns behaves as distinct", lambda s: s[0].dropDuplicates(),
         lambda: F.col("id").isNull() | (F.col("dept") == 3), EQUIVALENT),
    # must not push: a nondeterministic filter draws other numbers for other rows
    Case("distinct: a filter drawing random numbers stays", lambda s: s[0].distinct(),
         lambda: F.rand(3) > 0.5, None),
    # dropDuplicates on a subset of the columns: tests/engine/test_deduplicate_pipelines.py
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_distinct_case(spark, case: Case):
    sources = [spark.createDataFrame(rows(), SCHEMA)]
    walk = run_engine(sources, case.body(sources).filter(case.late()))
    check_pushdown(walk, sources, case.body, case.late, case.expect)
