"""The server extension's HTTP routes, through a real Jupyter server.

The traces are real: the pipeline below runs on a local SparkSession under
the PySpark tracer (in the test process for the optimize tests, in a kernel
started by the server for the measurement tests).
"""

from __future__ import annotations

import json
import linecache
import uuid
from pathlib import Path
from typing import Any

import pytest
from jupyter_core.utils import ensure_event_loop
from tornado.httpclient import HTTPClientError

import magicpush_lab
from magicpush_lab.assist import apply_measurements, measure_requests
from magicpush_lab.ir.expr import Cmp, Col, Lit
from magicpush_lab.ir.serialize import expr_to_json
from magicpush_lab.protocol import TRACE_EXPRESSION, TRACE_MIME
from magicpush_lab.server.kernel_measure import measure_on_kernel
from magicpush_lab.server.validation import MAX_BODY_BYTES
from magicpush_lab.suggestion import Suggestion

pytest_plugins = ("pytest_jupyter.jupyter_server",)

ROWS = 2000
# v = id % 1000, score = v + 5 > 1000  <=>  v > 995: 4 values of v, twice each
ROWS_AFTER = 8

# The notebook: a markdown cell first, so that cell indices differ from code-cell order.
MARKDOWN = "# Scores\nA late filter on a Python UDF column."
PIPELINE = [
    "from pyspark.sql import functions as F\nfrom pyspark.sql.types import IntegerType",
    "spark.range(0, {rows}).selectExpr('id AS k', 'CAST(id % 1000 AS INT) AS v')"
    ".write.mode('overwrite').parquet(DATA)",
    "df = spark.read.parquet(DATA)",
    "@F.udf(returnType=IntegerType())\ndef bump(v):\n    return v + 5\n\n"
    "scored = df.withColumn('score', bump(F.col('v')))",
    "late = scored.filter(F.col('score') > 1000)\nlate.count()",
]
CODE_CELLS = [src.format(rows=ROWS) for src in PIPELINE]
NOTEBOOK_CELLS = [{"source": MARKDOWN, "cell_type": "markdown", "id": "intro"}] + [
    {"source": src, "cell_type": "code", "id": f"c{i}"} for i, src in enumerate(CODE_CELLS)
]

SUGGESTION_KEYS = {
    "source", "predicate", "kind", "proof", "cells", "source_event", "predicate_ir",
    "rows_before", "rows_after", "row_reduction", "estimated", "pipeline",
}


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


async def post_optimize(jp_fetch, body: Any, **kwargs: Any):
    payload = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return await jp_fetch("magicpush-lab", "optimize", method="POST", body=payload, **kwargs)


