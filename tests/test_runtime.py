"""Rebuilding a traced pipeline with a filter moved to its source, and timing it.

Each case is a notebook run under the tracer on real Spark; the engine proves a push, the
pipeline's last DataFrame is rebuilt with the proved filter at the source, and the rebuilt
output must be the original's as a bag. The neighbours are pipelines whose rows leave Spark
and come back (an RDD round trip, toPandas): the rebuild must give a reason, never a DataFrame.
"""

from __future__ import annotations

import json
import linecache
import re
from typing import Any

import pytest

from magicpush_lab.rebuild import REMOVED, rebuild
from magicpush_lab.capture.tracer import Tracer
from magicpush_lab.runtime import compare_outputs, rewritten_sink, time_both

HEAD = "from pyspark.sql import functions as F\nfrom pyspark.sql.types import IntegerType\n"
ORDERS = ("orders = spark.range(0, 3000).selectExpr('id AS k', 'CAST(id % 100 AS INT) AS v', "
          "'CAST(id % 7 AS INT) AS g')\n")

# name -> the notebook's code cells; each ends in `sink`, after a late filter named `late`
PIPELINES: dict[str, list[str]] = {
    "withColumn_udf_then_groupBy_agg": [
        HEAD, ORDERS,
        "@F.udf(returnType=IntegerType())\ndef bump(v):\n    return v + 5\n\n"
        "scored = orders.withColumn('score', bump(F.col('v')))",
        "late = scored.filter(F.col('score') > 97)",
        "sink = late.groupBy('g').agg(F.count('*').alias('n'), F.sum('score').alias('s'))",
    ],
    "join_then_orderBy_limit": [
        HEAD, ORDERS,
        "dims = spark.range(0, 100).selectExpr('CAST(id AS INT) AS v', 'CAST(id % 3 AS INT) AS band')",
        "joined = orders.join(dims, 'v')",
        "late = joined.filter(F.col('v') >= 90)",
        "sink = late.orderBy(F.col('k').desc()).limit(25)",
    ],
    "pivot_after_the_late_filter": [
        HEAD, ORDERS,
        "late = orders.filter(F.col('v') * 3 > 240)",
        "sink = late.groupBy('g').pivot('v', [81, 82, 99]).agg(F.sum('k'))",
    ],
    "union_then_select": [
        HEAD, ORDERS,
        "more = spark.range(5000, 6000).selectExpr('id AS k', 'CAST(id % 100 AS INT) AS v', "
        "'CAST(id % 7 AS INT) AS g')",
        "both = orders.union(more)",
        "late = both.filter(F.col('v') < 4)",
        "sink = late.select('k', (F.col('v') * 2).alias('v2'))",
    ],
}


def run_notebook(spark: Any, cells: list[str], tag: str) -> tuple[Tracer, dict[str, Any]]:
    """Run code cells under a tracer, as the kernel extension does."""
    ns: dict[str, Any] = {"spark": spark}
    tracer = Tracer()
    tracer.install()
    try:
        for count, src in enumerate(cells, start=1):
            name = f"<magicpush-runtime-{tag}-{count}>"
            linecache.cache[name] = (len(src), None, src.splitlines(True), name)
            tracer.begin_cell(count, src, name)
            exec(compile(src, name, "exec"), ns)  # noqa: S102 - the test's own notebook
            tracer.end_cell(ns)
    except BaseException:
        tracer.uninstall()
        raise
    return tracer, ns


@pytest.fixture
def traced(spark):
    tracers: list[Tracer] = []

    def run(cells: list[str], tag: str) -> tuple[Tracer, dict[str, Any]]:
        tracer, ns = run_notebook(spark, cells, tag)
        tracers.append(tracer)
        return tracer, ns

    yield run
    for tracer in tracers:
        tracer.uninstall()


def bag(df: Any) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def filters(df: Any) -> int:
    """Filter nodes in the analyzed plan."""
    return len(re.findall(r"\bFilter\b", df._jdf.queryExecution().analyzed().toString()))


