"""No Catalyst class reachable from PySpark crashes the optimizer: each translates, or becomes a
barrier or a refused candidate with its reason.

Every built-in function of the installed Spark comes with an example in its registry
(`ExpressionInfo`); each example's expression goes into a pipeline over a traced source, with a
late filter on a column beside it (which crosses the expression's projection) and one on the
expression's own value (which must either push, stop with a reason, or be refused because it
cannot be written back).

The logical operators come from the DataFrame API: a table names, for each Catalyst plan class
a public method makes, the case of tests/test_api_families.py that makes it; the test checks
that the class is in that case's traced plan and that optimizing the case, with a late filter
on its output, gives suggestions or notes and never fails.
"""

from __future__ import annotations

import re

import pytest

from magicpush_lab.budget import Budget
from magicpush_lab.kernel.extension import load, unload
from magicpush_lab.pipeline import optimize_trace
from tests.cells import run_cells
from tests.test_api_families import CASES as API_CASES
from tests.test_api_families import SETUP as API_SETUP

pytestmark = pytest.mark.slow

CRASH = "could not analyse"


def _examples(spark) -> list[tuple[str, str, str | None]]:
    """(function, Catalyst class, the first example's `SELECT` list [FROM ...]) per built-in."""
    registry = spark._jvm.org.apache.spark.sql.catalyst.analysis.FunctionRegistry.builtin()
    ids = registry.listFunction()
    found = []
    for i in range(ids.length()):
        info = registry.lookupFunction(ids.apply(i))
        if info.isEmpty():
            continue
        info = info.get()
        match = re.search(r">\s*SELECT\s+(.*?);", info.getExamples() or "", re.S)
        if match:
            found.append((ids.apply(i).funcName(), info.getClassName().rsplit(".", 1)[-1], match.group(1).strip()))
    return sorted(found)


def _cells(example: str) -> list[str] | None:
    """The notebook of one example: a traced source, the expression as a column, late filters."""
    expr, _, table = example.partition(" FROM ")
    if table:  # the example reads a table of its own: it is the source
        source = f"src = spark.sql({('SELECT *, 1 AS k FROM ' + table)!r})"
    else:
        source = "src = spark.range(0, 3).selectExpr('id AS k')"
    if re.search(r"\b(GROUP BY|WHERE|HAVING|LATERAL|WINDOW|ORDER BY|OVER)\b", table or "", re.I):
        return None  # a clause the one-expression pipeline does not take
    return [source, f"df = src.selectExpr('k', {(expr + ' AS x')!r})",
            "on_k = df.filter('k > 0')", "on_x = df.filter('x IS NOT NULL')"]


def test_every_builtin_function_translates_or_stops_with_a_reason(spark, shell):
    ip, tracer = shell
    crashed, tried = [], 0
    for name, cls, example in _examples(spark):
        cells = _cells(example)
        if cells is None:
            continue
        try:
            run_cells(ip, cells)
        except Exception:  # noqa: BLE001 - an example Spark itself rejects here is not a pipeline
            continue
        tried += 1
        result = optimize_trace(tracer.trace(), cells, all_pipelines=True, budget=Budget(2.0))
        notes = [n for n in result.notes if CRASH in n]
        if notes or not (result.suggestions or result.notes):
            crashed.append((name, cls, notes or "nothing said"))
    assert tried > 300, tried  # most examples make a pipeline
    assert crashed == []


# Catalyst logical plan class -> the API case (tests/test_api_families.py) whose analyzed plan has
# it (`distinct()` is analyzed as a Deduplicate, `unpivot` as an Expand: they are covered there)
PLAN_CLASSES = {
    "Project": "select", "Filter": "filter Column", "Join": "join inner",
    "Aggregate": "groupBy agg Columns", "Expand": "rollup", "Generate": "explode", "Window": "window",
    "Sort": "orderBy", "GlobalLimit": "limit", "LocalLimit": "limit", "Offset": "offset", "Union": "union",
    "Intersect": "intersect", "Except": "subtract", "Sample": "sample", "Repartition": "coalesce",
    "RepartitionByExpression": "repartition", "Deduplicate": "dropDuplicates subset",
    "SubqueryAlias": "alias", "ResolvedHint": "hint",
    "MapInPandas": "mapInPandas", "MapInArrow": "mapInArrow", "FlatMapGroupsInPandas": "applyInPandas",
    "FlatMapGroupsInArrow": "applyInArrow", "FlatMapCoGroupsInPandas": "cogroup applyInPandas",
    "AttachDistributedSequence": "zipWithIndex", "LateralJoin": "lateralJoin", "CollectMetrics": "observe",
    "LogicalRDD": "rdd map toDF with a schema", "DeduplicateWithinWatermark": "dropDuplicatesWithinWatermark",
    "NearestByJoin": "nearestByJoin",
}
_API = {c.name: c for c in API_CASES}


def _late(ip) -> str:
    """A late filter on the case's output: on its first column, which every case keeps."""
    first = ip.user_ns["out"].columns[0]
    return f"late = out.filter(F.col({first!r}).isNotNull())"


@pytest.mark.parametrize("cls,case", sorted(PLAN_CLASSES.items()), ids=sorted(PLAN_CLASSES))
def test_every_plan_class_of_the_dataframe_api_translates_or_stops_with_a_reason(spark, cls, case):
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.user_ns["spark"] = spark
    unload(ip)
    tracer = load(ip)
    try:
        cells = [API_SETUP, *_API[case].cells]
        run_cells(ip, cells)
        cells.append(_late(ip))
        run_cells(ip, cells[-1:])
        trace = tracer.trace()
        classes = {c for e in trace.events if e.plan is not None for c in trace.plans.classes(e.plan)}
        assert cls in classes, sorted(classes)
        result = optimize_trace(trace, cells, all_pipelines=True, budget=Budget(5.0))
    finally:
        unload(ip)
    assert not [n for n in result.notes if CRASH in n], result.notes
    assert result.suggestions or result.notes
