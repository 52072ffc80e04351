"""A user-defined aggregation written as a reduce: the paper's Figure 1(2).

In PySpark the reduce is `aggregate(collect_list(x), zero, (acc, x) -> merge)` inside
`groupBy().agg()`. The engine proves from the merge itself that the order of the rows
does not matter (pre-condition (1)), builds the replacement row of pre-condition (2)
from it, and then checks the category's other conditions like for a built-in max.
Each case that pushes compares the original and rewritten pipelines on Spark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import Column
from pyspark.sql import functions as F

from magicpush_lab.ir import expr as X
from magicpush_lab.pushdown import check
from magicpush_lab.rewrite.pyspark_column import to_column
from magicpush_lab.verify.verdict import EQUIVALENT

from .harness import bag, run_engine, translate_pipeline

ROWS = [(1, 2000.0), (1, 5.0), (2, 10.0), (2, None), (3, None), (4, -3.0), (5, 1500.0), (5, 1500.0),
        (6, 999.0), (6, 1001.0), (None, 3000.0)]


@dataclass(frozen=True)
class Case:
    title: str
    zero: float | None
    merge: Callable[[Column, Column], Column]
    bound: float
    expect: str | None
    predicate: str | None = None
    reason: str = ""  # a part of the refusal's reason, for the naive candidate


CASES = [
    Case("max written as a reduce pushes like max (Figure 1(2))", 0.0, lambda v, r: F.greatest(v, r), 1000, EQUIVALENT,
         "revenue > cast(1000 as double)"),
    Case("a NULL start value changes nothing for a bound above it", None, lambda v, r: F.greatest(v, r), 1000, EQUIVALENT,
         "revenue > cast(1000 as double)"),
    Case("the start value passes the filter: a group of NULLs keeps its row, nothing pushed",
         0.0, lambda v, r: F.greatest(v, r), -5, None, reason="base case"),
    Case("min written as a reduce: a small row lowers the result, nothing pushed",
         1e9, lambda v, r: F.least(v, r), 1000, None, reason="pre-condition"),
    Case("a sum written as a reduce is Listing 1 again", 0.0, lambda v, r: v + r, 1000, None,
         reason="pre-condition (3)"),
    Case("a merge whose result depends on the row order is refused by pre-condition (1)",
         0.0, lambda v, r: v * 2 + r, 1000, None, reason="pre-condition (1)"),
]


def _pipeline(df, case: Case):
    zero = F.lit(case.zero).cast("double")
    folded = F.aggregate(F.collect_list("revenue"), zero, case.merge).alias("mx")
    return df.groupBy("month").agg(folded)


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_fold_aggregate_case(spark, case: Case):
    sales = spark.createDataFrame(ROWS, "month int, revenue double")
    original = _pipeline(sales, case).filter(F.col("mx") > case.bound)
    walk = run_engine([sales], original)

    if case.expect is None:
        assert walk.pushed == [], [str(p.predicate) for p in walk.pushed]
        # the naive candidate, the late filter on the reduced column, is refused for the case's reason
        plan = translate_pipeline([sales], original)
        op, late = plan.child, plan.condition
        mx, revenue = op.output[1], op.child.output[1]
        naive = check(op, late, (X.substitute(late, {mx: revenue}),), EQUIVALENT)
        assert not naive.proved and case.reason in naive.reason, naive.reason
        return
    assert [(str(p.predicate), p.kind) for p in walk.pushed] == [(case.predicate, case.expect)]
    rewritten = _pipeline(sales.filter(to_column(walk.pushed[0].predicate)), case)
    assert bag(rewritten) == bag(original) and bag(original)
