"""FULLOUTERJ pushdowns on real Spark plans: what must push through a full outer join, what
must not, equal outputs for every push, and real differences for every counterexample.

Each case is data: a pipeline body over `orders` (k, v, s) and `stores` (rk, region, y),
a late filter and what the engine must conclude. Every case that pushes runs the original
and the rewritten pipeline on the same rows (NULL keys, duplicates, unmatched keys on both
sides) and compares the output bags; when the join step was proved equivalent, the pushed
predicates together must also replace the late filter. Every refused candidate that comes
with a counterexample is run on it, original against rewritten, and must differ.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown import late_filter
from magicpush_lab.rewrite.pyspark_column import to_column
from magicpush_lab.budget import Budget
from magicpush_lab.pushdown.operators import candidates_for
from magicpush_lab.verify.full_outer_join import CATEGORY
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, rewritten_pipeline, run_engine, translate_pipeline

SESSIONS = ("classic", "connect")

ORDERS_SCHEMA = "k int, v int, s string"
STORES_SCHEMA = "rk int, region string, y int"


def orders_rows(seed: int = 11) -> list[tuple]:
    rnd = random.Random(seed)
    rows = [(1, 5, "a"), (1, 2, "b"), (2, None, "c"), (3, 7, None), (4, 1, "a"), (4, 1, "a"),
            (None, 9, "b"), (None, None, None), (6, 10, "c"), (8, 4, "d")]
    rows += [(rnd.choice([None, rnd.randint(0, 9)]), rnd.choice([None, rnd.randint(-5, 12)]),
              rnd.choice([None, "a", "b", "c"])) for _ in range(60)]
    return rows


def stores_rows(seed: int = 12) -> list[tuple]:
    rnd = random.Random(seed)
    rows = [(1, "north", 3), (2, "south", None), (2, "north", 6), (4, None, 8), (5, "east", 1),
            (None, "north", 2), (7, "west", None), (8, None, None), (8, None, None)]
    rows += [(rnd.choice([None, rnd.randint(0, 12)]), rnd.choice([None, "north", "south", "east"]),
              rnd.choice([None, rnd.randint(-5, 12)])) for _ in range(30)]
    return rows


def on_key(s):
    """Full outer join on an explicit condition: both key columns stay in the output."""
    return s[0].join(s[1], F.col("k") == F.col("rk"), "full")


def using_key(s):
    """`join(..., "k", "full")`: Spark outputs the key as coalesce(orders.k, stores.k)."""
    return s[0].join(s[1].withColumnRenamed("rk", "k"), "k", "full")


def less_than(s):
    """A non-equi full outer join: a left row matches every right row with a larger key."""
    return s[0].join(s[1], F.col("k") < F.col("rk"), "full")


@dataclass(frozen=True)
class Case:
    title: str
    body: Callable  # (orders, stores) -> DataFrame before the late filter
    late: Callable  # () -> Column
    expect: str | None  # SUPERSET, or None when nothing may be pushed
    predicates: tuple[str, ...] | None = None  # expected predicates, per source reached
    join_equivalent: bool = False  # the full outer join step is proved equivalent
    counterexample: bool = False  # a must-not case whose refusal carries a counterexample


CASES = [
    # pushes
    Case("filter on a left column: pushed to the left input only, late filter kept",
         on_key, lambda: F.col("v") > 3, SUPERSET, ("v > 3",)),
    Case("filter on a right column: pushed to the right input only, late filter kept",
         on_key, lambda: F.col("region") == "north", SUPERSET, ("region = 'north'",)),
    Case("IS NOT NULL on a right column: padded left rows fail it, pushed to the right input",
         on_key, lambda: F.col("region").isNotNull(), SUPERSET, ("region IS NOT NULL",)),
    Case("filter on the left key of an explicit join: pushed to the left input only",
         on_key, lambda: F.col("k") > 3, SUPERSET, ("k > 3",)),
    Case("conjuncts on both inputs: each input gets its own, late filter kept",
         on_key, lambda: (F.col("v") > 3) & (F.col("region") == "north"), SUPERSET,
         ("v > 3", "region = 'north'")),
    Case("filter on the coalesced key of a using-join: pushed to both inputs, the join step equivalent",
         using_key, lambda: F.col("k") > 3, SUPERSET, ("k > 3", "rk > 3"), join_equivalent=True),
    Case("IS NULL on the coalesced key: only rows with a NULL key pass, pushed to both inputs, equivalent",
         using_key, lambda: F.col("k").isNull(), SUPERSET, ("k IS NULL", "rk IS NULL"), join_equivalent=True),
    Case("coalesced key and a left column: the key's bound also reaches the right input",
         using_key, lambda: (F.col("k") > 3) & (F.col("v") < 8), SUPERSET, ("k > 3 AND v < 8", "rk > 3")),
    Case("coalesce of both keys with a fallback: NULL keys take the fallback on both inputs, equivalent",
         on_key, lambda: F.coalesce(F.col("k"), F.col("rk"), F.lit(5)) > 3, SUPERSET,
         ("coalesce(k, 5) > 3", "coalesce(rk, 5) > 3"), join_equivalent=True),
    Case("join on k < rk, filter on coalesce(k, rk): only the right input's bound is safe to push",
         less_than, lambda: F.coalesce(F.col("k"), F.col("rk")) > 3, SUPERSET, ("rk > 3",)),
    # must not push
    Case("IS NULL on a left column: removing a left row pads its right match, which passes",
         on_key, lambda: F.col("v").isNull(), None, counterexample=True),
    Case("IS NULL on a right column: removing a right row pads its left match, which passes",
         on_key, lambda: F.col("region").isNull(), None, counterexample=True),
    Case("coalesce of a left column with a constant: padded right rows pass it, nothing pushed",
         on_key, lambda: F.coalesce(F.col("v"), F.lit(0)) < 5, None, counterexample=True),
    Case("coalesce of two non-key columns: a matched row passes on either input's value, nothing pushed",
         on_key, lambda: F.coalesce(F.col("v"), F.col("y")) > 3, None, counterexample=True),
    Case("disjunction across the inputs: nothing is pushed",
         on_key, lambda: (F.col("v") > 3) | (F.col("region") == "north"), None, counterexample=True),
    Case("comparison of a left and a right column: no candidate, nothing is pushed",
         on_key, lambda: F.col("v") > F.col("y"), None),
]


def _sources(spark):
    return [spark.createDataFrame(orders_rows(), ORDERS_SCHEMA),
            spark.createDataFrame(stores_rows(), STORES_SCHEMA)]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_full_outer_join_case(spark, case: Case):
    sources = _sources(spark)
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original)

    if case.expect is None:
        assert walk.pushed == [], f"must not push, pushed {[str(p.predicate) for p in walk.pushed]}"
        refused = [r for r in walk.refusals if r.operator == "FullOuterJoin"]
        assert refused, f"the full outer join should be where the walk stops: {walk.refusals}"
        if case.counterexample:
            _assert_counterexample_differs(spark, case, refused[0])
        return
    assert walk.pushed, f"expected a pushdown; refusals: {walk.refusals}"
    assert {p.kind for p in walk.pushed} == {case.expect}
    assert all(any(s.category == CATEGORY for s in p.steps) for p in walk.pushed)
    if case.predicates is not None:
        assert [str(p.predicate) for p in walk.pushed] == list(case.predicates)
    equivalent_steps = all(s.kind == EQUIVALENT for p in walk.pushed for s in p.steps)
    assert equivalent_steps == case.join_equivalent

    # each predicate alone, then all together, with the late filter kept
    for pushed in [[p] for p in walk.pushed] + [walk.pushed]:
        part = type(walk)(pushed=pushed)
        rewritten = rewritten_pipeline(part, sources, case.body, case.late, superset=True)
        assert bag(rewritten) == bag(original)
    if case.join_equivalent:
        # proved equivalent together: the predicates at the sources replace the late filter
        rewritten = rewritten_pipeline(walk, sources, case.body, case.late, superset=False)
        assert bag(rewritten) == bag(original)
    assert len(bag(original)) > 0, "the case's data should keep some rows, or the comparison proves little"


def _assert_counterexample_differs(spark, case: Case, refusal) -> None:
    """Run the refused candidate on its counterexample: original and rewritten must differ."""
    assert refusal.counterexample, f"a refused candidate should carry a counterexample: {refusal}"
    sources = _sources(spark)
    plan = translate_pipeline(sources, case.body(sources).filter(case.late()))
    late = late_filter(plan)
    node, pred = late.child, late.condition
    while isinstance(node, P.Project):  # F as the walk sees it at the join
        pred, node = X.substitute(pred, dict(node.outputs)), node.child
    assert isinstance(node, P.OuterJoin) and node.preserved == "both"
    assert all(isinstance(c, P.Source) for c in node.children), "the join must read the sources directly"
    pair = next(c.predicates for c in candidates_for(node, pred, Budget())
                if ", ".join(str(x) for x in c.predicates if x is not None) == refusal.candidate)
    tables = []
    for name, schema in (("input 1", ORDERS_SCHEMA), ("input 2", STORES_SCHEMA)):
        columns = [c.split()[0] for c in schema.split(", ")]
        rows = [tuple(r[c] for c in columns) for r in refusal.counterexample[name]]
        tables.append(spark.createDataFrame(rows, schema))
    filtered = [t.filter(to_column(g)) if g is not None else t for t, g in zip(tables, pair)]
    before = bag(case.body(tables).filter(case.late()))
    after = bag(case.body(filtered).filter(case.late()))
    assert before != after, f"{refusal.counterexample} shows no difference for {refusal.candidate}"


# A Python UDF between the join and the late filter runs on the rows the pushdown pads anew: it
# may do so only when it raises for no argument at all (verify/model_gaps.udf_on_padded_rows)
def labelled(s: str | None) -> str:
    return str(s).replace("-", "")


def label_stripped(s: str | None) -> str:
    return s.replace("-", "")  # raises on the NULL a padded row brings


def labelled_pipeline(fn):
    from pyspark.sql.types import StringType

    def body(s):
        return on_key(s).withColumn("label", F.udf(fn, StringType())(F.col("region")))
    return body


@dataclass(frozen=True)
class UdfCase:
    title: str
    fn: Callable
    pushes: bool


UDF_CASES = [
    UdfCase("a UDF that never raises (str of NULL is 'None') runs on padded rows: the filter pushes", labelled, True),
    UdfCase("a UDF that raises on NULL (None.replace) must not meet padded rows: nothing pushed", label_stripped, False),
]


@pytest.mark.parametrize("case", UDF_CASES, ids=[c.title for c in UDF_CASES])
def test_python_udf_above_full_outer_join(spark, case: UdfCase):
    from .harness import check_pushdown, udf_record

    sources = _sources(spark)
    body, late = labelled_pipeline(case.fn), (lambda: F.col("label") == "north")
    original = body(sources).filter(late())
    walk = run_engine(sources, original, (udf_record(case.fn.__name__, case.fn, return_type="string"),))
    if not case.pushes:
        assert walk.pushed == [] and walk.refusals
        assert any("NULL-pad" in r.reason for r in walk.refusals), walk.refusals
        return
    check_pushdown(walk, sources, body, late, SUPERSET)
    assert len(bag(original)) > 0
