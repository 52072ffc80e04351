"""Every category refuses a wrong candidate with a counterexample that is a real difference.

Each case is a trap in the sense of the paper's Section 2.2: a candidate G that looks
right (it often passes a check on one-row tables) but is wrong for some table. The
engine must refuse it, and the counterexample it returns must be input tables on which
the original pipeline and the rewritten one give different bags on Spark.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Callable, Union

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import DateType, DoubleType, StructType
from pyspark.sql.window import Window

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown import check
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET
from tests.engine.harness import bag, translate_pipeline

# a candidate: Spark SQL on that input, or the IR built from the operator (for lambdas the
# SQL parser gives but the plan translation does not read), or None for "no predicate"
Candidate = Union[str, Callable[[P.Plan], X.Expr], None]


@dataclass(frozen=True)
class Trap:
    name: str
    category: str
    schemas: tuple[str, ...]
    body: Callable[[list[DataFrame]], DataFrame]
    late: str
    candidate: tuple[Candidate, ...]
    kind: str


def _exists_above(threshold: int) -> Callable[[P.Plan], X.Expr]:
    def build(op: P.Plan) -> X.Expr:
        var = X.Col("x", 9_999_001, "int")
        return X.ArrayExists(op.array, var, X.Cmp(">", var, X.Lit(threshold, "int")))
    return build


TRAPS = [
    Trap("row-to-row: a NULL input gives an output the late filter keeps", "ROW-TO-ROW",
         ("x INT",), lambda t: t[0].withColumn("y", F.coalesce("x", F.lit(0)) + 1),
         "y >= 1", ("x >= 0",), EQUIVALENT),
    Trap("inner join: a bound moved across a non-equi condition one step too far", "ROW-TO-ROW",
         ("a INT", "b INT"), lambda t: t[0].join(t[1], F.col("a") < F.col("b")),
         "a > 10", (None, "b > 12"), SUPERSET),
    Trap("Listing 1: sum of a group is not bounded by one of its rows", "AGGREGATE",
         ("month INT, revenue DOUBLE",),
         lambda t: t[0].groupBy("month").agg(F.sum("revenue").alias("total")),
         "total > 1000", ("revenue > 1000",), EQUIVALENT),
    Trap("Listing 1 as a superset pushdown", "AGGREGATE",
         ("month INT, revenue DOUBLE",),
         lambda t: t[0].groupBy("month").agg(F.sum("revenue").alias("total")),
         "total > 1000", ("revenue > 1000",), SUPERSET),
    Trap("min is not bounded like max", "AGGREGATE",
         ("month INT, revenue DOUBLE",),
         lambda t: t[0].groupBy("month").agg(F.min("revenue").alias("low")),
         "low > 10", ("revenue > 10",), EQUIVALENT),
    Trap("cumulative sum: a filter that splits a partition changes the running total", "AGGREGATE",
         ("k INT, t INT, v INT",),
         lambda t: t[0].withColumn("run", F.sum("v").over(Window.partitionBy("k").orderBy("t"))),
         "t > 5", ("t > 5",), EQUIVALENT),
    Trap("Listing 2 as written: top 3 ascending, then v > 2", "TOPK",
         ("v INT",), lambda t: t[0].orderBy("v").limit(3), "v > 2", ("v > 2",), EQUIVALENT),
    Trap("Listing 2: the top 3 by score are not the top 3 of those in category a", "TOPK",
         ("category STRING, score INT",),
         lambda t: t[0].orderBy(F.col("score").desc()).limit(3),
         "category = 'a'", ("category = 'a'",), EQUIVALENT),
    Trap("Listing 3: removing the only match creates a NULL-padded row the filter keeps", "LEFTOUTERJ",
         ("k INT, a INT", "rk INT, v INT"),
         lambda t: t[0].join(t[1], F.col("k") == F.col("rk"), "left"),
         "v IS NULL OR v > 5", (None, "v > 5"), SUPERSET),
    Trap("left join: a left row without a match still reaches the output", "LEFTOUTERJ",
         ("k INT, a INT", "rk INT, v INT"),
         lambda t: t[0].join(t[1], F.col("k") == F.col("rk"), "left"),
         "a > 0", ("a > 1", None), SUPERSET),
    Trap("explode: the element decides, not the row", "ROW-EXPAND",
         ("k INT, arr ARRAY<INT>",),
         lambda t: t[0].select("k", F.explode("arr").alias("e")),
         "e > 3 AND k = 1", ("k = 1",), EQUIVALENT),
    Trap("explode_outer: the NULL element of an empty array passes an IS NULL test", "ROW-EXPAND",
         ("k INT, arr ARRAY<INT>",),
         lambda t: t[0].select("k", F.explode_outer("arr").alias("e")),
         "e > 3 OR e IS NULL", (_exists_above(3),), SUPERSET),
    Trap("Figure 2: an unpivoted value can come from either quarter", "ROW-EXPAND",
         ("id INT, q1 INT, q2 INT",),
         lambda t: t[0].unpivot("id", ["q1", "q2"], "quarter", "sales"),
         "sales > 10", ("q1 > 10",), SUPERSET),
]


@pytest.mark.parametrize("trap", TRAPS, ids=[t.name for t in TRAPS])
def test_wrong_candidate_is_refused_with_a_counterexample_spark_confirms(spark, trap: Trap):
    schemas = [StructType.fromDDL(s) for s in trap.schemas]
    empty = [spark.createDataFrame([], s) for s in schemas]
    op, late = _operator_and_late_filter(empty, trap)
    g = tuple(_candidate(c, empty[i], op) for i, c in enumerate(trap.candidate))

    verdict = check(op, late, g, trap.kind)

    assert not verdict.proved
    assert verdict.category == trap.category
    assert any(verdict.counterexample.values()), verdict.reason
    frames = [spark.createDataFrame(_rows(verdict.counterexample.get(f"input {i + 1}", []), s), s)
              for i, s in enumerate(schemas)]
    original = trap.body(frames).filter(trap.late)
    filtered = [_apply(f, c, op) for f, c in zip(frames, trap.candidate)]
    rewritten = trap.body(filtered)
    if trap.kind == SUPERSET:
        rewritten = rewritten.filter(trap.late)
    assert bag(original) != bag(rewritten), verdict.counterexample


def _operator_and_late_filter(sources: list[DataFrame], trap: Trap) -> tuple[P.Plan, X.Expr]:
    final = trap.body(sources).filter(trap.late)
    plan = translate_pipeline(sources, final)
    assert isinstance(plan, P.Filter)
    op = plan.child
    while isinstance(op, P.Project) and all(out == e for out, e in op.outputs):
        op = op.child  # withColumn over a window: a projection that only passes columns on
    return op, plan.condition


def _candidate(c: Candidate, source: DataFrame, op: P.Plan) -> X.Expr | None:
    if c is None:
        return None
    if callable(c):
        return c(op)
    plan = translate_pipeline([source], source.filter(c))
    assert isinstance(plan, P.Filter)
    return plan.condition


def _apply(frame: DataFrame, c: Candidate, op: P.Plan) -> DataFrame:
    if c is None:
        return frame
    if callable(c):
        from magicpush_lab.rewrite.pyspark_column import to_column
        return frame.filter(to_column(c(op)))
    return frame.filter(c)


def _rows(table: list[dict], schema: StructType) -> list[tuple]:
    """Counterexample rows as tuples in the schema's order. A column the proof never read can
    hold any value; it gets a non-NULL one, since a NULL would make aggregates skip it."""
    return [tuple(_value(row[f.name], f.dataType) if f.name in row else _any_value(f.dataType)
                  for f in schema.fields) for row in table]


def _value(v: object, dtype) -> object:
    if v is None:
        return None
    if isinstance(dtype, DateType):
        return dt.date.fromisoformat(v)
    if isinstance(dtype, DoubleType):
        return float(v)
    return v


def _any_value(dtype) -> object:
    name = dtype.simpleString()
    if name.startswith("array"):
        return []
    return {"string": "a", "double": 1.0, "boolean": True, "date": dt.date(2024, 1, 1)}.get(name, 1)


def test_listing_2_counterexample_has_the_four_rows_the_paper_says_are_needed(spark):
    trap = next(t for t in TRAPS if t.name.startswith("Listing 2 as written"))
    empty = [spark.createDataFrame([], StructType.fromDDL(s)) for s in trap.schemas]
    op, late = _operator_and_late_filter(empty, trap)
    verdict = check(op, late, (_candidate(trap.candidate[0], empty[0], op),), trap.kind)
    rows = verdict.counterexample["input 1"]
    # three rows the filter drops (NULL or at most 2) sort first, then one it keeps: the shape of
    # the paper's (NULL)(1)(2)(3)
    assert len(rows) == 4 and all(r["v"] is None or r["v"] <= 2 for r in rows[:3]) and rows[3]["v"] > 2
