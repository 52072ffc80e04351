"""Run an IR plan on Spark: the differential tests' second, independent executor.

Covers the operators the differential shapes use. Columns are addressed by
name, so a plan's columns must have distinct names (the shapes' do); Python
UDFs are built from their source.
"""

from __future__ import annotations

import functools
import textwrap
from typing import Any

from pyspark.sql import Window
from pyspark.sql import functions as F

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.rewrite.pyspark_column import to_column

_SPARK_TYPES = {"int": "int", "long": "bigint", "string": "string", "double": "double", "boolean": "boolean",
                "date": "date"}


def schema_of(cols: tuple[X.Col, ...]) -> str:
    return ", ".join(f"{c.name} {_SPARK_TYPES[c.dtype]}" for c in cols)


def dataframe(spark, plan: P.Plan, tables: dict[int, list[dict]]):
    """The plan as a DataFrame over `tables` (a Source's origin -> rows keyed by (name, id))."""
    if isinstance(plan, P.Source):
        rows = [tuple(r[(c.name, c.id)] for c in plan.output) for r in tables[plan.origin]]
        return spark.createDataFrame(rows, schema_of(plan.output))
    if isinstance(plan, P.Filter):
        return dataframe(spark, plan.child, tables).filter(column(plan.condition))
    if isinstance(plan, P.Project):
        return dataframe(spark, plan.child, tables).select(*(column(e).alias(c.name) for c, e in plan.outputs))
    if isinstance(plan, P.InnerJoin):
        return dataframe(spark, plan.left, tables).join(dataframe(spark, plan.right, tables),
                                                         column(plan.condition), "inner")
    if isinstance(plan, P.OuterJoin):
        how = "full" if plan.preserved == "both" else plan.preserved
        return dataframe(spark, plan.left, tables).join(dataframe(spark, plan.right, tables),
                                                         column(plan.condition), how)
    if isinstance(plan, P.Union):
        frames = [dataframe(spark, i, tables) for i in plan.inputs]
        return functools.reduce(lambda a, b: a.union(b), frames).toDF(*(c.name for c in plan.output))
    if isinstance(plan, P.Aggregate) and plan.deduplicate:
        return dataframe(spark, plan.child, tables).dropDuplicates([k.name for k in plan.keys]) \
            .select(*(c.name for c in plan.output))
    if isinstance(plan, P.Window):
        spec = Window.partitionBy(*(column(k) for k in plan.partition))
        if plan.order:
            spec = spec.orderBy(*(_sort_key(column(e), asc, nulls_first) for e, asc, nulls_first in plan.order))
        made = [_window_function(call, spec).alias(c.name) for c, call in zip(plan.computed, plan.calls)]
        return dataframe(spark, plan.child, tables).select("*", *made)
    reduce = reduce_of(plan)
    if reduce is not None:  # what it was read from: the pairs' RDD folded by reduceByKey
        (_, key), (_, agg) = plan.outputs
        pairs = dataframe(spark, plan.child, tables).select(column(key).alias("k"), column(agg.arg).alias("v"))
        folded = pairs.rdd.map(lambda r: (r[0], r[1])).reduceByKey(_function(reduce.source))
        return spark.createDataFrame(folded, schema_of(plan.output))
    if isinstance(plan, P.Aggregate):
        grouped = dataframe(spark, plan.child, tables).groupBy(*(column(k) for k in plan.keys))
        made = [column(e).alias(c.name) for c, e in plan.outputs if any(isinstance(n, X.Agg) for n in X.walk(e))]
        # keys only (a distinct): Spark's agg() wants at least one aggregate
        made = made or [F.count(F.lit(1)).alias("_rows")]
        return grouped.agg(*made).select(*(c.name for c in plan.output))
    if isinstance(plan, P.TopK):
        order = [_sort_key(column(e), asc, nulls_first) for e, asc, nulls_first in plan.order]
        return dataframe(spark, plan.child, tables).orderBy(*order).limit(plan.k)
    if isinstance(plan, P.Expand):
        made = F.array(*(F.struct(*(column(e).alias(c.name) for c, e in row.items())) for row in plan.rows()))
        return dataframe(spark, plan.child, tables).select(F.explode(made).alias("made")).select("made.*")
    if isinstance(plan, P.GroupedMap):
        fn = _function(plan.source)
        return dataframe(spark, plan.child, tables).groupBy(*(column(k) for k in plan.keys)) \
            .applyInPandas(fn, schema_of(plan.output))
    raise NotImplementedError(f"no Spark form for {type(plan).__name__} in the differential tests")


def rows_of(df, cols: tuple[X.Col, ...]) -> list[dict]:
    """Collected rows keyed like the reference evaluator's, by (name, id)."""
    return [{(c.name, c.id): r[c.name] for c in cols} for r in df.collect()]


def column(e: X.Expr) -> Any:
    return to_column(e, udf=_udf)


def _window_function(call: P.WindowCall, spec: Any) -> Any:
    """A WindowCall as the PySpark window function over `spec` with its frame."""
    args = [column(a) for a in call.args]
    if call.fn in ("row_number", "rank", "dense_rank"):
        return getattr(F, call.fn)().over(spec)
    if call.fn in ("lag", "lead"):
        return getattr(F, call.fn)(args[0], abs(call.lower or 1)).over(spec)
    unbounded = (Window.unboundedPreceding, Window.unboundedFollowing)
    bounds = (unbounded[0] if call.lower is None else call.lower, unbounded[1] if call.upper is None else call.upper)
    framed = spec.rowsBetween(*bounds) if call.rows else spec.rangeBetween(*bounds)
    fn = {"count": F.count, "sum": F.sum, "max": F.max, "min": F.min, "first": F.first, "last": F.last,
          "avg": F.avg}[call.fn]
    if call.fn in ("first", "last"):
        return fn(args[0], ignorenulls=call.skips_nulls).over(framed)
    return fn(args[0] if args else F.lit(1)).over(framed)


def _sort_key(c: Any, asc: bool, nulls_first: bool) -> Any:
    if asc:
        return c.asc_nulls_first() if nulls_first else c.asc_nulls_last()
    return c.desc_nulls_first() if nulls_first else c.desc_nulls_last()


def _udf(e: X.PyUdf) -> Any:
    return _compiled(e.source, _SPARK_TYPES[e.dtype])


@functools.lru_cache(maxsize=None)
def _compiled(source: str, return_type: str) -> Any:
    return F.udf(_function(source), return_type)


@functools.lru_cache(maxsize=None)
def reduce_of(plan: P.Plan) -> X.PyUdf | None:
    """The function of `rdd.reduceByKey(f)` when `plan` is the fold translate/rdd.py reads it as:
    one key, the key and the fold as its outputs."""
    if not isinstance(plan, P.Aggregate) or len(plan.keys) != 1 or len(plan.outputs) != 2:
        return None
    agg = plan.outputs[1][1]
    return agg.fold.reduce if isinstance(agg, X.Agg) and agg.fold is not None else None


def _function(source: str) -> Any:
    """The last function `source` defines."""
    namespace: dict[str, Any] = {}
    exec(compile(textwrap.dedent(source), "<udf>", "exec"), namespace)  # test executor only
    return [v for k, v in namespace.items() if callable(v) and not k.startswith("__")][-1]
