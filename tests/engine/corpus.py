"""The pipeline cases of the engine tests, collected in one list for checks over the whole corpus.

Each test module keeps its cases as data (`Case(...)` lists) and builds its DataFrames in its
test function; `corpus()` builds every case the same way its module does and translates it,
so a check over all pipelines (tests/engine/test_baseline_selectivity.py) sees exactly what
the modules' own tests see. A case's `frames[i]` is the DataFrame behind the plan's sources
of origin `i` (the collected table of a loop UDF included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StructType

from magicpush_lab.ir import plan as P

from . import harness


@dataclass(frozen=True)
class CorpusCase:
    module: str
    title: str
    build: Callable  # spark -> (frames, plan)

    @property
    def id(self) -> str:
        return f"{self.module}: {self.title}"


def _translated(sources: list, final, udfs=()) -> tuple[list, P.Plan]:
    return list(sources), harness.translate_pipeline(sources, final, udfs)


def _row_to_row() -> list[CorpusCase]:
    from . import test_row_to_row_pipelines as m

    def build(case):
        def run(spark):
            sources = m._sources(spark, case)
            return _translated(sources, case.body(sources).filter(case.late()), [m.UDFS[u][1] for u in case.udfs])
        return run
    return [CorpusCase("row_to_row", c.title, build(c)) for c in m.CASES]


def _captured_constants() -> list[CorpusCase]:
    from . import test_captured_constants as m

    def build(case):
        def run(spark):
            sales = spark.createDataFrame(m.ROWS, "v int, store string")
            body = sales.withColumn("x", F.udf(case.fn, IntegerType())(F.col(case.column)))
            return _translated([sales], body.filter(case.late(F.col("x"))), [m._record(case.fn, case.with_constants)])
        return run
    return [CorpusCase("captured_constants", c.title, build(c)) for c in m.CASES]


def _fill_replace_cast() -> list[CorpusCase]:
    from . import test_fill_replace_cast_pipelines as m

    def build(case):
        def run(spark):
            sources = m._sources(spark, case)
            return _translated(sources, case.body(sources).filter(case.late()))
        return run
    return [CorpusCase("fill_replace_cast", c.title, build(c)) for c in m.CASES]


def _fold_aggregate() -> list[CorpusCase]:
    from . import test_fold_aggregate as m

    def build(case):
        def run(spark):
            sales = spark.createDataFrame(m.ROWS, "month int, revenue double")
            return _translated([sales], m._pipeline(sales, case).filter(F.col("mx") > case.bound))
        return run
    return [CorpusCase("fold_aggregate", c.title, build(c)) for c in m.CASES]


def _full_outer_join() -> list[CorpusCase]:
    from . import test_full_outer_join_pipelines as m

    def build(case):
        def run(spark):
            sources = m._sources(spark)
            return _translated(sources, case.body(sources).filter(case.late()))
        return run
    return [CorpusCase("full_outer_join", c.title, build(c)) for c in m.CASES]


def _grouped_map() -> list[CorpusCase]:
    from . import test_grouped_map as m

    def build(case):
        def run(spark):
            sources = [m._source(spark, case)]
            final = m._body(case)(sources).filter(case.late())
            return _translated(sources, final, [harness.udf_record(case.fn, m.FUNCTIONS[case.fn],
                                                                   return_type="struct")])
        return run

    def naive(case):
        def run(spark):
            source = spark.createDataFrame(case.rows, case.schema)
            schema = m.SCHEMAS.get(case.fn, m.SALES)
            final = source.groupBy("store").applyInPandas(m.FUNCTIONS[case.fn], schema).filter(case.late())
            return _translated([source], final, [harness.udf_record(case.fn, m.FUNCTIONS[case.fn])])
        return run
    return ([CorpusCase("grouped_map", c.title, build(c)) for c in m.CASES]
            + [CorpusCase("grouped_map", c.title, naive(c)) for c in m.NAIVE])


def _join_shapes() -> list[CorpusCase]:
    from . import test_join_shapes as m

    def frames(spark):
        return [spark.createDataFrame(m.NATIONS, "k int, name string"),
                spark.createDataFrame(m.CUSTOMERS, "ck int, cname string")]

    def with_late(case):
        def run(spark):
            sources = frames(spark)
            return _translated(sources, case.body(sources).filter(case.late()))
        return run

    def whole(case):
        def run(spark):
            sources = frames(spark)
            return _translated(sources, case.body(sources))
        return run
    return ([CorpusCase("join_shapes", c.title, with_late(c)) for c in m.CASES + m.TRANSFER]
            + [CorpusCase("join_shapes", c.title, whole(c)) for c in m.MIDDLE + m.CONDITIONS])


def _pandas_udf() -> list[CorpusCase]:
    from . import test_pandas_udf_pipelines as m

    def build(case):
        def run(spark):
            sources = m._source(spark, case)
            return _translated(sources, case.body(sources).filter(case.late()), [m.UDFS[u][1] for u in case.udfs])
        return run
    return [CorpusCase("pandas_udf", c.title, build(c)) for c in m.CASES]


def _pivot_unpivot() -> list[CorpusCase]:
    from . import test_pivot_unpivot as m

    def build(case):
        def run(spark):
            rows, schema = m.TABLES[case.table]
            sources = [spark.createDataFrame(rows(), schema)]
            return _translated(sources, case.body(sources).filter(case.late()))
        return run
    return [CorpusCase("pivot_unpivot", c.title, build(c)) for c in m.CASES]


def _row_iter() -> list[CorpusCase]:
    from . import test_row_iter_pipeline as m

    def build(case):
        def run(spark):
            rows = [r for r in m.sales_rows(case.price_type) if not case.complete or None not in r[3:]]
            sales = spark.createDataFrame(rows, m.schema(case.price_type))
            old = spark.createDataFrame(m.old_table_rows(case.price_type), m.schema(case.price_type))
            collected = old.select("id", "year", "store", "quantity", "price")
            final, _ = m._pipeline(case, sales, collected.collect(), case.title == m._CALLS_AGAIN)
            fn, return_type = m.UDFS[case.udf]
            record = harness.side_udf_record(case.udf, fn, (("old_rows", 1),), return_type)
            return [sales, collected], harness.translate_collected([sales], [collected], final, [record])
        return run
    return [CorpusCase("row_iter", c.title, build(c)) for c in m.CASES]


def _sargable() -> list[CorpusCase]:
    from . import test_sargable as m

    def build(case):
        def run(spark):
            sources = [spark.createDataFrame(case.rows or m.DATES, case.schema)]
            return _translated(sources, case.body(sources).filter(case.late()))
        return run
    return [CorpusCase("sargable", c.title, build(c)) for c in m.CASES]


def _predicate_search() -> list[CorpusCase]:
    from . import test_predicate_search as m

    def build(case):
        def run(spark):
            sources = m.groups(spark)
            return _translated(sources, case.body(sources).filter(case.late()), [m.UDFS[u][1] for u in case.udfs])
        return run
    return [CorpusCase("predicate_search", c.title, build(c)) for c in m.CASES]


def _counterexamples() -> list[CorpusCase]:
    """The traps' pipelines, over empty tables (their rows come from counterexamples)."""
    from . import test_counterexamples as m

    def build(trap):
        def run(spark):
            sources = [spark.createDataFrame([], StructType.fromDDL(s)) for s in trap.schemas]
            return _translated(sources, trap.body(sources).filter(trap.late))
        return run
    return [CorpusCase("counterexamples", t.name, build(t)) for t in m.TRAPS]


MODULES = (_row_to_row, _captured_constants, _fill_replace_cast, _fold_aggregate, _full_outer_join, _grouped_map,
           _join_shapes, _pandas_udf, _pivot_unpivot, _row_iter, _sargable, _predicate_search, _counterexamples)


def corpus() -> list[CorpusCase]:
    """Every pipeline case of the engine test modules."""
    return [case for module in MODULES for case in module()]
