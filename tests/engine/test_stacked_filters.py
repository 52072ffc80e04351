"""A filter right above other filters is also walked joined with them (pushdown/walk.stacked),
as Spark's CombineFilters joins them: together they can tell apart rows that each alone cannot.

After an unpivot, `year > 2005` alone is true for some made row of every input row (nothing to
push) and `revenue > 2000` alone is "some year's column above 2000"; joined, only the later
year's column is tested at the read. Every pipeline filter stays in place (the suggestion is a
superset pushdown), so each case compares the bags of the original and of the pipeline with
the pushed predicates applied at the read; the neighbours must not join what the upper filter
cannot see or what is not deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.pushdown.walk import push_down_all
from magicpush_lab.rewrite.pyspark_column import to_column

from .harness import bag, late_filter, translate_pipeline

SCHEMA = "store string, v2005 double, v2006 double"
ROWS = [("A", 2500.0, 1000.0), ("A", 2500.0, 1000.0), ("B", None, 3000.0), (None, 2100.0, None), ("C", None, None),
        ("D", 1500.0, 2500.0), ("E", 3000.0, 3000.0), ("F", 100.0, None)]


def by_year(s):
    melted = s[0].unpivot(["store"], ["v2005", "v2006"], "name", "revenue")
    return melted.withColumn("year", F.regexp_extract("name", r"v(\d+)", 1).cast("int"))


@dataclass(frozen=True)
class Case:
    title: str
    body: Callable
    late: Callable
    predicates: tuple[str, ...]  # the late filter's predicates at the read


CASES = [
    Case("a late filter on the value right above a filter on the year: only the later year's column is tested",
         lambda s: by_year(s).filter(F.col("year") > 2005),
         lambda: F.col("revenue") > 2000, ("v2006 > 2000.0",)),
    Case("the two filters with a sort between them: joined the same way",
         lambda s: by_year(s).filter(F.col("year") > 2005).orderBy("store"),
         lambda: F.col("revenue") > 2000, ("v2006 > 2000.0",)),
    Case("must not join: the year is dropped between the filters, so the upper one cannot see it",
         lambda s: by_year(s).filter(F.col("year") > 2005).drop("year", "name"),
         lambda: F.col("revenue") > 2000, ("v2005 > 2000.0 OR v2006 > 2000.0",)),
    Case("must not join: a nondeterministic filter below, which nothing passes, joined or not",
         lambda s: by_year(s).filter(F.rand(3) < 2.0),
         lambda: F.col("revenue") > 2000, ()),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_stacked_filter_case(spark, case: Case):
    sources = [spark.createDataFrame(ROWS, SCHEMA)]
    original = case.body(sources).filter(case.late())
    plan = translate_pipeline(sources, original)
    late = late_filter(plan)
    walk = push_down_all(late)
    at_read = [p for p in walk.pushed if p.late_filter.origin == late.origin]
    assert tuple(str(p.predicate) for p in at_read) == case.predicates, [str(p.predicate) for p in walk.pushed]
    filtered = sources[0]
    for p in walk.pushed:  # every pipeline filter stays: each pushed predicate is applied at the read
        filtered = filtered.filter(to_column(p.predicate))
    assert bag(case.body([filtered]).filter(case.late())) == bag(original)
    assert bag(original), "the data should keep some rows, or the comparison proves little"


@pytest.mark.parametrize("n", [1, 4, 16])
def test_a_chain_of_filters_makes_one_joined_walk_not_one_per_filter(monkeypatch, n):
    """A notebook that drops values one `.filter` at a time: every filter is walked once on its
    own, and only the top one joined with those below it (n + 2 walks for n + 1 filters, where a
    joined walk per filter would be 2n + 1, each as long as the chain)."""
    from magicpush_lab.ir import expr as X
    from magicpush_lab.ir import plan as P
    from magicpush_lab.pushdown import walk as W

    k, v, w = X.Col("k", 1, "string"), X.Col("v", 2, "int"), X.Col("w", 3, "int")
    plan: P.Plan = P.Project(P.Source("t", (k, v)), ((k, k), (v, v), (w, X.Arith("+", v, X.Lit(1, "int"), "int"))))
    for i in range(n):
        plan = P.Filter(plan, X.Not(X.Cmp("=", k, X.Lit(f"c{i}", "string"))))
    plan = P.Filter(plan, X.Cmp(">", w, X.Lit(5, "int")))
    walked = []
    inner = W.push_down
    monkeypatch.setattr(W, "push_down", lambda node, budget=None: walked.append(node) or inner(node, budget))
    result = W.push_down_all(plan)
    assert len(walked) == n + 2
    assert max(len(X.conjuncts(f.condition)) for f in walked) == n + 1
    assert result.pushed, "the joined filter reaches the source"
