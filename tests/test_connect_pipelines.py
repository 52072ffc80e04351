"""The engine's pipeline cases on a classic session and on a Spark Connect session.

Each case is one pipeline, built the same way on both sessions: a body over small source tables
and a late filter. On each session the pipeline's plans are read by that session's backend (the
JVM's analyzed plans for classic, the Connect relations resolved against the server's schemas for
Connect), the late filter is walked toward the sources, and the engine must conclude the same on
both: push with the expected kind, or not push. Every case that pushes also runs the original and
the rewritten pipeline on that session and compares the output bags. Every family has a case that
pushes and a near neighbour that must not.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import pytest

from magicpush_lab.capture.classic import ClassicBackend
from magicpush_lab.capture.connect import ConnectBackend
from magicpush_lab.capture.plan_store import PlanStore
from magicpush_lab.capture.trace import Event, Trace
from magicpush_lab.ir import plan as P
from magicpush_lab.pipeline import translate
from magicpush_lab.pushdown import late_filter, push_down
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET
from tests.connect_support import connect_mode, connect_server, connect_spark  # noqa: F401 - fixtures
from tests.engine.harness import bag, rewritten_pipeline, udf_record

pytestmark = pytest.mark.spark


# ----------------------------------------------------------------------------- UDFs

def bonus(v):
    if v is None:
        return None
    if v > 500:
        return v + 5
    return v


def tier(v):
    if v is None:
        return 0
    elif v < 10:
        return 1
    elif v < 100:
        return 2
    return 3


# grouped map functions (applyInPandas), as in tests/engine/test_grouped_map.py
def keep_positive(pdf):
    pdf = pdf[pdf.v > 0]
    return pdf


def top_two(pdf):
    return pdf.sort_values("v", ascending=False).head(2)


def totals(pdf):
    return pdf.groupby("store", as_index=False).agg(total=("amount", "sum"))


_UDFS = {"bonus": (bonus, "int"), "tier": (tier, "int"), "keep_positive": (keep_positive, "struct"),
         "top_two": (top_two, "struct"), "totals": (totals, "struct")}
SALES = "v int, store string, amount double"


def udf(name: str, deterministic: bool = True):
    """The UDF as the session in use makes it (built inside the test: Connect and classic UDFs differ)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType

    made = F.udf(_UDFS[name][0], IntegerType(), useArrow=True)
    return made if deterministic else made.asNondeterministic()


# ----------------------------------------------------------------------------- data

def sales_rows(seed: int = 11) -> list[tuple]:
    rnd = random.Random(seed)
    rows = [(None, "a", 1.5), (0, None, 0.0), (-3, "b", -2.0), (1000, "c", 10.0), (1000, "c", 10.0),
            (996, "a", None), (995, "b", 3.0), (1, "a", 2.0), (401, "c", 4.0), (600, "b", 6.0)]
    rows += [(rnd.choice([None, rnd.randint(-50, 1200)]), rnd.choice(["a", "b", "c", None]),
              rnd.choice([None, round(rnd.uniform(-10, 10), 2)])) for _ in range(60)]
    return rows


def basket_rows(seed: int = 7) -> list[tuple]:
    """Arrays with NULL elements, empty and NULL arrays: what explode and explode_outer differ on."""
    rnd = random.Random(seed)
    rows = [(1, "a", [1, 2, 3]), (2, "a", []), (3, "b", None), (4, None, [None, 7]), (5, "c", [9, 9]),
            (None, "b", [0]), (6, "c", [12, None, -4])]
    rows += [(rnd.choice([None, rnd.randint(0, 40)]), rnd.choice(["a", "b", "c", None]),
              rnd.choice([None, [], [rnd.choice([None, rnd.randint(-5, 15)]) for _ in range(rnd.randint(1, 4))]]))
             for _ in range(40)]
    return rows


TABLES = {
    "baskets": ("id int, store string, items array<int>", basket_rows()),
    "sales": ("v int, store string, amount double", sales_rows()),
    "sales2": ("v int, store string, amount double", sales_rows(5)),
    "stores": ("store string, region string", [("a", "north"), ("b", "south"), ("c", "north"), (None, "east"),
                                               ("d", None)]),
}


# ----------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    family: str
    title: str
    body: Callable  # (source DataFrames) -> the DataFrame before the late filter
    late: Callable  # () -> Column
    expect: str | None  # EQUIVALENT, SUPERSET, or None: nothing may be pushed
    udfs: tuple[str, ...] = ()
    tables: tuple[str, ...] = ("sales",)


def F():
    from pyspark.sql import functions

    return functions


