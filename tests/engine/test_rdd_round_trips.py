"""RDD round trips in a traced notebook: `df.rdd.map(...)...toDF(schema)` reads as operators over
the DataFrame's rows, so a late filter reaches the DataFrame's source.

Each case is data: notebook cells ending in `out`, and what the engine must conclude. A case
that pushes applies the suggestion's rewritten cells in a fresh namespace and compares the
bag of `out` with the original's (rows with NULLs, a duplicate and NaN); every pushing case
has a neighbour that must not push, whose note must say why.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.verify.verdict import EQUIVALENT
from tests.cells import traced

from .harness import bag

SETUP = (
    "from pyspark.sql import functions as F\n"
    "people = spark.createDataFrame([(1, 'ab', 10.0, 3), (2, 'b', None, 4), (2, 'b', None, 4), (3, None, float('nan'), 3),"
    " (4, 'abc', -1.5, None), (5, 'a', 2.5, 7)], 'id int, name string, score double, dept int')\n"
)


@dataclass(frozen=True)
class Case:
    title: str
    cells: tuple[str, ...]
    expect: str | None  # EQUIVALENT, SUPERSET, or None: nothing pushed
    predicate: str | None = None  # the suggestion's PySpark predicate, when pinned down
    why: str | None = None  # for a case that must not push: a part of the note
    hides: bool | None = None  # whether the suggestion says it may hide an error, when pinned down


CASES = [
    Case("a field the lambda passes through: the filter goes to the DataFrame read",
         ("rt = people.rdd.map(lambda r: (r.id, r.name)).toDF('id int, name string')",
          "out = rt.filter(F.col('id') > 1)"), EQUIVALENT, 'F.col("id") > 1'),
    Case("the same with column names only: Spark infers the types from the first rows, must not push",
         ("rt = people.rdd.map(lambda r: (r.id, r.name)).toDF(['id', 'name'])",
          "out = rt.filter(F.col('id') > 1)"), None, why="inferred from the RDD's first rows"),
    Case("a field the lambda computes is read as Python: pushed as Spark's substring",
         ("rt = people.rdd.map(lambda r: (r.id, r.name[:1] if r.name else None)).toDF('id int, initial string')",
          "out = rt.filter(F.col('initial') == 'a')"), EQUIVALENT),
    Case("a filter step then a map, through createDataFrame with a schema",
         ("kept = people.rdd.filter(lambda r: r.dept is not None and r.dept > 3).map(lambda r: (r.id, r.dept))",
          "rt = spark.createDataFrame(kept, 'id int, dept int')",
          "out = rt.filter(F.col('id') < 5)"), EQUIVALENT, 'F.col("id") < 5'),
    Case("mapValues on pairs: the key field pushes",
         ("rt = people.rdd.map(lambda r: (r.name, r.id)).mapValues(lambda v: v * 10).toDF('name string, id10 long')",
          "out = rt.filter(F.col('name') == 'b')"), EQUIVALENT),
    Case("a helper function the lambda calls, with a recorded threshold",
         ("LIMIT = 3\ndef bucket(r):\n    return (r.id, 'hi' if r.dept is not None and r.dept > LIMIT else 'lo')",
          "rt = people.rdd.map(bucket).toDF('id int, level string')",
          "out = rt.filter(F.col('level') == 'hi')"), EQUIVALENT),
    Case("mapValues with a call the model does not read: a filter on that value must not push",
         ("rt = people.rdd.map(lambda r: (r.name, r.id)).mapValues(lambda v: str(v).zfill(3)).toDF('name string, "
          "code string')",
          "out = rt.filter(F.col('code') == '002')"), None, why="RowTransform"),
    Case("a filter step then createDataFrame without the schema check (verifySchema=False) must not push",
         ("kept = people.rdd.filter(lambda r: r.dept is not None and r.dept > 3).map(lambda r: (r.id, r.dept))",
          "rt = spark.createDataFrame(kept, 'id int, dept int', verifySchema=False)",
          "out = rt.filter(F.col('id') < 5)"), None, why="verifySchema"),
    Case("a helper function reading an object the tracer does not record: must not push",
         ("class Limits:\n    high = 3\nLIMITS = Limits()\n"
          "def bucket(r):\n    return (r.id, 'hi' if r.dept is not None and r.dept > LIMITS.high else 'lo')",
          "rt = people.rdd.map(bucket).toDF('id int, level string')",
          "out = rt.filter(F.col('level') == 'hi')"), None, why="RowTransform"),
    Case("distinct between the map and toDF is not a function of one row: must not push",
         ("rt = people.rdd.map(lambda r: (r.id, r.name)).distinct().toDF('id int, name string')",
          "out = rt.filter(F.col('id') > 1)"), None, why="distinct"),
    # reduceByKey(f): a fold of each key's values, when f ignores their order and gives None back
    Case("reduceByKey with a max written in Python: a filter on the key goes to the DataFrame read",
         ("rt = people.rdd.map(lambda r: (r.dept, r.id)).reduceByKey(lambda a, b: a if a > b else b)"
          ".toDF('dept int, best int')",
          "out = rt.filter(F.col('dept') > 3)"), EQUIVALENT, 'F.col("dept") > 3'),
    Case("reduceByKey with a max written in Python: a filter on the maximum keeps the rows above the bound",
         ("rt = people.rdd.map(lambda r: (r.dept, r.id)).reduceByKey(lambda a, b: a if a > b else b)"
          ".toDF('dept int, best int')",
          "out = rt.filter(F.col('best') > 2)"), EQUIVALENT, 'F.col("id") > 2'),
    Case("reduceByKey with a sum: a filter on the sum must not push (the rows it drops add to it)",
         ("rt = people.rdd.map(lambda r: (r.dept, r.id)).reduceByKey(lambda a, b: a + b).toDF('dept int, total int')",
          "out = rt.filter(F.col('total') > 3)"), None, why="GroupBy"),
    Case("reduceByKey keeping the first value it meets depends on Spark's order: must not push",
         ("rt = people.rdd.map(lambda r: (r.dept, r.id)).reduceByKey(lambda a, b: a).toDF('dept int, first int')",
          "out = rt.filter(F.col('dept') > 3)"), None, why="pre-condition (1)"),
    Case("reduceByKey whose function makes 0 of two None values, where Spark keeps None for one: must not push",
         ("rt = people.rdd.map(lambda r: (r.dept, r.id)).reduceByKey(lambda a, b: max(a or 0, b or 0))"
          ".toDF('dept int, best int')",
          "out = rt.filter(F.col('dept') > 3)"), None, why="None"),
    Case("reduceByKey over a double value, which may be NaN: must not push",
         ("rt = people.rdd.map(lambda r: (r.dept, r.score)).reduceByKey("
          "lambda a, b: b if a is None else (a if b is None or a > b else b)).toDF('dept int, best double')",
          "out = rt.filter(F.col('dept') > 3)"), None, why="NaN"),
    Case("reduceByKey whose function gives the other value back for None: the filter on the maximum pushes",
         ("rt = people.rdd.map(lambda r: (r.name, r.dept)).reduceByKey("
          "lambda a, b: b if a is None else (a if b is None or a > b else b)).toDF('name string, best int')",
          "out = rt.filter(F.col('best') >= 4)"), EQUIVALENT, 'F.col("dept") >= 4'),
    # flatMap: a field every element carries as the row's field keeps or drops a row's elements together
    Case("flatMap repeating a field of the row in every element: the filter on it goes to the DataFrame read",
         ("rt = people.rdd.flatMap(lambda r: [(r.id, c) for c in (r.name or '')]).toDF('id int, ch string')",
          "out = rt.filter(F.col('id') > 1)"), EQUIVALENT, 'F.col("id") > 1', hides=True),
    Case("flatMap: a filter on the value each element makes must not push",
         ("rt = people.rdd.flatMap(lambda r: [(r.id, c) for c in (r.name or '')]).toDF('id int, ch string')",
          "out = rt.filter(F.col('ch') == 'a')"), None, why="RowExpand `"),
    Case("flatMap after a filter step, elements written out: the repeated field pushes",
         ("kept = people.rdd.filter(lambda r: r.dept is not None)",
          "rt = kept.flatMap(lambda r: [(r.name, r.dept), (r.name, -1)]).toDF('name string, d int')",
          "out = rt.filter(F.col('name') == 'b')"), EQUIVALENT, 'F.col("name") == "b"', hides=True),
    Case("flatMap whose elements take the field from different columns: must not push",
         ("rt = people.rdd.flatMap(lambda r: [(r.id, r.name), (r.dept, r.name)]).toDF('id int, name string')",
          "out = rt.filter(F.col('id') > 1)"), None, why="RowExpand `"),
    Case("flatMap yielding dicts: its elements are not read, must not push",
         ("rt = people.rdd.flatMap(lambda r: [{'id': r.id, 'name': r.name}]).toDF('id int, name string')",
          "out = rt.filter(F.col('id') > 1)"), None, why="elements it yields are not read"),
    Case("a filter on a value the lambda computes with an unknown call (title): must not push",
         ("rt = people.rdd.map(lambda r: (r.id, r.name.title() if r.name else None)).toDF('id int, t string')",
          "out = rt.filter(F.col('t') == 'Ab')"), None, why="RowTransform"),
    Case("a filter on another field beside that unknown call still pushes",
         ("rt = people.rdd.map(lambda r: (r.id, r.name.title() if r.name else None)).toDF('id int, t string')",
          "out = rt.filter(F.col('id') >= 2)"), EQUIVALENT, 'F.col("id") >= 2'),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_rdd_round_trip_case(shell, spark, case: Case):
    cells = [SETUP, *case.cells]
    ip, _ = shell
    trace = traced(shell, cells)
    original = bag(ip.user_ns["out"])
    result = optimize_trace(trace, cells, time_budget=30)
    found = [s for s in result.suggestions if s.source == "people"]
    if case.expect is None:
        assert found == [], [s.predicate for s in found]
        assert any(case.why in n for n in result.notes), result.notes
        return
    assert found, result.notes
    s = found[0]
    assert s.kind == case.expect, (s.kind, s.predicate, result.notes)
    if case.predicate is not None:
        assert s.predicate == case.predicate
    if case.hides is not None:  # the function runs in Python and may raise on a row the filter drops
        assert s.may_hide_errors == case.hides
    rewritten = list(cells)
    for change in s.cells:
        rewritten[change.index] = change.rewritten
    namespace = {"spark": spark}
    for cell in rewritten:
        exec(compile(cell, "<cell>", "exec"), namespace)  # the suggestion's cells, run as a notebook would
    assert "people.filter" in rewritten[0] or any("filter" in c.rewritten for c in s.cells)
    assert bag(namespace["out"]) == original and original, (s.predicate, rewritten)


# ----------------------------------------------------------------------------- the bodies are faithful

# (steps, schema): the bodies translate/rdd.py writes, run as UDFs of the DataFrame's columns, give
# the rows (or the failure) of the real round trip, createDataFrame's checks included
FAITHFUL = [
    ((("map", "lambda r: (r.id, r.score)"),), "id int, score double"),
    ((("map", "lambda r: (r.id, r.id * 2)"),), "id int, twice long"),
    ((("map", "lambda r: (r.id, float(r.id) if r.id > 2 else None)"),), "id int, x double"),
    ((("map", "lambda r: (r.id, r.id)"),), "id int, x double"),  # an int for a double: TypeError
    ((("map", "lambda r: (r.id, None)"),), "id int, x int not null"),  # None where not nullable
    ((("map", "lambda r: (r.name,)"),), "name string, extra int"),  # a row of the wrong length
    ((("map", "lambda r: {'name': r.name, 'id': r.id}"),), "id int, name string"),  # a dict, by name
    ((("map", "lambda r: (r.id, 2 ** 40)"),), "id int, big int"),  # out of the int range
    ((("map", "lambda r: (r.id, r.id > 2)"),), "id int, x int"),  # a bool for an int
    ((("filter", "lambda r: r.dept is not None"), ("map", "lambda r: (r.name, r.dept)"),
      ("mapValues", "lambda v: v + 1")), "name string, d long"),
    ((("map", "lambda r: (r.dept, r.id)"), ("filter", "lambda kv: kv[0] is not None and kv[0] > 3")),
     "dept int, id int"),
]


def _outcome(df):
    try:
        return "ok", bag(df)
    except Exception as err:  # noqa: BLE001 - the job failed, as the round trip's would
        return "raises", type(err).__name__


@pytest.mark.parametrize("steps,schema", FAITHFUL, ids=[f"{s[-1][1]} as {schema}" for s, schema in FAITHFUL])
def test_synthesized_bodies_give_the_round_trips_rows(spark, steps, schema):
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    from magicpush_lab.ir.types import spark_type
    from magicpush_lab.translate.rdd import synthesized_column, synthesized_keep

    ns: dict = {"spark": spark}
    exec(compile(SETUP, "<setup>", "exec"), ns)  # the same rows as the pipelines above
    people = ns["people"]
    rdd = people.rdd
    for method, fn in steps:
        rdd = getattr(rdd, method)(eval(fn))  # noqa: S307 - the test's own lambdas
    real = _outcome(rdd.toDF(schema))

    fields = StructType.fromDDL(schema).fields
    columns = people.columns
    functions, methods = [fn for _, fn in steps], [m for m, _ in steps]
    rows = people
    if "filter" in methods:
        keep = _function(synthesized_keep(functions, methods, columns))
        rows = rows.filter(F.udf(keep, "boolean")(*columns))
    made = []
    for j, f in enumerate(fields):
        dtype = spark_type(f.dataType.simpleString().replace("bigint", "long").replace("int", "int"))
        source = synthesized_column(functions, methods, columns, j, dtype, f.nullable, len(fields), (), f.name)
        made.append(F.udf(_function(source), f.dataType)(*columns).alias(f.name))
    assert _outcome(rows.select(*made)) == real


def _function(source: str):
    namespace: dict = {}
    exec(compile(source, "<body>", "exec"), namespace)  # the body the engine reads
    return [v for k, v in namespace.items() if k.startswith("_rdd_")][-1]