def proved_suggestion(tracer: Tracer, cells: list[str]) -> dict[str, Any]:
    from magicpush_lab.pipeline import optimize_trace

    result = optimize_trace(tracer.trace(), cells, time_budget=60)
    assert result.suggestions, result.notes
    return result.suggestions[0].to_json()


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_rebuilt_pipeline_with_the_proved_filter_keeps_the_output_bag(traced, name):
    cells = PIPELINES[name]
    tracer, ns = traced(cells, name)
    tracer.uninstall()  # the engine and the rebuild run outside the notebook
    suggestion = proved_suggestion(tracer, cells)
    assert suggestion["sink_event"] == tracer.trace().variables["sink"]
    rebuilt = rewritten_sink(tracer, suggestion)
    assert rebuilt.ok, rebuilt.reason
    original = ns["sink"]
    # the filter moved: one at the source, the late one kept only when the push is a superset
    assert filters(rebuilt.df) == filters(original) + (1 if suggestion["kind"] == "superset" else 0)
    expected = bag(original)
    assert expected, "the case must keep rows to compare"
    assert bag(rebuilt.df) == expected
    assert compare_outputs(original, rebuilt.df, 120)[0] is True


def test_timing_reports_runs_medians_and_equal_outputs(traced):
    cells = PIPELINES["withColumn_udf_then_groupBy_agg"]
    tracer, ns = traced(cells, "timing")
    tracer.uninstall()
    rebuilt = rewritten_sink(tracer, proved_suggestion(tracer, cells))
    assert rebuilt.ok, rebuilt.reason
    result = time_both(ns["sink"], rebuilt.df, runs=2, time_limit=300)
    print("runtime:", result)  # the figures themselves are not asserted
    assert len(result["original_seconds"]) == len(result["rewritten_seconds"]) == 2
    assert result["median_original"] is not None and result["speedup"] is not None
    assert result["outputs_equal"] is True, result["note"]


def test_a_wrong_filter_at_the_source_is_caught_by_the_output_comparison(traced):
    # the comparison the route reports is a real one: a filter that drops rows the late filter keeps
    cells = PIPELINES["union_then_select"]
    tracer, ns = traced(cells, "wrong")
    tracer.uninstall()
    from pyspark.sql import functions as F

    events = tracer.trace().variables
    wrong = rebuild(events["sink"], {events["orders"]: ns["orders"].filter(F.col("v") < 2),
                                     events["late"]: REMOVED}, tracer)
    assert wrong.ok, wrong.reason
    equal, note = compare_outputs(ns["sink"], wrong.df, 120)
    assert equal is False, note


def test_the_tracer_keeps_each_call_and_how_its_grouping_was_made(traced):
    cells = PIPELINES["withColumn_udf_then_groupBy_agg"]
    tracer, ns = traced(cells, "calls")
    tracer.uninstall()
    events = tracer.trace().variables
    calls = tracer.calls()
    scored = calls[events["scored"]]
    assert (scored.receiver, scored.method, scored.args[0], scored.args[1]) == (
        "dataframe", "withColumn", ns["orders"], "score")
    agg = calls[events["sink"]]
    assert (agg.receiver, agg.method) == ("grouped", "agg")
    grouping = tracer.grouping_of(agg.args[0])
    assert grouping is not None and (grouping.method, grouping.args) == ("groupBy", (ns["late"], "g"))


# Pipelines the rebuild cannot follow: `other` is built from `orders` in a way the trace does not
# show as a call on DataFrames, and joined back: name -> (code making `other`, the reason's words)
UNFOLLOWABLE: dict[str, tuple[str, str]] = {
    "rdd_round_trip": (
        "other = spark.createDataFrame(orders.rdd.map(lambda r: (r.k, r.v + 1)), 'k long, w int')",
        "went to Python (rdd)",
    ),
    "toPandas_round_trip": (
        "other = spark.createDataFrame(orders.toPandas()).selectExpr('k', 'v + 1 AS w')",
        "went to Python (toPandas)",
    ),
    "temp_view": (
        "orders.createOrReplaceTempView('orders_view')\nother = spark.sql('SELECT k, v + 1 AS w FROM orders_view')",
        "reads a temp view",
    ),
    "scalar_subquery": (
        "other = orders.filter(F.col('k') > orders.select(F.max('k') - 100).scalar()).selectExpr('k', 'v AS w')",
        "holds a subquery",
    ),
}