def W():
    from pyspark.sql import Window

    return Window


CASES = [
    # RowTransform: Python UDFs and expressions
    Case("RowTransform", "filter on a UDF output pushes as the source predicate",
         lambda s: s[0].withColumn("score", udf("bonus")(F().col("v"))),
         lambda: F().col("score") > 1000, EQUIVALENT, ("bonus",)),
    Case("RowTransform", "the same UDF made nondeterministic: nothing moves",
         lambda s: s[0].withColumn("score", udf("bonus", deterministic=False)(F().col("v"))),
         lambda: F().col("score") > 1000, None, ("bonus",)),
    Case("RowTransform", "an elif chain compared with a literal pushes its branch conditions",
         lambda s: s[0].withColumn("t", udf("tier")(F().col("v"))),
         lambda: F().col("t") == 2, EQUIVALENT, ("tier",)),
    Case("RowTransform", "arithmetic in withColumns, the late filter on the result",
         lambda s: s[0].withColumns({"w": F().col("v") * 2 + 1, "u": F().upper(F().col("store"))}),
         lambda: (F().col("w") > 100) & (F().col("u") == "A"), EQUIVALENT),
    Case("RowTransform", "a filter on a column made by a limit's neighbour: the limit stops it",
         lambda s: s[0].limit(20).withColumn("w", F().col("v") * 2),
         lambda: F().col("w") > 100, None),
    Case("RowTransform", "select with an alias and a double",
         lambda s: s[0].select("v", (F().col("amount") * 2).alias("a2")),
         lambda: F().col("a2") > 5.0, EQUIVALENT),
    Case("RowTransform", "when/otherwise with a NULL branch",
         lambda s: s[0].withColumn("band", F().when(F().col("v") > 500, F().lit("high"))
                                   .when(F().col("v").isNull(), F().lit(None)).otherwise(F().lit("low"))),
         lambda: F().col("band") == "high", EQUIVALENT),
    Case("RowTransform", "epoch seconds as a timestamp (deterministic, no time zone): a filter on v passes",
         lambda s: s[0].withColumns({"ts": F().timestamp_seconds(F().col("v")),
                                     "ms": F().unix_millis(F().timestamp_millis(F().col("v")))}),
         lambda: F().col("v") > 10, EQUIVALENT),
    Case("RowTransform", "a filter on the converted value itself stays: the conversions are never written "
         "into a predicate",
         lambda s: s[0].withColumn("ms", F().unix_millis(F().timestamp_millis(F().col("v")))),
         lambda: F().col("ms") > 100, None),
    # DropColumn
    Case("DropColumn", "drop, then a filter on a kept column",
         lambda s: s[0].drop("amount"), lambda: F().col("v") > 10, EQUIVALENT),
    Case("DropColumn", "withColumnRenamed, then a filter on the new name",
         lambda s: s[0].withColumnRenamed("v", "w"), lambda: F().col("w") > 10, EQUIVALENT),
    Case("DropColumn", "a sample under the projection: nothing moves",
         lambda s: s[0].sample(0.5, seed=3).drop("amount"), lambda: F().col("v") > 10, None),
    # InnerJoin and the other joins
    Case("InnerJoin", "a filter on the right input's column moves to it",
         lambda s: s[0].join(s[1], "store"), lambda: F().col("region") == "north", EQUIVALENT,
         tables=("sales", "stores")),
    Case("InnerJoin", "a join on a condition between the inputs' columns",
         lambda s: s[0].join(s[1].withColumnRenamed("store", "sname"), F().col("store") == F().col("sname")),
         lambda: (F().col("region") == "south") & (F().col("v") > 100), SUPERSET, tables=("sales", "stores")),
    Case("LeftOuterJoin", "a left join: a filter on the right input's column IS NULL must stay",
         lambda s: s[0].join(s[1], "store", "left"), lambda: F().col("region").isNull(), None,
         tables=("sales", "stores")),
    Case("LeftOuterJoin", "a left join: a filter on the left input's column moves",
         lambda s: s[0].join(s[1], "store", "left"), lambda: F().col("v") > 500, EQUIVALENT,
         tables=("sales", "stores")),
    Case("SemiJoin", "a left semi join passes a filter on its columns",
         lambda s: s[0].join(s[1], "store", "left_semi"), lambda: F().col("v") > 500, EQUIVALENT,
         tables=("sales", "stores")),
    # GroupBy, distinct, dropDuplicates
    Case("GroupBy", "a filter on the grouping key moves below the aggregate",
         lambda s: s[0].groupBy("store").agg(F().sum("v").alias("t"), F().count("*").alias("n")),
         lambda: F().col("store") == "a", EQUIVALENT),
    Case("GroupBy", "a filter on a sum of integers stays",
         lambda s: s[0].groupBy("store").agg(F().sum("v").alias("t")),
         lambda: F().col("t") > 100, None),
    Case("GroupBy", "distinct, then a filter on a column",
         lambda s: s[0].select("store", "v").distinct(), lambda: F().col("v") > 5, EQUIVALENT),
    Case("GroupBy", "dropDuplicates on a subset: a filter on another column stays",
         lambda s: s[0].dropDuplicates(["store"]), lambda: F().col("v") > 5, None),
    # TopK and Reorder
    Case("TopK", "the top rows by v, a filter keeping a prefix of that order",
         lambda s: s[0].filter(F().col("v").isNotNull()).orderBy(F().desc("v"), "amount", "store").limit(5),
         lambda: F().col("v") > 900, EQUIVALENT),
    Case("TopK", "the bottom rows by v: the same filter is no prefix and stays",
         lambda s: s[0].filter(F().col("v").isNotNull()).orderBy(F().asc("v"), "amount", "store").limit(5),
         lambda: F().col("v") > 900, None),
    Case("Reorder", "orderBy and repartition pass a filter",
         lambda s: s[0].orderBy("v").repartition(3), lambda: F().col("v") > 3, EQUIVALENT),
    # Union
    Case("Union", "a filter after a union moves to both inputs",
         lambda s: s[0].union(s[1]), lambda: F().col("v") > 10, SUPERSET, tables=("sales", "sales2")),
    Case("Union", "a union under a limit: nothing moves",
         lambda s: s[0].union(s[1]).limit(7), lambda: F().col("v") > 10, None, tables=("sales", "sales2")),
    # Window: window functions in withColumn and select
    Case("Window", "row_number over a partition: a filter on the partition key moves below it",
         lambda s: s[0].withColumn("r", F().row_number().over(W().partitionBy("store").orderBy("v", "amount"))),
         lambda: F().col("store") == "a", EQUIVALENT),
    Case("Window", "row_number over a partition: a filter on the row number stays",
         lambda s: s[0].withColumn("r", F().row_number().over(W().partitionBy("store").orderBy("v", "amount"))),
         lambda: F().col("r") == 1, None),
    Case("Window", "a partition's max in a select: the key conjunct moves, the one on v stays",
         lambda s: s[0].select("v", F().max("amount").over(W().partitionBy("store")).alias("top"), "store"),
         lambda: (F().col("store") == "b") & (F().col("v") > 0), SUPERSET),
    Case("Window", "a partition's sum: a filter on the sum stays",
         lambda s: s[0].withColumn("t", F().sum("v").over(W().partitionBy("store"))),
         lambda: F().col("t") > 1000, None),
    Case("Window", "rank, a running count and a moving min over one window, beside a computed column",
         lambda s: s[0].withColumns({
             "k": F().rank().over(W().partitionBy("store").orderBy(F().desc("v"))),
             "w": F().col("v") + 1,
             "n": F().count("*").over(W().partitionBy("store").orderBy(F().desc("v"))),
             "lo": F().min("amount").over(W().partitionBy("store").orderBy(F().desc("v")).rowsBetween(-1, 1))}),
         lambda: F().col("store").isin("a", "c"), EQUIVALENT),
    Case("Window", "lag and lead: a filter on the partition key moves",
         lambda s: s[0].withColumns({"prev": F().lag("v").over(W().partitionBy("store").orderBy("v", "amount")),
                                     "next2": F().lead("amount", 2, 0.0).over(
                                         W().partitionBy("store").orderBy("v", "amount"))}),
         lambda: F().col("store") == "c", EQUIVALENT),
    Case("Window", "lag: a filter on the previous row's value stays",
         lambda s: s[0].withColumn("prev", F().lag("v").over(W().partitionBy("store").orderBy("v", "amount"))),
         lambda: F().col("prev") > 500, None),
    Case("Window", "partitioned by upper(store), a sum of v * 2: the filter moves as the key's test",
         lambda s: s[0].withColumn("t", F().sum(F().col("v") * 2).over(
             W().partitionBy(F().upper("store")).orderBy("v", "amount"))),
         lambda: F().col("store") == "a", SUPERSET),
    Case("Window", "partitioned by v % 3: a filter on the store, not the key, stays",
         lambda s: s[0].select(F().sum("amount").over(W().partitionBy(F().col("v") % 3)).alias("x"), "store"),
         lambda: F().col("store") == "a", None),
    # RowExpand: explode and posexplode
    Case("RowExpand", "explode in a select: a filter on a kept input column moves below it",
         lambda s: s[0].select("id", "store", F().explode("items").alias("item")),
         lambda: F().col("store") == "a", EQUIVALENT, tables=("baskets",)),
    Case("RowExpand", "explode in withColumn: a filter on the element pushes as an exists over the array",
         lambda s: s[0].withColumn("item", F().explode("items")),
         lambda: F().col("item") > 5, SUPERSET, tables=("baskets",)),
    Case("RowExpand", "explode_outer: a filter on the element IS NULL stays (empty and NULL arrays give it)",
         lambda s: s[0].withColumn("item", F().explode_outer("items")),
         lambda: F().col("item").isNull(), None, tables=("baskets",)),
    Case("RowExpand", "posexplode: a filter on the position stays",
         lambda s: s[0].select("id", F().posexplode("items").alias("p", "item")),
         lambda: F().col("p") == 0, None, tables=("baskets",)),
    Case("RowExpand", "posexplode_outer, unaliased: a filter on the id moves",
         lambda s: s[0].select("*", F().posexplode_outer("items")),
         lambda: F().col("id") > 3, EQUIVALENT, tables=("baskets",)),
    # Expand: rollup and cube
    Case("Expand", "rollup: a filter on the key moves below it, the late filter drops the total row",
         lambda s: s[0].rollup("store").agg(F().sum("v").alias("t"), F().count("*").alias("n")),
         lambda: F().col("store") == "a", SUPERSET),
    Case("Expand", "rollup: a filter on a rolled-up sum stays",
         lambda s: s[0].rollup("store").agg(F().sum("v").alias("t")),
         lambda: F().col("t") > 100, None),
    Case("Expand", "cube over two keys: a filter on one key moves",
         lambda s: s[0].cube("store", "v").agg(F().max("amount").alias("m")),
         lambda: F().col("store") == "b", SUPERSET),
    Case("Expand", "cube: a filter on a key IS NULL stays (the rolled-up rows have it NULL)",
         lambda s: s[0].cube("store", "v").agg(F().max("amount").alias("m")),
         lambda: F().col("store").isNull(), None),
    # GroupedMap: groupBy().applyInPandas
    Case("GroupedMap", "applyInPandas with a per-group filter: a filter on the key moves",
         lambda s: s[0].groupBy("store").applyInPandas(keep_positive, SALES),
         lambda: F().col("store") == "a", EQUIVALENT, ("keep_positive",)),
    Case("GroupedMap", "applyInPandas with sort and head: a filter on a per-row column stays",
         lambda s: s[0].groupBy("store").applyInPandas(top_two, SALES),
         lambda: F().col("v") > 900, None, ("top_two",)),
    Case("GroupedMap", "applyInPandas with a pandas aggregation: a filter on the key moves",
         lambda s: s[0].groupBy("store").applyInPandas(totals, "store string, total double"),
         lambda: F().col("store") == "c", EQUIVALENT, ("totals",)),
    Case("GroupedMap", "applyInPandas with a pandas aggregation: a filter on the total stays",
         lambda s: s[0].groupBy("store").applyInPandas(totals, "store string, total double"),
         lambda: F().col("total") > 5, None, ("totals",)),
    # fillna and dropna
    Case("RowTransform", "fillna with one number, then a filter on a filled column",
         lambda s: s[0].fillna(0), lambda: F().col("v") > 10, EQUIVALENT),
    Case("RowTransform", "fillna with a value per column, then a filter on a filled string",
         lambda s: s[0].fillna({"store": "z", "amount": 0.5}),
         lambda: (F().col("store") == "z") & (F().col("amount") < 1.0), EQUIVALENT),
    Case("Filter", "dropna, then a filter on a column",
         lambda s: s[0].dropna(subset=["v", "amount"]), lambda: F().col("v") > 10, EQUIVALENT),
    Case("Filter", "dropna above a limit: the filter passes the dropna, not the limit",
         lambda s: s[0].limit(20).dropna(how="all"), lambda: F().col("v") > 10, None),
]


