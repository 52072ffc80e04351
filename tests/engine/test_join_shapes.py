"""Joins beyond the inner equi-join: cross joins, semi and anti joins, and late filters whose
disjunctions read both inputs (TPC-H Q7 and Q19).

Each case that pushes runs the original and the rewritten pipeline on Spark and compares
the bags; each has a neighbour that must not push.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, rewritten_pipeline, run_engine

NATIONS = [(1, "FRANCE"), (2, "GERMANY"), (3, "PERU"), (4, None), (5, "FRANCE"), (6, "GERMANY"), (8, "GERMANY"),
           (9, None), (None, None)]
CUSTOMERS = [(1, "FRANCE"), (1, "GERMANY"), (2, "FRANCE"), (3, "GERMANY"), (4, "PERU"), (5, None),
             (6, "FRANCE"), (6, "FRANCE"), (None, "GERMANY"), (7, "FRANCE")]


@dataclass(frozen=True)
class Case:
    title: str
    body: Callable  # (list of the two sources) -> DataFrame before the late filter
    late: Callable  # () -> Column
    expect: str | None
    predicates: dict[int, str] | None = None  # source index -> pushed predicate


def _pair(s):
    return s[0].join(s[1], s[0].k == s[1].ck)


def _q7(x: str, y: str):
    return ((F.col("name") == x) & (F.col("cname") == y)) | ((F.col("name") == y) & (F.col("cname") == x))


CASES = [
    Case("a disjunction over both inputs gives each input its own disjunction (Q7's nation pair)",
         _pair, lambda: _q7("FRANCE", "GERMANY"), SUPERSET,
         {0: "name = 'FRANCE' OR name = 'GERMANY'", 1: "cname = 'GERMANY' OR cname = 'FRANCE'"}),
    Case("a disjunct without a part on the left gives the left nothing, the right still its part",
         _pair, lambda: ((F.col("name") == "FRANCE") & (F.col("cname") == "GERMANY")) | (F.col("cname") == "PERU"),
         SUPERSET, {1: "cname = 'GERMANY' OR cname = 'PERU'"}),
    Case("a comparison between the inputs says nothing about either: nothing pushed",
         _pair, lambda: F.col("name") == F.col("cname"), None),
    Case("a cross join is an inner join on TRUE: each input gets its conjunct",
         lambda s: s[0].crossJoin(s[1]), lambda: (F.col("name") == "PERU") & (F.col("ck") > 3), SUPERSET,
         {0: "name = 'PERU'", 1: "ck > 3"}),
    Case("a cross join, filter comparing the inputs: nothing pushed",
         lambda s: s[0].crossJoin(s[1]), lambda: F.col("k") < F.col("ck"), None),
    Case("a semi join keeps left rows: a filter on them moves below it unchanged",
         lambda s: s[0].join(s[1], s[0].k == s[1].ck, "left_semi"), lambda: F.col("name") == "FRANCE", EQUIVALENT,
         {0: "name = 'FRANCE'"}),
    Case("an anti join likewise, NULL names included",
         lambda s: s[0].join(s[1], s[0].k == s[1].ck, "left_anti"), lambda: F.col("name").isNull(), EQUIVALENT,
         {0: "name IS NULL"}),
    Case("a semi join, a nondeterministic late filter: nothing pushed",
         lambda s: s[0].join(s[1], s[0].k == s[1].ck, "left_semi"), lambda: F.rand(7) < 0.5, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_join_shape(spark, case: Case):
    sources = [spark.createDataFrame(NATIONS, "k int, name string"),
               spark.createDataFrame(CUSTOMERS, "ck int, cname string")]
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original)

    if case.expect is None:
        assert walk.pushed == [], [str(p.predicate) for p in walk.pushed]
        return
    assert {p.kind for p in walk.pushed} == {case.expect}, walk.refusals
    assert {p.source.origin: str(p.predicate) for p in walk.pushed} == case.predicates
    rewritten = rewritten_pipeline(walk, sources, case.body, case.late, case.expect == SUPERSET)
    assert bag(rewritten) == bag(original) and bag(original)