@pytest.mark.parametrize("name", sorted(UNFOLLOWABLE))
def test_a_pipeline_the_rebuild_cannot_follow_gives_a_reason_not_a_dataframe(traced, name):
    code, words = UNFOLLOWABLE[name]
    cells = [HEAD, ORDERS, code, "joined = orders.join(other, 'k')", "late = joined.filter(F.col('v') > 90)",
             "sink = late.select('k', 'w')"]
    tracer, ns = traced(cells, name)
    tracer.uninstall()
    from pyspark.sql import functions as F

    events = tracer.trace().variables
    result = rebuild(events["sink"], {events["orders"]: ns["orders"].filter(F.col("v") > 90),
                                      events["late"]: REMOVED}, tracer)
    assert result.df is None
    assert words in (result.reason or ""), result.reason


def test_rows_taken_to_python_after_the_pipeline_was_made_do_not_block_the_rebuild(traced):
    # the neighbour: the same pipeline without the round trip, its result collected at the end
    cells = [HEAD, ORDERS, "late = orders.filter(F.col('v') > 90)", "sink = late.select('k')",
             "rows = sink.toPandas()"]
    tracer, ns = traced(cells, "collected_at_end")
    tracer.uninstall()
    from pyspark.sql import functions as F

    events = tracer.trace().variables
    result = rebuild(events["sink"], {events["orders"]: ns["orders"].filter(F.col("v") > 90),
                                      events["late"]: REMOVED}, tracer)
    assert result.ok, result.reason
    assert bag(result.df) == bag(ns["sink"])


def test_a_pipeline_cut_from_its_source_gives_a_reason(traced):
    # made while the tracer does not record: the last DataFrame has no traced path to `orders`
    cells = [HEAD, ORDERS, "late = orders.filter(F.col('v') > 90)"]
    tracer, ns = traced(cells, "cut")
    with tracer.suspended():
        sink = ns["late"].select("k")
    tracer.uninstall()
    from pyspark.sql import functions as F

    sink_event = tracer.event_of(sink)
    events = tracer.trace().variables
    result = rebuild(sink_event, {events["orders"]: ns["orders"].filter(F.col("v") > 90)}, tracer)
    assert result.df is None and "not computed from" in (result.reason or ""), result.reason


def test_a_superset_suggestion_keeps_the_late_filter(traced):
    cells = PIPELINES["join_then_orderBy_limit"]
    tracer, ns = traced(cells, "superset")
    tracer.uninstall()
    suggestion = {**proved_suggestion(tracer, cells), "kind": "superset"}
    rebuilt = rewritten_sink(tracer, suggestion)
    assert rebuilt.ok, rebuilt.reason
    assert filters(rebuilt.df) == filters(ns["sink"]) + 1  # the pushed filter, and the late one kept
    assert bag(rebuilt.df) == bag(ns["sink"])


# -- the route, through a real Jupyter server ---------------------------------------------

pytest_plugins = ("pytest_jupyter.jupyter_server",)

# a kernel managed by the server that ran tests/test_server.py's notebook with tracing
from tests.test_server import pipeline_kernel  # noqa: E402, F401 - the fixture, shared

RUNTIME_KEYS = {"original_seconds", "rewritten_seconds", "median_original", "median_rewritten", "speedup",
                "outputs_equal", "note"}


