"""TPC-H at a tiny scale: the naive pipelines compute what the specification's SQL computes,
the parity benchmark's comparison holds up, and what the engine pushes keeps the results.

The tables are generated once into a temporary folder (scale factor 0.01, a few seconds);
without the `tpchgen-cli` command the Spark tests are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from benchmarks.tpch import bench, data, queries
from magicpush_lab.ir import expr as X

SCALE = 0.01

needs_generator = pytest.mark.skipif(not data.generator_available(),
                                     reason="tpchgen-cli is not installed (pip install tpchgen-cli)")


@pytest.fixture(scope="module")
def tpch(spark, tmp_path_factory):
    """The eight tables as DataFrames (also as temp views for the SQL), and their files."""
    paths = data.ensure_tables(SCALE, tmp_path_factory.mktemp("tpch"))
    tables = data.read_tables(spark, paths)
    for name, df in tables.items():
        df.createOrReplaceTempView(name)
    return tables, paths


# ----------------------------------------------------------------------------- pipelines against SQL

@pytest.mark.slow  # the benchmark's own queries against the specification (about a minute): slow tier
@needs_generator
@pytest.mark.parametrize("number", sorted(queries.QUERIES))
def test_naive_pipeline_returns_the_rows_of_the_spec_sql(spark, tpch, number):
    tables, _ = tpch
    # numbers compared as floats: the pipeline may compute in doubles where the SQL uses decimals
    assert bench.same_rows(queries.QUERIES[number](tables), spark.sql(queries.SQL[number]))


# ----------------------------------------------------------------------------- the implication check

V = X.Col("l_quantity", 1, "int")
W = X.Col("l_tax", 2, "int")
NAME = X.Col("p_name", 3, "string")


def gt(c, k):
    return X.Cmp(">", c, X.Lit(k, "int"))


def like(c, pattern):
    return X.Func("like", (c, X.Lit(pattern, "string")), "boolean")


@dataclass(frozen=True)
class VerdictCase:
    name: str
    engine: tuple[X.Expr, ...]
    spark: tuple[X.Expr, ...]
    verdict: str
    ignored: tuple[str, ...] = ()


VERDICT_CASES = [
    VerdictCase("same predicate", (gt(V, 5),), (gt(V, 5),), "engine = Spark"),
    VerdictCase("stronger bound implies Spark's", (gt(V, 7),), (gt(V, 5),), "engine > Spark"),
    VerdictCase("weaker bound misses Spark's", (gt(V, 3),), (gt(V, 5),), "engine misses l_quantity > 5"),
    VerdictCase("nothing pushed misses everything", (), (gt(V, 5), gt(W, 1)),
                "engine misses l_quantity > 5 AND l_tax > 1"),
    VerdictCase("other column is not implied", (gt(W, 5),), (gt(V, 5),), "engine misses l_quantity > 5"),
    VerdictCase("a comparison implies its column's isnotnull", (gt(V, 5),), (X.IsNotNull(V), gt(V, 5)),
                "engine = Spark"),
    VerdictCase("isnotnull on a join key is ignored, and said so", (gt(V, 5),), (X.IsNotNull(W), gt(V, 5)),
                "engine = Spark", ("l_tax IS NOT NULL",)),
    VerdictCase("a black box implies the same black box", (like(NAME, "%a%b%"),), (like(NAME, "%a%b%"),),
                "engine = Spark"),
    VerdictCase("a black box never implies another one", (like(NAME, "%a%b%"),), (like(NAME, "%b%a%"),),
                "engine misses like(p_name, '%b%a%')"),
    VerdictCase("a disjunct of the engine's is not Spark's conjunction",
                (X.Or((gt(V, 5), gt(W, 5))),), (gt(V, 5),), "engine misses l_quantity > 5"),
]


@pytest.mark.parametrize("case", VERDICT_CASES, ids=lambda c: c.name)
def test_compare_table_verdict(case):
    got = bench.compare_table("t", case.engine, case.spark)
    assert (got.verdict, got.ignored) == (case.verdict, case.ignored)


def test_columns_of_two_scans_are_compared_by_name():
    # the engine's predicate and Spark's speak of different scans' ids of one table
    assert bench.implies((gt(X.Col("l_quantity", 10, "int"), 7),), gt(X.Col("l_quantity", 99, "int"), 5))


# ----------------------------------------------------------------------------- the benchmark on Spark

@dataclass(frozen=True)
class BenchCase:
    name: str
    number: int
    at_parity: bool | None  # None: whatever the engine does today, the comparison must run
    scans: tuple[str, ...] = ()  # the relation instances Spark's plan must show, when given


BENCH_CASES = [
    BenchCase("a filter right on the scan is Spark's filter", 1, True),
    BenchCase("conjuncts split over a three-way join", 3, True),
    BenchCase("one table, decimal and date bounds", 6, True),
    BenchCase("per-table disjunctions of a cross-table OR; two scans of nation told apart", 7, None,
              ("customer", "lineitem", "nation", "nation#2", "orders", "supplier")),
    BenchCase("a filter above a semi join", 4, None),
    BenchCase("a predicate in an outer join condition", 13, None),
]


@needs_generator
@pytest.mark.parametrize("case", BENCH_CASES, ids=lambda c: c.name)
def test_bench_compares_engine_and_spark(spark, tpch, case):
    tables, paths = tpch
    result = bench.compare_query(spark, paths, case.number)
    assert not result.error, result.error
    assert result.optimizer_seconds is not None and result.tables
    known = ("engine = Spark", "engine > Spark", "engine misses")
    assert all(t.verdict.startswith(known) for t in result.tables)
    if case.at_parity is not None:
        assert result.at_parity == case.at_parity, bench.report([result])
    if case.scans:
        assert sorted(result.scans) == sorted(case.scans)
    # whatever reached the sources, the pipeline with it applied returns the same rows
    rewritten = bench.rewritten_tables(tables, result)
    if case.at_parity:
        assert result.pushed and rewritten is not None
    if result.pushed and rewritten is not None:
        original = queries.QUERIES[case.number](tables)
        assert bench.same_rows(original, queries.QUERIES[case.number](rewritten))
