"""Each PySpark API family, run in a traced IPython shell, becomes the IR operators it should.

One case per family: a few small notebook cells over tiny in-memory data, then the
pipeline's IR (parents before children) by the paper's operator names. A barrier
case also pins the reason it gives, since that reason is what the user reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.kernel.extension import load, unload
from magicpush_lab.pipeline import pipeline_plan
from tests.cells import run_cells

SETUP = (
    'from pyspark.sql import functions as F, Window\n'
    'from pyspark.sql.functions import pandas_udf\n'
    'people = spark.createDataFrame([(1, "a", 10.0, 3), (2, "b", None, 4)],'
    ' "id int, name string, score double, dept int")\n'
    'depts = spark.createDataFrame([(3, "x"), (5, "y")], "dept int, dname string")\n'
    'arr = people.withColumn("xs", F.array("id", "dept"))\n'
)

JOIN_ON_NAME = ["DropColumn", "{}", "Source", "Source"]  # Spark projects the shared key once


# GroupedData.apply is deprecated in favour of applyInPandas, and says so
pytestmark = pytest.mark.filterwarnings("ignore:It is preferred to use 'applyInPandas':UserWarning")


@dataclass(frozen=True)
class Case:
    name: str
    cells: tuple[str, ...]
    ops: tuple[str, ...]  # P.operator_name of every node, parents before children
    barrier: str | None = None  # a P.Other must give a reason containing this
    check: Callable | None = None  # (plan, trace) -> None, for what the names do not show
    xfail: str | None = None


def case(name, cells, ops, barrier=None, check=None, xfail=None) -> Case:
    return Case(name, (cells,) if isinstance(cells, str) else tuple(cells), tuple(ops), barrier, check, xfail)


def join(how: str, on: str = '"dept"') -> str:
    return f'out = people.join(depts, {on}, "{how}")'


def _udfs_have_source(kind: str):
    def check(plan, trace):
        calls = [x for n in P.nodes(plan) if isinstance(n, P.Project) for _, e in n.outputs for x in X.walk(e)
                 if isinstance(x, X.PyUdf)]
        assert calls and all(c.source and c.kind == kind for c in calls), calls
    return check


def _source_is(op: str):
    def check(plan, trace):
        origins = {trace.events[s.origin].op for s in P.sources(plan) if s.origin is not None}
        assert origins == {op}, origins
    return check


CASES = [
    # columns
    case("select", 'out = people.select("id", (F.col("score") * 2).alias("s2"))', ["RowTransform", "Source"]),
    case("selectExpr", 'out = people.selectExpr("id", "score * 2 AS s2")', ["RowTransform", "Source"]),
    case("withColumn", 'out = people.withColumn("s2", F.col("score") + 1)', ["RowTransform", "Source"]),
    case("withColumns", 'out = people.withColumns({"s2": F.col("score") + 1, "n": F.upper("name")})',
         ["RowTransform", "Source"]),
    case("withColumnRenamed", 'out = people.withColumnRenamed("score", "pts")', ["RowTransform", "Source"]),
    case("withColumnsRenamed", 'out = people.withColumnsRenamed({"score": "pts"})', ["RowTransform", "Source"]),
    case("drop", 'out = people.drop("score")', ["DropColumn", "Source"]),
    case("alias", 'out = people.alias("p").select("p.id")', ["DropColumn", "Source"]),
    case("toDF", 'out = people.toDF("a", "b", "c", "d")', ["RowTransform", "Source"]),
    case("getitem", ['out = people[["id", "name"]]', 'out = out[out.id > 1]'], ["Filter", "DropColumn", "Source"]),
    # filters
    case("filter Column", 'out = people.filter(F.col("score") > 5)', ["Filter", "Source"]),
    case("filter SQL string", 'out = people.filter("score > 5 AND name = \'a\'")', ["Filter", "Source"]),
    case("where", 'out = people.where(people.score > 5)', ["Filter", "Source"]),
    # joins: every `how` spelling Spark accepts
    *[case(f"join {how}", join(how), [op if x == "{}" else x for x in JOIN_ON_NAME])
      for how, op in [("inner", "InnerJoin"), ("cross", "InnerJoin"),
                      ("left", "LeftOuterJoin"), ("leftouter", "LeftOuterJoin"), ("left_outer", "LeftOuterJoin"),
                      ("right", "RightOuterJoin"), ("rightouter", "RightOuterJoin"),
                      ("right_outer", "RightOuterJoin"),
                      ("semi", "SemiJoin"), ("leftsemi", "SemiJoin"), ("left_semi", "SemiJoin"),
                      ("anti", "AntiJoin"), ("leftanti", "AntiJoin"), ("left_anti", "AntiJoin")]],
    # a full outer join on a name coalesces the two keys into one column
    *[case(f"join {how}", join(how), ["RowTransform", "FullOuterJoin", "Source", "Source"])
      for how in ("full", "outer", "fullouter", "full_outer")],
    case("join on an expression", 'out = people.join(depts, people.dept == depts.dept, "left")',
         ["LeftOuterJoin", "Source", "Source"]),
    case("join on a list of expressions", 'out = people.join(depts, [people.dept == depts.dept, people.id < 5])',
         ["InnerJoin", "Source", "Source"]),
    case("join anti on an expression", 'out = people.join(depts, people.dept == depts.dept, "left_anti")',
         ["AntiJoin", "Source", "Source"]),
    case("crossJoin", 'out = people.crossJoin(depts)', ["InnerJoin", "Source", "Source"]),
    case("join without a condition", 'out = people.join(depts)', ["InnerJoin", "Source", "Source"]),
    # aggregation
    case("groupBy agg Columns", 'out = people.groupBy("dept").agg(F.sum("score").alias("t"), F.count("*"))',
         ["GroupBy", "Source"]),
    case("groupBy agg dict", 'out = people.groupBy("dept").agg({"score": "max", "id": "count"})',
         ["GroupBy", "Source"]),
    case("groupBy shorthand", 'out = people.groupBy("dept").sum("score")', ["GroupBy", "Source"]),
    case("groupBy count", 'out = people.groupBy("dept").count()', ["GroupBy", "Source"]),
    case("DataFrame.agg", 'out = people.agg(F.max("score"))', ["GroupBy", "Source"]),
    case("rollup", 'out = people.rollup("dept").agg(F.sum("score"))',
         ["GroupBy", "UnPivot", "RowTransform", "Source"]),
    case("cube", 'out = people.cube("dept", "name").agg({"score": "sum"})',
         ["GroupBy", "UnPivot", "RowTransform", "Source"]),
    case("pivot with values", 'out = people.groupBy("dept").pivot("name", ["a", "b"]).agg(F.sum("score"))',
         ["Pivot", "Source"]),
    case("pivot without values", 'out = people.groupBy("dept").pivot("name").agg(F.sum("score"))',
         ["Pivot", "Source"]),
    case("distinct", 'out = people.distinct()', ["GroupBy", "Source"]),
    case("dropDuplicates", 'out = people.dropDuplicates()', ["GroupBy", "Source"]),
    case("dropDuplicates subset", 'out = people.dropDuplicates(["dept"])', ["Deduplicate", "Source"]),
    # reshaping
    case("unpivot", 'out = people.unpivot("id", ["score", "dept"], "k", "v")', ["UnPivot", "Source"]),
    case("melt", 'out = people.melt(ids=["id"], values=["score"], variableColumnName="k", valueColumnName="v")',
         ["UnPivot", "Source"]),
    case("explode", 'out = arr.select("id", F.explode("xs").alias("x"))',
         ["DropColumn", "RowExpand", "RowTransform", "Source"]),
    case("posexplode", 'out = arr.select("*", F.posexplode("xs"))',
         ["DropColumn", "RowExpand", "RowTransform", "Source"]),
    case("explode_outer", 'out = arr.withColumn("x", F.explode_outer("xs"))',
         ["DropColumn", "RowExpand", "RowTransform", "Source"]),
    case("inline", ['st = people.withColumn("ss", F.array(F.struct("id", "dept")))',
                    'out = st.select("name", F.inline("ss"))'],
         ["DropColumn", "RowExpand", "RowTransform", "Source"]),
    # windows, order, limits
    case("window", ['w = Window.partitionBy("dept").orderBy("score")',
                    'out = people.withColumn("r", F.row_number().over(w))'],
         ["DropColumn", "DropColumn", "CumAggr", "DropColumn", "Source"]),
    case("orderBy", 'out = people.orderBy(F.col("score").desc())', ["Reorder", "Source"]),
    case("sort", 'out = people.sort("score")', ["Reorder", "Source"]),
    case("orderBy limit", 'out = people.orderBy("score").limit(1)', ["TopK", "Source"]),
    case("limit", 'out = people.limit(1)', ["Other", "Source"], barrier="limit without a sort"),
    case("limit after a filter", 'out = people.filter("id > 1").limit(1)', ["Other", "Filter", "Source"],
         barrier="limit without a sort"),
    case("offset", 'out = people.offset(1)', ["Other", "Source"], barrier="depends on the order"),
    # unions and set operations
    case("union", 'out = people.union(people.filter("id > 1"))', ["Union", "Source", "Filter", "Source"]),
    case("unionAll", 'out = people.unionAll(people)', ["Union", "Source", "Source"]),
    case("unionByName", 'out = people.unionByName(people.select("name", "id", "score", "dept"))',
         ["Union", "Source", "DropColumn", "DropColumn", "Source"]),
    case("unionByName missing columns", 'out = people.unionByName(people.select("name", "id"), '
         'allowMissingColumns=True)', ["Union", "Source", "RowTransform", "DropColumn", "Source"]),
    case("intersect", 'out = people.intersect(people)', ["Other", "Source", "Source"], barrier="set operations"),
    case("subtract", 'out = people.subtract(people)', ["Other", "Source", "Source"], barrier="set operations"),
    # missing values
    case("fillna", 'out = people.fillna(0.0)', ["RowTransform", "Source"]),
    case("fillna dict", 'out = people.fillna({"score": 0.0, "name": "?"})', ["RowTransform", "Source"]),
    case("na.fill", 'out = people.na.fill(0.0, ["score"])', ["RowTransform", "Source"]),
    case("dropna", 'out = people.dropna()', ["Filter", "Source"]),
    case("na.drop", 'out = people.na.drop(subset=["score"])', ["Filter", "Source"]),
    case("replace", 'out = people.replace("a", "z", "name")', ["RowTransform", "Source"]),
    case("na.replace", 'out = people.na.replace({1: 5}, subset=["id"])', ["RowTransform", "Source"]),
    # sampling: barriers (randomSplit's parts are recorded, so the lineage reaches `people`)
    case("sample", 'out = people.sample(0.5, seed=1)', ["Other", "Source"], barrier="which rows are drawn"),
    case("randomSplit", ['a, b = people.randomSplit([0.5, 0.5], seed=1)', 'out = a.filter("id > 0")'],
         ["Filter", "Other", "Reorder", "Source"], barrier="which rows are drawn",
         check=_source_is("createDataFrame")),
    # physical placement only
    case("cache", ['c = people.cache()', 'out = c.filter("id > 1")'], ["Filter", "Source"],
         check=_source_is("createDataFrame")),
    case("persist", ['c = people.persist()', 'out = c.filter("id > 1")'], ["Filter", "Source"],
         check=_source_is("createDataFrame")),
    case("repartition", 'out = people.repartition(2, "dept")', ["Reorder", "Source"]),
    case("repartitionByRange", 'out = people.repartitionByRange(2, "dept")', ["Reorder", "Source"]),
    case("coalesce", 'out = people.coalesce(1)', ["Reorder", "Source"]),
    case("sortWithinPartitions", 'out = people.sortWithinPartitions("id")', ["Reorder", "Source"]),
    case("hint", 'out = people.join(depts.hint("broadcast"), "dept")', ["DropColumn", "InnerJoin", "Source", "Source"]),
    case("transform", 'out = people.transform(lambda d: d.filter("id > 1"))', ["Filter", "Source"]),
    # SQL
    case("spark.table of a temp view", ['people.createOrReplaceTempView("people")',
                                        'out = spark.table("people").filter("id > 1")'],
         ["Filter", "Source"], check=_source_is("table")),
    case("spark.sql over a temp view", ['people.createOrReplaceTempView("people")',
                                        'out = spark.sql("SELECT id, score FROM people WHERE score > 1")'],
         ["DropColumn", "Filter", "Source"], check=_source_is("createDataFrame")),
    # Python UDFs
    case("udf(...) call", ['bump = F.udf(lambda v: v + 1, "int")', 'out = people.withColumn("b", bump("id"))'],
         ["RowTransform", "Source"], check=_udfs_have_source("python")),
    case("udf decorator", ['@F.udf("int")\ndef bump(v):\n    return None if v is None else v + 1',
                           'out = people.withColumn("b", bump(F.col("id")))'],
         ["RowTransform", "Source"], check=_udfs_have_source("python")),
    case("spark.udf.register in selectExpr", ['def bump2(v):\n    return v + 1',
                                              '_ = spark.udf.register("bump2", bump2, "int")',
                                              'out = people.selectExpr("id", "bump2(id) AS b")'],
         ["RowTransform", "Source"], check=_udfs_have_source("python")),
    case("spark.udf.register's returned function", ['def bump3(v):\n    return v + 1',
                                                     'b3 = spark.udf.register("bump3", bump3, "int")',
                                                     'out = people.withColumn("b", b3("id"))'],
         ["RowTransform", "Source"], check=_udfs_have_source("python")),
    case("pandas_udf", ['@pandas_udf("double")\ndef twice(s):\n    return s * 2',
                        'out = people.withColumn("t", twice("score"))'],
         ["RowTransform", "Source"], check=_udfs_have_source("pandas")),
    case("applyInPandas", ['def keep(pdf):\n    return pdf[pdf.score > 1]',
                           'out = people.groupBy("dept").applyInPandas(keep, people.schema)'],
         ["GroupedMap", "DropColumn", "Source"]),
    case("GroupedData.apply", ['from pyspark.sql.functions import PandasUDFType\n'
                               'def keep2(pdf):\n    return pdf[pdf.score > 1]',
                               'k = pandas_udf(keep2, people.schema, PandasUDFType.GROUPED_MAP)',
                               'out = people.groupBy("dept").apply(k)'],
         ["GroupedMap", "DropColumn", "Source"]),
    case("applyInArrow", ['def same_table(t):\n    return t',
                          'out = people.groupBy("dept").applyInArrow(same_table, people.schema)'],
         ["Other", "DropColumn", "Source"], barrier="applyInArrow: the function's body is not analysed"),
    case("cogroup applyInPandas", ['def first_side(a, b):\n    return a',
                                   'out = people.groupBy("dept").cogroup(depts.groupBy("dept"))'
                                   '.applyInPandas(first_side, people.schema)'],
         ["Other", "DropColumn", "Source", "DropColumn", "Source"], barrier="cogroup"),
    case("mapInPandas", ['def keep_batches(it):\n    for pdf in it:\n        yield pdf[pdf.score > 1]',
                         'out = people.mapInPandas(keep_batches, people.schema)'],
         ["Other", "Source"], barrier="mapInPandas: the function sees whole batches"),
    case("mapInArrow", ['def same(it):\n    yield from it', 'out = people.mapInArrow(same, people.schema)'],
         ["Other", "Source"], barrier="mapInArrow: the function sees whole batches"),
    # an RDD round trip: the lambdas are read as a projection over the rows of the DataFrame they
    # came from, when the types are given; with column names only Spark infers them from the rows
    case("rdd map toDF with a schema", ['rt = people.rdd.map(lambda r: (r.id, r.score)).toDF("id int, score double")',
                                        'out = rt.filter("id > 1")'],
         ["Filter", "RowTransform", "Source"], check=_source_is("createDataFrame")),
    case("rdd map toDF with column names", ['rt = people.rdd.map(lambda r: (r.id, r.score)).toDF(["id", "score"])',
                                            'out = rt.filter("id > 1")'],
         ["Filter", "Other", "Source"], barrier="inferred from the RDD's first rows"),
    case("zipWithIndex", 'out = people.zipWithIndex()', ["DropColumn", "RowTransform", "Other", "Source"],
         barrier="each row's index counts the rows before it"),
    case("lateralJoin", 'out = people.alias("p").lateralJoin(depts.alias("d"), F.col("p.dept") == F.col("d.dept"))',
         ["Other", "Source"], barrier="lateralJoin"),
    case("nearestByJoin", 'out = people.nearestByJoin(depts, -F.abs(people.dept - depts.dept), 1, "exact", '
         '"similarity")', ["Other", "Source", "Source"], barrier="nearestByJoin"),
    case("dropDuplicatesWithinWatermark", 'out = people.dropDuplicatesWithinWatermark(["id"])', ["Other", "Source"],
         barrier="streaming deduplication"),
    case("repartitionById", 'out = people.repartitionById(2, F.col("id"))', ["Reorder", "Source"]),
    # the checkpointed rows are read back as a new source, placed at the call
    case("localCheckpoint", ['lc = people.localCheckpoint()', 'out = lc.filter("id > 1")'], ["Filter", "Source"],
         check=_source_is("localCheckpoint")),
    case("observe", ['from pyspark.sql import Observation',
                     'out = people.observe(Observation("o"), F.count(F.lit(1)).alias("n"))'],
         ["Other", "Source"], barrier="observe: its metrics"),
]


@pytest.fixture(scope="module")
def ip(spark):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.user_ns["spark"] = spark
    yield shell
    unload(shell)


def _params():
    for c in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
        yield pytest.param(c, id=c.name, marks=marks)


@pytest.mark.parametrize("c", list(_params()))
def test_api_family_becomes_its_ir_operators(ip, c: Case):
    unload(ip)
    tracer = load(ip)  # a fresh trace per case: the pipeline is this case's cells only
    run_cells(ip, (SETUP, *c.cells))
    assert tracer.warnings == []
    trace = tracer.trace()
    plan = pipeline_plan(trace)
    assert plan is not None
    assert [P.operator_name(n) for n in P.nodes(plan)] == list(c.ops)
    reasons = [n.reason for n in P.nodes(plan) if isinstance(n, P.Other)]
    if c.barrier is None:
        assert reasons == []
    else:
        assert reasons and any(c.barrier in r for r in reasons), reasons
        assert all("no pushdown analysis" not in r for r in reasons), reasons
    if c.check is not None:
        c.check(plan, trace)