def a_suggestion(**changes: Any) -> dict[str, Any]:
    from magicpush_lab.ir.expr import Cmp, Col, Lit
    from magicpush_lab.ir.serialize import expr_to_json
    from magicpush_lab.suggestion import Suggestion

    s = Suggestion(source="df", predicate="F.col('v') > 995", kind="equivalent", proof=(), cells=(),
                   source_event=1, predicate_ir=expr_to_json(Cmp(">", Col("v", dtype="int"), Lit(995, "int"))),
                   late_filter_event=3, sink_event=4).to_json()
    return {**s, **changes}


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


async def post_runtime(jp_fetch, body: Any) -> Any:
    payload = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return await jp_fetch("magicpush-lab", "runtime", method="POST", body=payload, request_timeout=300)


async def runtime_error(jp_fetch, body: Any) -> tuple[int, dict[str, Any]]:
    from tornado.httpclient import HTTPClientError

    with pytest.raises(HTTPClientError) as err:
        await post_runtime(jp_fetch, body)
    assert err.value.response.headers["Content-Type"].startswith("application/json")
    answer = json.loads(err.value.response.body)
    assert answer["error"], answer
    return err.value.code, answer


BAD_RUNTIME_REQUESTS = [
    (b'{"kernel_id": ', 400, "malformed_json", "not valid JSON"),
    ({"suggestion": a_suggestion()}, 400, "missing_field", "'kernel_id' is missing"),
    ({"kernel_id": "k"}, 400, "missing_field", "'suggestion' is missing"),
    ({"kernel_id": "k", "suggestion": []}, 400, "invalid_field", "'suggestion' must be an object"),
    ({"kernel_id": "k", "suggestion": {"source": "t"}}, 400, "invalid_field", "a suggestion lacks"),
    ({"kernel_id": "k", "suggestion": a_suggestion(sink_event=None)}, 400, "missing_field", "sink_event"),
    ({"kernel_id": "k", "suggestion": a_suggestion(late_filter_event=None)}, 400, "missing_field",
     "late_filter_event"),
    ({"kernel_id": "k", "suggestion": a_suggestion(kind="maybe")}, 400, "invalid_field", "'suggestion.kind'"),
    ({"kernel_id": "k", "suggestion": a_suggestion(), "runs": 0}, 400, "invalid_field", "'runs'"),
    ({"kernel_id": "k", "suggestion": a_suggestion(), "runs": "3"}, 400, "invalid_field", "'runs'"),
    ({"kernel_id": "k", "suggestion": a_suggestion(), "time_limit": -1}, 400, "invalid_field", "'time_limit'"),
    ({"kernel_id": "no-such-kernel", "suggestion": a_suggestion()}, 404, "unknown_kernel", "no running kernel"),
]


@pytest.mark.parametrize("body,status,kind,message", BAD_RUNTIME_REQUESTS)
async def test_runtime_route_refuses_bad_requests_naming_the_problem(jp_fetch, body, status, kind, message):
    code, answer = await runtime_error(jp_fetch, body)
    assert (code, answer["kind"]) == (status, kind), answer
    assert message in answer["error"], answer


async def test_runtime_route_on_a_kernel_without_tracing_is_409(jp_fetch, jp_serverapp):
    km = jp_serverapp.kernel_manager
    kernel_id = await km.start_kernel()
    try:
        code, answer = await runtime_error(jp_fetch, {"kernel_id": kernel_id, "suggestion": a_suggestion()})
    finally:
        await km.shutdown_kernel(kernel_id, now=True)
    assert (code, answer["kind"]) == (409, "tracing_off"), answer


async def test_runtime_route_on_a_dead_kernel_is_409(jp_fetch, jp_serverapp):
    km = jp_serverapp.kernel_manager
    kernel_id = await km.start_kernel()
    try:
        await km.get_kernel(kernel_id).provisioner.kill()
        await km.get_kernel(kernel_id).provisioner.wait()
        code, answer = await runtime_error(jp_fetch, {"kernel_id": kernel_id, "suggestion": a_suggestion()})
    finally:
        if kernel_id in km:
            await km.shutdown_kernel(kernel_id, now=True)
    assert (code, answer["kind"]) == (409, "kernel_dead"), answer