async def error_of(jp_fetch, body: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(HTTPClientError) as err:
        await post_optimize(jp_fetch, body)
    response = err.value.response
    assert response.headers["Content-Type"].startswith("application/json")
    return err.value.code, json.loads(response.body)


# -- health and authentication ----------------------------------------------------------


async def test_health_reports_version_and_engine_dependencies(jp_fetch):
    response = await jp_fetch("magicpush-lab", "health")
    assert response.code == 200
    assert json.loads(response.body) == {"version": magicpush_lab.__version__, "z3": True, "pyspark": True}


@pytest.mark.parametrize("method,route", [("GET", "health"), ("POST", "optimize")])
async def test_request_without_token_is_rejected(jp_fetch, method, route):
    kwargs = {"body": json.dumps({"trace": {}})} if method == "POST" else {}
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("magicpush-lab", route, method=method, headers={"Authorization": ""}, **kwargs)
    assert err.value.code in (401, 403)
    assert b"Traceback" not in (err.value.response.body or b"")


# -- bad requests ----------------------------------------------------------------------


async def test_malformed_json_is_400(jp_fetch):
    code, body = await error_of(jp_fetch, b'{"trace": {')
    assert code == 400
    assert body["kind"] == "malformed_json"
    assert "not valid JSON" in body["error"]


async def test_missing_trace_is_400(jp_fetch):
    code, body = await error_of(jp_fetch, {"notebook": {"path": "a.ipynb", "cells": []}})
    assert (code, body["kind"]) == (400, "missing_field")
    assert "'trace' is missing" in body["error"]


@pytest.mark.parametrize(
    "body,field",
    [
        ({"trace": {}, "notebook": {"cells": "print(1)"}}, "'notebook.cells' must be an array, got string"),
        ({"trace": {}, "notebook": {"cells": [{"source": 3, "cell_type": "code", "id": None}]}},
         "'notebook.cells[0].source' must be a string"),
        ({"trace": {}, "notebook": {"cells": [{"cell_type": "code"}]}}, "'notebook.cells[0].source' is missing"),
        ({"trace": {}, "notebook": {"path": 7}}, "'notebook.path' must be a string or null"),
        ({"trace": [], "notebook": {}}, "'trace' must be an object, got array"),
        ({"trace": {}, "kernel_id": 12}, "'kernel_id' must be a string or null, got number"),
        ({"trace": {}, "measure": "yes"}, "'measure' must be a boolean, got string"),
        ({"trace": {}, "time_budget": True}, "'time_budget' must be a number or null, got boolean"),
        ({"trace": {}, "time_budget": -1}, "'time_budget' must be between 0"),
        ({"trace": {}, "all_pipelines": 1}, "'all_pipelines' must be a boolean, got number"),
        ([1, 2], "'body' must be an object, got array"),
    ],
)
async def test_wrong_types_are_400_naming_the_field(jp_fetch, body, field):
    code, answer = await error_of(jp_fetch, body)
    assert code == 400
    assert field in answer["error"]


async def test_malformed_trace_is_400(jp_fetch):
    code, body = await error_of(jp_fetch, {"trace": {"events": [{"id": 1, "op": "filter"}]}, "measure": False})
    assert (code, body["kind"]) == (400, "invalid_trace")
    assert "plan" in body["error"]


async def test_body_over_the_limit_is_413(jp_fetch):
    filler = "x" * (MAX_BODY_BYTES + 1024)
    code, body = await error_of(jp_fetch, json.dumps({"trace": {}, "notebook": {"path": filler}}))
    assert (code, body["kind"]) == (413, "body_too_large")


async def test_unknown_kernel_is_404(jp_fetch):
    code, body = await error_of(jp_fetch, {"trace": {}, "kernel_id": str(uuid.uuid4())})
    assert (code, body["kind"]) == (404, "unknown_kernel")


# -- real traces -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def traced_pipeline(spark, tmp_path_factory) -> dict[str, Any]:
    """Run the notebook's code cells under the tracer, as the kernel extension does."""
    from magicpush_lab.capture.tracer import Tracer

    ns: dict[str, Any] = {"spark": spark, "DATA": str(tmp_path_factory.mktemp("data") / "scores.parquet")}
    tracer = Tracer()
    tracer.install()
    try:
        for count, src in enumerate(CODE_CELLS, start=1):
            name = f"<magicpush-test-cell-{count}>"
            # inspect.getsource (UDF sources) reads cells through linecache, as in IPython
            linecache.cache[name] = (len(src), None, src.splitlines(True), name)
            tracer.begin_cell(count, src, name)
            exec(compile(src, name, "exec"), ns)  # noqa: S102 - the test's own pipeline
            tracer.end_cell(ns)
    finally:
        tracer.uninstall()
    return tracer.trace().to_json()


def assert_contract(result: dict[str, Any], notebook_path: str | None) -> None:
    assert set(result) >= {"notebook", "suggestions", "optimizer_seconds", "notes", "measure_errors"}
    assert result["notebook"] == notebook_path
    assert isinstance(result["optimizer_seconds"], float)
    assert all(isinstance(note, str) for note in result["notes"])
    for suggestion in result["suggestions"]:
        assert set(suggestion) >= SUGGESTION_KEYS
        assert suggestion["kind"] in ("equivalent", "superset")
        for step in suggestion["proof"]:
            assert set(step) == {"operator", "category", "base_case_rows", "kind"}
            assert isinstance(step["base_case_rows"], int) and step["base_case_rows"] >= 0
        for change in suggestion["cells"]:
            # indices count every notebook cell, the markdown one included
            assert change["original"] == NOTEBOOK_CELLS[change["index"]]["source"]
            assert change["rewritten"] != change["original"]


def assert_udf_pushdown(result: dict[str, Any]) -> dict[str, Any]:
    """The late filter on the UDF column is pushed to `df` through the ROW-TO-ROW withColumn."""
    assert result["suggestions"], result["notes"]
    suggestion = result["suggestions"][0]
    assert suggestion["source"] == "df"
    categories = [(step["category"], step["base_case_rows"]) for step in suggestion["proof"]]
    assert ("ROW-TO-ROW", 1) in categories
    assert suggestion["cells"]
    return suggestion


async def test_optimize_real_trace_returns_the_contract(jp_fetch, traced_pipeline):
    request = {
        "trace": traced_pipeline,
        "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
        "kernel_id": None,
        "measure": False,
        "time_budget": 30,
    }
    response = await post_optimize(jp_fetch, request, request_timeout=120)
    assert response.code == 200
    result = json.loads(response.body)
    assert_contract(result, "scores.ipynb")
    assert result["measure_errors"] == []
    suggestion = assert_udf_pushdown(result)
    assert suggestion["rows_before"] is None and suggestion["rows_after"] is None


async def test_all_pipelines_names_the_pipeline_of_each_suggestion(jp_fetch, traced_pipeline):
    request = {"trace": traced_pipeline, "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
               "measure": False, "all_pipelines": True}
    result = json.loads((await post_optimize(jp_fetch, request, request_timeout=120)).body)
    assert_contract(result, "scores.ipynb")
    suggestion = assert_udf_pushdown(result)
    assert suggestion["pipeline"] in {name for name in traced_pipeline["variables"]}


async def test_measuring_without_a_kernel_says_why_rows_are_missing(jp_fetch, traced_pipeline):
    request = {"trace": traced_pipeline, "notebook": {"path": None, "cells": NOTEBOOK_CELLS}, "measure": True}
    response = await post_optimize(jp_fetch, request, request_timeout=120)
    result = json.loads(response.body)
    assert_contract(result, None)
    assert_udf_pushdown(result)
    assert result["measure_errors"] == ["not measured: the request names no kernel to count rows on"]


# -- measurement on a kernel started by the server --------------------------------------


async def run_in_kernel(client: Any, code: str, user_expressions: dict[str, str] | None = None) -> dict:
    reply = await client.execute_interactive(
        code, user_expressions=user_expressions or {}, timeout=180, output_hook=lambda msg: None
    )
    content = reply["content"]
    assert content["status"] == "ok", f"{content.get('ename')}: {content.get('evalue')}"
    return content


async def start_pipeline_kernel(km: Any, data: Path) -> tuple[str, Any, dict[str, Any]]:
    kernel_id = await km.start_kernel()
    client = km.get_kernel(kernel_id).client()
    client.start_channels()
    await client.wait_for_ready(timeout=60)
    await run_in_kernel(client, "%load_ext magicpush_lab")
    setup = (
        "from pyspark.sql import SparkSession\n"
        "spark = (SparkSession.builder.master('local[2]').config('spark.ui.enabled', 'false')\n"
        "         .config('spark.sql.shuffle.partitions', '2').getOrCreate())\n"
        f"DATA = {str(data)!r}"
    )
    await run_in_kernel(client, setup)
    for src in CODE_CELLS:
        await run_in_kernel(client, src)
    content = await run_in_kernel(client, "", {"t": TRACE_EXPRESSION})
    result = content["user_expressions"]["t"]
    assert result["status"] == "ok", result
    return kernel_id, client, result["data"][TRACE_MIME]


@pytest.fixture
def pipeline_kernel(jp_serverapp, tmp_path: Path):
    """A kernel managed by the server that ran the notebook with the tracer loaded."""
    km = jp_serverapp.kernel_manager
    loop = ensure_event_loop(prefer_selector_loop=True)
    kernel_id, client, trace = loop.run_until_complete(start_pipeline_kernel(km, tmp_path / "scores.parquet"))
    yield kernel_id, trace
    client.stop_channels()
    loop.run_until_complete(km.shutdown_kernel(kernel_id, now=True))


async def _measure_on_kernel_counts_rows_at_the_source(jp_serverapp, pipeline_kernel):
    kernel_id, trace = pipeline_kernel
    source_event = trace["variables"]["df"]
    predicate = Cmp(">", Col("v", dtype="int"), Lit(995, "int"))
    suggestion = Suggestion(
        source="df", predicate="F.col('v') > 995", kind="superset", proof=(), cells=(),
        source_event=source_event, predicate_ir=expr_to_json(predicate),
    )
    missing = Suggestion(
        source="gone", predicate="F.col('v') > 995", kind="superset", proof=(), cells=(),
        source_event=10_000, predicate_ir=expr_to_json(predicate),
    )
    requests = measure_requests([suggestion, missing])
    measurements = await measure_on_kernel(jp_serverapp.kernel_manager, kernel_id, requests, timeout=120)
    outcome = apply_measurements([suggestion, missing], measurements)
    measured, unmeasured = outcome.suggestions
    assert (measured.rows_before, measured.rows_after, measured.estimated) == (ROWS, ROWS_AFTER, False)
    assert measured.row_reduction == pytest.approx(1 - ROWS_AFTER / ROWS)
    assert unmeasured.rows_before is None
    assert len(outcome.errors) == 1 and outcome.errors[0].startswith("could not measure the filter on gone ")


async def _without_a_trace_the_server_pulls_it_from_the_notebook_kernel(jp_fetch, pipeline_kernel):
    """The sidebar's way: the browser names the kernel, the trace goes from it to the server."""
    kernel_id, trace = pipeline_kernel
    request = {"notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS}, "kernel_id": kernel_id,
               "measure": False}
    pulled = json.loads((await post_optimize(jp_fetch, request, request_timeout=300)).body)
    given = json.loads((await post_optimize(jp_fetch, {**request, "trace": trace}, request_timeout=300)).body)
    assert_contract(pulled, "scores.ipynb")
    assert [s["predicate"] for s in pulled["suggestions"]] == [s["predicate"] for s in given["suggestions"]]
    assert_udf_pushdown(pulled)


async def test_a_notebook_kernel_is_counted_on_pulled_from_and_optimized_with_measurements(
        jp_fetch, jp_serverapp, pipeline_kernel):
    """What the sidebar asks of the notebook's kernel, on one kernel (each start is a JVM's):
    the rows at the source counted, the trace pulled from it, and an optimization measured
    there, in one request and in the sidebar's two steps."""
    await _measure_on_kernel_counts_rows_at_the_source(jp_serverapp, pipeline_kernel)
    await _without_a_trace_the_server_pulls_it_from_the_notebook_kernel(jp_fetch, pipeline_kernel)
    await _optimize_measures_on_the_notebook_kernel(jp_fetch, pipeline_kernel)


@pytest.mark.parametrize("setup, status, kind", [
    ("", 409, "tracing_off"),  # a kernel that never loaded the extension
    ("%load_ext magicpush_lab\n%unload_ext magicpush_lab", 409, "tracing_off"),
])
async def test_pulling_a_trace_from_a_kernel_that_does_not_trace_says_why(jp_fetch, jp_serverapp, setup, status,
                                                                          kind):
    km = jp_serverapp.kernel_manager
    kernel_id = await km.start_kernel()
    client = km.get_kernel(kernel_id).client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        if setup:
            await run_in_kernel(client, setup)
        code, body = await error_of(jp_fetch, {"kernel_id": kernel_id, "measure": False})
    finally:
        client.stop_channels()
        await km.shutdown_kernel(kernel_id, now=True)
    assert (code, body["kind"]) == (status, kind), body


async def test_an_optimize_request_with_neither_trace_nor_kernel_is_400(jp_fetch):
    code, body = await error_of(jp_fetch, {"measure": False})
    assert (code, body["kind"]) == (400, "missing_field")
    assert "kernel_id" in body["error"]


async def test_a_trace_over_the_record_limit_is_413(jp_fetch, monkeypatch):
    from magicpush_lab.capture import trace as trace_module

    monkeypatch.setattr(trace_module, "MAX_PLAN_RECORDS", 5)
    records = [{"class": "x.LocalRelation", "#kids": []}] + [{"class": "x.Filter", "#kids": [i]} for i in range(9)]
    code, body = await error_of(jp_fetch, {"trace": {"events": [], "plans": records}, "measure": False})
    assert (code, body["kind"]) == (413, "trace_too_large")


async def _optimize_measures_on_the_notebook_kernel(jp_fetch, pipeline_kernel):
    kernel_id, trace = pipeline_kernel
    request = {
        "trace": trace,
        "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
        "kernel_id": kernel_id,
        "measure": True,
    }
    response = await post_optimize(jp_fetch, request, request_timeout=300)
    result = json.loads(response.body)
    assert_contract(result, "scores.ipynb")
    assert result["measure_errors"] == []
    suggestion = assert_udf_pushdown(result)
    assert (suggestion["rows_before"], suggestion["rows_after"]) == (ROWS, ROWS_AFTER)
    assert suggestion["row_reduction"] == pytest.approx(1 - ROWS_AFTER / ROWS)
    # the predicate read out of the UDF is a column comparison: it reaches the Parquet scan
    scan = suggestion["scan_filters"]
    assert (scan["scan"], scan["all_pushed"]) == ("Parquet", True), scan
    assert any(f.startswith("GreaterThan(v,") for f in scan["pushed"]), scan

    # the sidebar's two steps: suggestions first, unmeasured, then the measure route counts them
    unmeasured = json.loads((await post_optimize(jp_fetch, {**request, "measure": False}, request_timeout=300)).body)
    assert unmeasured["suggestions"][0]["rows_before"] is None
    response = await jp_fetch(
        "magicpush-lab", "measure", method="POST", request_timeout=300,
        body=json.dumps({"kernel_id": kernel_id, "suggestions": unmeasured["suggestions"]}))
    measured = json.loads(response.body)
    assert measured["measure_errors"] == []
    assert [(s["rows_before"], s["rows_after"]) for s in measured["suggestions"]] == [(ROWS, ROWS_AFTER)]
    assert measured["suggestions"][0]["cells"] == unmeasured["suggestions"][0]["cells"]


@pytest.mark.parametrize("body,status,kind", [
    ({"suggestions": []}, 400, "missing_field"),
    ({"kernel_id": "k", "suggestions": {}}, 400, "invalid_field"),
    ({"kernel_id": "k", "suggestions": [{"source": "t"}]}, 400, "invalid_field"),
    ({"kernel_id": "no-such-kernel", "suggestions": []}, 404, "unknown_kernel"),
])
async def test_measure_route_refuses_bad_requests_by_kind(jp_fetch, body, status, kind):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("magicpush-lab", "measure", method="POST", body=json.dumps(body))
    answer = json.loads(err.value.response.body)
    assert (err.value.code, answer["kind"]) == (status, kind), answer


async def test_measure_reports_a_kernel_without_tracing_instead_of_failing(jp_serverapp):
    km = jp_serverapp.kernel_manager
    kernel_id = await km.start_kernel()
    try:
        suggestion = Suggestion(
            source="df", predicate="F.col('v') > 995", kind="superset", proof=(), cells=(),
            source_event=1, predicate_ir=expr_to_json(Cmp(">", Col("v", dtype="int"), Lit(995, "int"))),
        )
        measurements = await measure_on_kernel(km, kernel_id, measure_requests([suggestion]), timeout=60)
    finally:
        await km.shutdown_kernel(kernel_id, now=True)
    outcome = apply_measurements([suggestion], measurements)
    assert outcome.suggestions[0].rows_before is None
    assert len(outcome.errors) == 1 and "tracing is not on" in outcome.errors[0]