def family_counts() -> Counter:
    return Counter(c.family for c in CASES)


# ----------------------------------------------------------------------------- running a case

class _Plans:
    """The plans of a case's events, read by one backend into one store, as the tracer reads them."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.store = PlanStore()
        self.encoder = backend.plan_encoder(self.store)

    def event(self, i: int, op: str, df, inputs=(), udfs=()) -> Event:
        return Event(id=i, op=op, inputs=tuple(inputs), plan=self.encoder.encode(self.backend.plan_handle(df)),
                     udfs=tuple(udfs))


def _plan(case: Case, session, backend):
    """(source DataFrames, the case's IR) on `session`."""
    sources = [session.createDataFrame(TABLES[t][1], TABLES[t][0]) for t in case.tables]
    final = case.body(sources).filter(case.late())
    plans = _Plans(backend)
    events = [plans.event(i, "createDataFrame", s) for i, s in enumerate(sources)]
    records = tuple(udf_record(n, _UDFS[n][0], return_type=_UDFS[n][1]) for n in case.udfs)
    events.append(plans.event(len(sources), "filter", final, range(len(sources)), records))
    return sources, translate(Trace(events=tuple(events), plans=plans.store), len(sources))


def operators(plan) -> list[str]:
    return [P.operator_name(n) for n in P.nodes(plan)]


def _run(case: Case, session, backend) -> None:
    sources, plan = _plan(case, session, backend)
    late = late_filter(plan)
    assert late is not None
    walk = push_down(late)
    if case.expect is None:
        assert walk.pushed == [], f"must not push, pushed {[str(p.predicate) for p in walk.pushed]}"
        return
    assert walk.pushed, f"expected a pushdown; refusals: {walk.refusals}"
    assert {p.kind for p in walk.pushed} == {case.expect}
    rewritten = rewritten_pipeline(walk, sources, case.body, case.late, case.expect == SUPERSET)
    assert bag(rewritten) == bag(case.body(sources).filter(case.late()))


@pytest.mark.parametrize("case", CASES, ids=[f"{c.family}: {c.title}" for c in CASES])
def test_classic(case: Case, spark) -> None:
    _run(case, spark, ClassicBackend())


@pytest.mark.parametrize("case", CASES, ids=[f"{c.family}: {c.title}" for c in CASES])
def test_connect(case: Case, connect_spark, spark) -> None:  # noqa: F811 - the fixture
    """Also: the Connect plan reads as the same operators as the classic plan of the same code."""
    _, classic = _plan(case, spark, ClassicBackend())
    with connect_mode():
        _, connect = _plan(case, connect_spark, ConnectBackend())
        assert operators(connect) == operators(classic)
        _run(case, connect_spark, ConnectBackend())


def test_every_family_has_a_case_that_pushes_and_one_that_must_not() -> None:
    pushes = {c.family for c in CASES if c.expect is not None}
    stays = {c.family for c in CASES if c.expect is None}
    assert pushes == set(family_counts()), set(family_counts()) - pushes
    assert {"RowTransform", "DropColumn", "GroupBy", "TopK", "Union", "LeftOuterJoin", "Window", "RowExpand",
            "Expand", "GroupedMap", "Filter"} <= stays


@pytest.mark.parametrize("body, reason", [
    (lambda s: s[0].withColumn("r", F().nth_value("v", 2).over(W().partitionBy("store").orderBy("v"))),
     "window function nth_value"),
    (lambda s: s[0].withColumn("r", F().row_number().over(W().partitionBy("store").orderBy("v")) + 1),
     "a window function"),
    (lambda s: s[0].withColumns({"r": F().row_number().over(W().partitionBy("store").orderBy("v")),
                                 "t": F().sum("v").over(W().partitionBy("store"))}),
     "window functions over different partitions or orders"),
    (lambda s: s[0].rollup("store").agg((F().sum("v") + 1).alias("t")), "rollup/cube with an expression"),
    (lambda s: s[0].fillna(0.5), "fillna of the integer column v with 0.5"),
    (lambda s: s[0].selectExpr("v", "store", "v * 2 AS w"), "an SQL expression string"),
    (lambda s: s[0].withColumn("d", F().regexp_extract("store", "(a)", 1)), "function regexp_extract"),
], ids=["nth_value", "window in an expression", "two windows", "rollup expression", "fillna cast", "selectExpr",
        "regexp_extract"])
def test_what_connect_does_not_read_is_a_barrier_that_says_why(body, reason, connect_spark):  # noqa: F811
    """Not read on Connect yet: the step is a barrier naming the reason, and nothing moves through it
    (on a classic session most of these push the filter on the store)."""
    case = Case("barrier", reason, body, lambda: F().col("store") == "a", None)
    with connect_mode():
        _, plan = _plan(case, connect_spark, ConnectBackend())
        [other] = [n for n in P.nodes(plan) if isinstance(n, P.Other)]
        assert "Spark Connect" in other.reason and reason in other.reason, other.reason
        assert push_down(late_filter(plan)).pushed == []