async def _runtime_route_times_a_proved_suggestion_on_the_notebook_kernel(jp_fetch, pipeline_kernel):
    from tests.test_server import NOTEBOOK_CELLS

    kernel_id, trace = pipeline_kernel
    optimized = await jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=300, body=json.dumps(
        {"trace": trace, "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS}, "kernel_id": kernel_id,
         "measure": False}))
    suggestions = json.loads(optimized.body)["suggestions"]
    assert suggestions
    response = await post_runtime(jp_fetch, {"kernel_id": kernel_id, "suggestion": suggestions[0], "runs": 2,
                                             "time_limit": 240})
    answer = json.loads(response.body)
    print("runtime route:", answer)  # the figures themselves are not asserted
    assert set(answer) == RUNTIME_KEYS
    assert len(answer["original_seconds"]) == len(answer["rewritten_seconds"]) == 2
    assert answer["speedup"] is not None and answer["outputs_equal"] is True, answer

    # the neighbour: a suggestion whose pipeline the kernel no longer holds is refused, not timed
    stale = {**suggestions[0], "sink_event": 10_000}
    code, refused = await runtime_error(jp_fetch, {"kernel_id": kernel_id, "suggestion": stale})
    assert (code, refused["kind"]) == (409, "stale_suggestion"), refused



async def _row_counts_and_timing_asked_at_once_each_get_their_own_answer(jp_fetch, pipeline_kernel):
    """The sidebar counts rows while the user may already press "Measure run time": both
    requests reach the same kernel together, and each must get its own reply."""
    import asyncio

    from tests.test_server import NOTEBOOK_CELLS

    kernel_id, trace = pipeline_kernel
    optimized = await jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=300, body=json.dumps(
        {"trace": trace, "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS}, "kernel_id": kernel_id,
         "measure": False}))
    suggestions = json.loads(optimized.body)["suggestions"]
    counted, timed = await asyncio.gather(
        jp_fetch("magicpush-lab", "measure", method="POST", request_timeout=300,
                 body=json.dumps({"kernel_id": kernel_id, "suggestions": suggestions})),
        post_runtime(jp_fetch, {"kernel_id": kernel_id, "suggestion": suggestions[0], "runs": 1,
                                "time_limit": 240}))
    measured = json.loads(counted.body)
    assert measured["measure_errors"] == [] and measured["suggestions"][0]["rows_before"] is not None
    assert set(json.loads(timed.body)) == RUNTIME_KEYS

async def test_the_runtime_route_times_a_suggestion_alone_and_beside_a_row_count(jp_fetch, pipeline_kernel):
    """On one notebook kernel (each start is a JVM's): a proved suggestion timed, a stale one
    refused, then a row count and a timing asked at once, each answered."""
    await _runtime_route_times_a_proved_suggestion_on_the_notebook_kernel(jp_fetch, pipeline_kernel)
    await _row_counts_and_timing_asked_at_once_each_get_their_own_answer(jp_fetch, pipeline_kernel)


def test_a_late_filter_off_the_pipeline_is_refused_not_ignored(traced):
    # removing a filter the last DataFrame does not go through would time another rewrite
    cells = [HEAD, ORDERS, "late = orders.filter(F.col('v') > 90)", "aside = orders.filter(F.col('g') == 1)",
             "sink = late.select('k')"]
    tracer, ns = traced(cells, "off_path")
    tracer.uninstall()
    from pyspark.sql import functions as F

    events = tracer.trace().variables
    source = {events["orders"]: ns["orders"].filter(F.col("v") > 90)}
    assert rebuild(events["sink"], {**source, events["late"]: REMOVED}, tracer).ok
    refused = rebuild(events["sink"], {**source, events["aside"]: REMOVED}, tracer)
    assert refused.df is None and f"[{events['aside']}]" in (refused.reason or ""), refused.reason
