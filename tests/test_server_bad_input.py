"""Bad input everywhere, through a real Jupyter server: each class of bad input gets a clear
JSON `{"error", "kind"}` answer (or a result that says what it could not do), never a crash,
and the server keeps answering afterwards.

tests/test_server.py covers the basic request errors (no token on optimize/health, malformed
JSON, missing trace, wrong field types, malformed trace, body over the limit, unknown kernel);
this module adds the classes it does not: every route without a token, deeply nested JSON,
traces referencing cells the request does not carry, an exhausted optimizer time budget, a
kernel without Spark or tracing, a kernel that dies while measuring, the replay route's path
checks and failing notebooks, the user's kernel state after measuring, and estimated counts.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from jupyter_core.utils import ensure_event_loop
from tornado.httpclient import HTTPClientError

from tests import test_server
from tests.test_server import NOTEBOOK_CELLS, ROWS, ROWS_AFTER, assert_udf_pushdown, run_in_kernel, start_pipeline_kernel

pytest_plugins = ("pytest_jupyter.jupyter_server",)

# the same notebook pipeline, traced in the test process (a module-scoped fixture)
traced_pipeline = test_server.traced_pipeline

NOTEBOOKS = Path(__file__).parent / "notebooks"


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


async def post(jp_fetch, route: str, body: Any, **kwargs: Any):
    payload = body if isinstance(body, (bytes, str)) else json.dumps(body)
    kwargs.setdefault("request_timeout", 300)
    return await jp_fetch("magicpush-lab", route, method="POST", body=payload, **kwargs)


async def error_of(jp_fetch, route: str, body: Any, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(HTTPClientError) as err:
        await post(jp_fetch, route, body, **kwargs)
    response = err.value.response
    assert response.headers["Content-Type"].startswith("application/json")
    answer = json.loads(response.body)
    assert set(answer) >= {"error", "kind"} and answer["error"], answer
    return err.value.code, answer


async def assert_server_answers(jp_fetch) -> None:
    response = await jp_fetch("magicpush-lab", "health")
    assert response.code == 200 and json.loads(response.body)["z3"] is True


# -- authentication: every route --------------------------------------------------------

ROUTES = [("GET", "health", None), ("POST", "optimize", {"trace": {}}), ("POST", "replay", {"path": "a.ipynb"})]


@pytest.mark.parametrize("method,route,body", ROUTES, ids=[r[1] for r in ROUTES])
@pytest.mark.parametrize("authorization", ["", "token not-the-server-token"], ids=["no-token", "wrong-token"])
async def test_every_route_rejects_requests_without_the_servers_token(jp_fetch, method, route, body, authorization):
    kwargs = {"body": json.dumps(body)} if body is not None else {}
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("magicpush-lab", route, method=method, headers={"Authorization": authorization}, **kwargs)
    assert err.value.code in (401, 403)
    assert b"Traceback" not in (err.value.response.body or b"")


# -- bodies: huge, deeply nested, wrong shapes, on both POST routes ----------------------

DEPTH = 100_000

BAD_BODIES = [
    # (route, body, status, kind)
    ("optimize", b"[" * DEPTH + b"]" * DEPTH, 400, "malformed_json"),
    ("optimize", b'{"trace": ' + b'{"a": ' * DEPTH + b"1" + b"}" * DEPTH + b"}", 400, "malformed_json"),
    ("optimize", b"", 400, "malformed_json"),
    ("optimize", b"\xff\xfe not utf-8", 400, "malformed_json"),
    ("optimize", {"trace": {}, "measure_time_limit": 0}, 400, "invalid_field"),
    ("measure", {"kernel_id": "k", "suggestions": [], "sample_fraction": 0}, 400, "invalid_field"),
    ("measure", {"kernel_id": "k", "suggestions": [], "sample_fraction": 1.5}, 400, "invalid_field"),
    ("measure", {"kernel_id": "k", "suggestions": [], "sample_fraction": "1%"}, 400, "invalid_field"),
    ("optimize", {"trace": {}, "measure_time_limit": "1s"}, 400, "invalid_field"),
    ("optimize", {"trace": {}, "time_budget": float("1e309")}, 400, "invalid_field"),
    ("optimize", {"trace": {"events": "none"}}, 400, "invalid_trace"),
    ("optimize", {"trace": {"events": [{"id": 1, "op": "filter", "plan": "[]", "site": {"x": 1}}]}},
     400, "invalid_trace"),
    ("replay", b"[" * DEPTH + b"]" * DEPTH, 400, "malformed_json"),
    ("replay", b"{", 400, "malformed_json"),
    ("replay", {}, 400, "missing_field"),
    ("replay", {"path": ["a.ipynb"]}, 400, "invalid_field"),
    ("replay", {"path": "a.ipynb", "timeout": -5}, 400, "invalid_field"),
    ("replay", {"path": "a.ipynb", "timeout": 0.5}, 400, "invalid_field"),
    ("replay", {"path": "a.ipynb", "timeout": 1e6}, 400, "invalid_field"),
    ("replay", {"path": "a.ipynb", "measure": "no"}, 400, "invalid_field"),
    ("replay", {"path": ""}, 400, "invalid_field"),
]


@pytest.mark.parametrize("route,body,status,kind", BAD_BODIES)
async def test_bad_bodies_get_a_json_error_naming_the_problem(jp_fetch, route, body, status, kind):
    code, answer = await error_of(jp_fetch, route, body)
    assert (code, answer["kind"]) == (status, kind), answer
    await assert_server_answers(jp_fetch)


async def test_a_huge_replay_body_is_413(jp_fetch):
    from magicpush_lab.server.validation import MAX_BODY_BYTES

    code, answer = await error_of(jp_fetch, "replay", json.dumps({"path": "x" * (MAX_BODY_BYTES + 10)}))
    assert (code, answer["kind"]) == (413, "body_too_large")


# -- traces that reference cells the request does not carry ------------------------------


def _drop_trace_cells(trace: dict[str, Any]) -> dict[str, Any]:
    trace["cells"] = []
    return trace


def _sites_in_unknown_cells(trace: dict[str, Any]) -> dict[str, Any]:
    for event in trace["events"]:
        if event.get("site"):
            event["site"]["execution_count"] += 1000
    return trace


def _sites_past_the_cell_end(trace: dict[str, Any]) -> dict[str, Any]:
    for event in trace["events"]:
        if event.get("site"):
            event["site"].update(lineno=400, end_lineno=401)
    return trace


def _foreign_cell_ids(trace: dict[str, Any]) -> dict[str, Any]:
    for cell in trace["cells"]:
        cell["cell_id"] = f"gone-{uuid.uuid4().hex}"
    return trace


def _same(trace: dict[str, Any]) -> dict[str, Any]:
    return trace


NOT_IN_NOTEBOOK = "cannot be rewritten: the cell that ran as execution [3] is not in the notebook"
NO_SOURCE = "cannot be rewritten: the trace has no source for the cell that ran as execution"
EDITED = "was the cell edited after it ran?"

MISSING_CELLS = [
    # (trace mutation, notebook cells sent, a note the result must carry; None: the rewrite stands)
    ("notebook-cells-shorter-than-trace", _same, NOTEBOOK_CELLS[:2], NOT_IN_NOTEBOOK),
    ("only-the-markdown-cell", _same, NOTEBOOK_CELLS[:1], NOT_IN_NOTEBOOK),
    ("cells-edited-since-the-trace", _same,
     [{**c, "source": "# edited\n" + c["source"]} for c in NOTEBOOK_CELLS], NOT_IN_NOTEBOOK),
    ("trace-without-cells", _drop_trace_cells, NOTEBOOK_CELLS, NO_SOURCE),
    ("sites-in-unknown-executions", _sites_in_unknown_cells, NOTEBOOK_CELLS, NO_SOURCE),
    ("sites-past-the-cell-end", _sites_past_the_cell_end, NOTEBOOK_CELLS, EDITED),
    # cells are matched by their text, so ids the notebook does not know do not matter
    ("cell-ids-not-in-the-notebook", _foreign_cell_ids, NOTEBOOK_CELLS, None),
]


@pytest.mark.parametrize("mutate,cells,note", [c[1:] for c in MISSING_CELLS], ids=[c[0] for c in MISSING_CELLS])
async def test_traces_referencing_missing_cells_never_rewrite_a_cell_that_is_not_there(
    jp_fetch, traced_pipeline, mutate, cells, note
):
    request = {
        "trace": mutate(copy.deepcopy(traced_pipeline)),
        "notebook": {"path": "scores.ipynb", "cells": cells},
        "measure": False,
        "time_budget": 30,
    }
    response = await post(jp_fetch, "optimize", request)
    result = json.loads(response.body)
    assert response.code == 200
    if note is None:
        assert_udf_pushdown(result)
    else:
        # proved, but with no cell to rewrite there is no suggestion, and the notes say why
        assert result["suggestions"] == []
        assert any(note in n for n in result["notes"]), result["notes"]
    for suggestion in result["suggestions"]:
        for change in suggestion["cells"]:
            # a rewrite names a cell the request sent and starts from that cell's own text
            assert 0 <= change["index"] < len(cells), change
            assert change["original"] == cells[change["index"]]["source"]
    await assert_server_answers(jp_fetch)


# -- the optimizer's time budget runs out -------------------------------------------------


async def test_an_exhausted_time_budget_pushes_nothing_and_says_so(jp_fetch, traced_pipeline):
    request = {
        "trace": traced_pipeline,
        "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
        "measure": False,
        "time_budget": 1e-9,
    }
    response = await post(jp_fetch, "optimize", request)
    result = json.loads(response.body)
    assert response.code == 200
    # a proof that did not finish in time is not a proof: nothing is suggested
    assert result["suggestions"] == []
    assert any("time" in note.lower() for note in result["notes"]), result["notes"]


async def test_the_same_trace_with_time_to_prove_pushes(jp_fetch, traced_pipeline):
    """The neighbour of the exhausted budget: the trace itself has a proved pushdown."""
    request = {
        "trace": traced_pipeline,
        "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
        "measure": False,
        "time_budget": 60,
    }
    result = json.loads((await post(jp_fetch, "optimize", request)).body)
    assert_udf_pushdown(result)


# -- kernels that cannot measure ----------------------------------------------------------


async def _start_kernel(km: Any, code: list[str]) -> tuple[str, Any]:
    kernel_id = await km.start_kernel()
    client = km.get_kernel(kernel_id).client()
    client.start_channels()
    await client.wait_for_ready(timeout=60)
    for src in code:
        await run_in_kernel(client, src)
    return kernel_id, client


NO_SPARK_KERNELS = [
    ("plain-kernel", []),
    ("tracing-but-no-spark", ["%load_ext magicpush_lab", "x = 1"]),
]


@pytest.mark.parametrize("code", [k[1] for k in NO_SPARK_KERNELS], ids=[k[0] for k in NO_SPARK_KERNELS])
async def test_a_kernel_without_the_pipeline_reports_measure_errors(jp_fetch, jp_serverapp, traced_pipeline, code):
    km = jp_serverapp.kernel_manager
    kernel_id, client = await _start_kernel(km, code)
    try:
        request = {
            "trace": traced_pipeline,
            "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
            "kernel_id": kernel_id,
            "measure": True,
        }
        result = json.loads((await post(jp_fetch, "optimize", request)).body)
    finally:
        client.stop_channels()
        await km.shutdown_kernel(kernel_id, now=True)
    suggestion = assert_udf_pushdown(result)
    assert suggestion["rows_before"] is None
    assert result["measure_errors"], result
    assert all(isinstance(e, str) and e for e in result["measure_errors"])


DEATHS = ["shutdown", "kill"]


@pytest.mark.parametrize("death", DEATHS)
async def test_a_kernel_dying_while_measuring_is_a_measure_error(jp_fetch, jp_serverapp, traced_pipeline, death):
    km = jp_serverapp.kernel_manager
    kernel_id, client = await _start_kernel(km, ["%load_ext magicpush_lab"])
    # the measure request queues behind this cell, so the kernel dies while it waits
    client.execute("import time\ntime.sleep(120)")
    request = {
        "trace": traced_pipeline,
        "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
        "kernel_id": kernel_id,
        "measure": True,
    }
    measuring = asyncio.ensure_future(post(jp_fetch, "optimize", request))
    try:
        # optimizing takes a moment; the kernel dies once the measurement is under way or before
        await asyncio.sleep(5)
        if death == "kill":
            await km.get_kernel(kernel_id).provisioner.kill()
        else:
            await km.shutdown_kernel(kernel_id, now=True)
        response = await measuring
    finally:
        client.stop_channels()
        if kernel_id in km:
            await km.shutdown_kernel(kernel_id, now=True)
    result = json.loads(response.body)
    assert response.code == 200
    assert_udf_pushdown(result)
    assert len(result["measure_errors"]) == 1, result["measure_errors"]
    assert any(word in result["measure_errors"][0] for word in ("died", "no longer running")), result
    await assert_server_answers(jp_fetch)


# -- measuring leaves the user's kernel as it was -----------------------------------------

STATE = {
    "rows": "df.count()",
    "late_rows": "late.count()",
    "df_rows": "sorted(tuple(r) for r in df.collect())[:50]",
    "counter": "counter",
    "views": "sorted(t.name for t in spark.catalog.listTables())",
    "cached": "[df.is_cached, scored.is_cached, late.is_cached]",
    "names": "sorted(k for k in globals() if not k.startswith('_'))",
    "jobs_groups": "spark.sparkContext.getLocalProperty('spark.jobGroup.id')",
}


async def _kernel_state(client: Any) -> dict[str, Any]:
    content = await run_in_kernel(client, "", STATE)
    state = {}
    for key, value in content["user_expressions"].items():
        assert value["status"] == "ok", value
        state[key] = value["data"]["text/plain"]
    return state


@pytest.fixture
def measured_kernel(jp_serverapp, tmp_path: Path):
    km = jp_serverapp.kernel_manager
    loop = ensure_event_loop(prefer_selector_loop=True)
    kernel_id, client, trace = loop.run_until_complete(start_pipeline_kernel(km, tmp_path / "scores.parquet"))
    yield kernel_id, client, trace
    client.stop_channels()
    loop.run_until_complete(km.shutdown_kernel(kernel_id, now=True))


async def _fresh_client(km: Any, kernel_id: str) -> Any:
    client = km.get_kernel(kernel_id).client()
    client.start_channels()
    await client.wait_for_ready(timeout=60)
    return client


async def _measuring_changes_nothing_in_the_users_kernel(jp_fetch, jp_serverapp, measured_kernel):
    kernel_id, _, trace = measured_kernel
    km = jp_serverapp.kernel_manager
    client = await _fresh_client(km, kernel_id)
    await run_in_kernel(client, "counter = 41\nspark.createDataFrame([(1,)], ['a']).createOrReplaceTempView('mine')")
    before = await _kernel_state(client)
    client.stop_channels()
    request = {
        "trace": trace,
        "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
        "kernel_id": kernel_id,
        "measure": True,
    }
    result = json.loads((await post(jp_fetch, "optimize", request)).body)
    suggestion = assert_udf_pushdown(result)
    assert (suggestion["rows_before"], suggestion["rows_after"]) == (ROWS, ROWS_AFTER)
    client = await _fresh_client(km, kernel_id)
    try:
        after = await _kernel_state(client)
    finally:
        client.stop_channels()
    assert after == before
    assert before["views"] == "['mine']" and before["counter"] == "41"


# -- large data: a count past its time limit is estimated on a sample ----------------------


async def _a_count_past_its_time_limit_is_estimated_and_flagged(jp_fetch, measured_kernel):
    kernel_id, _, trace = measured_kernel
    request = {
        "trace": trace,
        "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
        "kernel_id": kernel_id,
        "measure": True,
        # no Spark job finishes in a microsecond: the exact counts give way to the sample
        "measure_time_limit": 1e-6,
    }
    result = json.loads((await post(jp_fetch, "optimize", request)).body)
    assert result["measure_errors"] == []
    suggestion = assert_udf_pushdown(result)
    assert suggestion["estimated"] is True
    # scaled up from a 1% sample: the figures are estimates, not the exact counts
    assert isinstance(suggestion["rows_before"], int) and isinstance(suggestion["rows_after"], int)
    assert suggestion["rows_after"] <= suggestion["rows_before"]


async def _the_sample_share_of_an_estimate_is_the_requests_own(jp_fetch, measured_kernel):
    """The sidebar's sample size setting: with a 50% sample the estimate is close to the exact
    count; the default 1% sample of the same rows is what the neighbour above gets."""
    kernel_id, _, trace = measured_kernel
    shown = json.loads((await post(jp_fetch, "optimize", {
        "trace": trace, "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS}, "kernel_id": kernel_id,
        "measure": True})).body)
    exact = assert_udf_pushdown(shown)
    assert exact["estimated"] is False
    sampled = json.loads((await post(jp_fetch, "measure", {
        "kernel_id": kernel_id, "suggestions": shown["suggestions"], "measure_time_limit": 1e-6,
        "sample_fraction": 0.5})).body)
    assert sampled["measure_errors"] == []
    [estimate] = [s for s in sampled["suggestions"] if s["source"] == exact["source"]]
    assert estimate["estimated"] is True
    assert 0.8 < estimate["rows_before"] / exact["rows_before"] < 1.2


async def test_measuring_on_the_users_kernel_leaves_it_as_it_was_and_estimates_past_the_time_limit(
        jp_fetch, jp_serverapp, measured_kernel):
    """On one notebook kernel (each start is a JVM's): measuring leaves the user's state as it
    was; a count past its time limit gives an estimate, flagged; the sample share is the
    request's own."""
    await _measuring_changes_nothing_in_the_users_kernel(jp_fetch, jp_serverapp, measured_kernel)
    await _a_count_past_its_time_limit_is_estimated_and_flagged(jp_fetch, measured_kernel)
    await _the_sample_share_of_an_estimate_is_the_requests_own(jp_fetch, measured_kernel)


# -- replay: paths stay inside the root, failures name the cell, the file is never written ---


ODD_NOTEBOOKS = {
    # JSON, but not a notebook nbformat can read into cells
    "empty-object.ipynb": "{}",
    "array.ipynb": "[]",
    "cells-not-a-list.ipynb": '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": 3}',
    "cell-not-an-object.ipynb": '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [3]}',
}


@pytest.fixture
def root_with_notebooks(jp_root_dir: Path, tmp_path: Path) -> Path:
    (jp_root_dir / "nb").mkdir()
    shutil.copy(NOTEBOOKS / "broken.py", jp_root_dir / "nb" / "broken.py")
    (jp_root_dir / "nb" / "notes.txt").write_text("not a notebook\n")
    (jp_root_dir / "nb" / "garbled.ipynb").write_text("{ this is not json")
    for name, text in ODD_NOTEBOOKS.items():
        (jp_root_dir / "nb" / name).write_text(text)
    (jp_root_dir / "nb" / "slow.py").write_text("# %%\nimport time\n\n# %%\ntime.sleep(60)\n")
    (jp_root_dir / "nb" / "syntax.py").write_text("# %%\nx = 1\n\n# %%\ndef broken(:\n    pass\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("x = 1\n")
    os.symlink(outside / "secret.py", jp_root_dir / "nb" / "link.py")
    os.symlink(outside, jp_root_dir / "nb" / "linkdir")
    return jp_root_dir


REPLAY_PATHS = [
    # (path, status, kind)
    ("/etc/passwd", 403, "path_outside_root"),
    ("../outside/secret.py", 403, "path_outside_root"),
    ("nb/../../outside/secret.py", 403, "path_outside_root"),
    ("nb/link.py", 403, "path_outside_root"),
    ("nb/linkdir/secret.py", 403, "path_outside_root"),
    ("C:\\Windows\\win.ini", 403, "path_outside_root"),
    ("nb/missing.ipynb", 404, "not_found"),
    ("nb/notes.txt", 400, "not_a_notebook"),
    ("nb", 400, "not_a_notebook"),
    ("nb/garbled.ipynb", 400, "not_a_notebook"),
    *((f"nb/{name}", 400, "not_a_notebook") for name in ODD_NOTEBOOKS),
]


@pytest.mark.parametrize("path,status,kind", REPLAY_PATHS)
async def test_replay_refuses_paths_that_are_not_notebooks_inside_the_root(
    jp_fetch, root_with_notebooks, path, status, kind
):
    code, answer = await error_of(jp_fetch, "replay", {"path": path, "measure": False})
    assert (code, answer["kind"]) == (status, kind), answer
    assert str(root_with_notebooks) not in answer["error"]  # no server paths in answers


FAILING_REPLAYS = [
    # (notebook, per-cell timeout, failing cell index, ename, text of evalue)
    ("nb/broken.py", 120, 1, "ValueError", "value too small"),
    ("nb/slow.py", 3, 1, "CellTimeoutError", "longer than 3"),
    ("nb/syntax.py", 120, 1, "SyntaxError", ""),
]


@pytest.mark.parametrize("path,timeout,cell,ename,evalue", FAILING_REPLAYS)
async def test_a_notebook_failing_on_replay_is_422_naming_the_cell(
    jp_fetch, root_with_notebooks, path, timeout, cell, ename, evalue
):
    target = root_with_notebooks / path
    original = target.read_bytes()
    code, answer = await error_of(jp_fetch, "replay", {"path": path, "timeout": timeout})
    assert (code, answer["kind"]) == (422, "replay_failed")
    assert (answer["cell_index"], answer["ename"]) == (cell, ename), answer
    assert evalue in answer["evalue"]
    # named as the replay's prompt shows it: a script's cells run in order from [1]
    assert answer["error"].startswith(f"{path}: cell [{cell + 1}] failed")
    assert str(root_with_notebooks) not in json.dumps(answer)
    assert target.read_bytes() == original
    await assert_server_answers(jp_fetch)


async def test_replay_of_a_pyspark_notebook_returns_measured_suggestions_and_leaves_the_file(
    jp_fetch, jp_root_dir
):
    target = jp_root_dir / "sales_pipeline.py"
    shutil.copy(NOTEBOOKS / "sales_pipeline.py", target)
    original = target.read_bytes()
    response = await post(jp_fetch, "replay", {"path": "sales_pipeline.py", "timeout": 300}, request_timeout=600)
    result = json.loads(response.body)
    assert response.code == 200
    assert result["notebook"] == "sales_pipeline.py"
    assert result["measure_errors"] == []
    suggestion = next(s for s in result["suggestions"] if s["source"] == "sales")
    assert "995" in suggestion["predicate"]
    # v is 0..999: four rows of the 1000 are above 995
    assert (suggestion["rows_before"], suggestion["rows_after"], suggestion["estimated"]) == (1000, 4, False)
    assert target.read_bytes() == original
