"""Cancel stops the work in the kernel: the sidebar's Cancel closes its request, and the server
interrupts the kernel while (and only while) it runs that request, which cancels its Spark jobs.

The pipeline's source is a range of 10**12 rows: counting it, or running the pipeline over it,
would take many minutes, so a kernel that is idle seconds after the cancel proves the job stopped.
The request is closed once Spark's own REST API reports its job running (not after a fixed
wait, which on a busy machine may end before the kernel has started any job).
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from typing import Any

import pytest
from jupyter_core.utils import ensure_event_loop
from tornado.httpclient import HTTPClientError

from magicpush_lab.protocol import TRACE_EXPRESSION, TRACE_MIME
from tests.connect_support import free_port
from tests.test_server import run_in_kernel

pytest_plugins = ("pytest_jupyter.jupyter_server",)

HUGE = 10**12
# Spark's UI (and its REST API) on a port of this test's own: other Spark sessions may hold 4040
UI_PORT = free_port()
CELLS = [
    "from pyspark.sql import SparkSession, functions as F\nfrom pyspark.sql.types import IntegerType\n"
    f"spark = (SparkSession.builder.master('local[2]').config('spark.ui.port', '{UI_PORT}')\n"
    "         .config('spark.ui.enabled', 'true').config('spark.sql.shuffle.partitions', '2').getOrCreate())",
    f"df = spark.range(0, {HUGE}).selectExpr('id AS k', 'CAST(id % 1000 AS INT) AS v')",
    "@F.udf(returnType=IntegerType())\ndef bump(v):\n    return v + 5\n\n"
    "scored = df.withColumn('score', bump(F.col('v')))",
    "late = scored.filter(F.col('score') > 1000)",
]
NOTEBOOK_CELLS = [{"source": src, "cell_type": "code", "id": f"c{i}"} for i, src in enumerate(CELLS)]


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


async def _start(km: Any, cells: list[str] = CELLS) -> tuple[str, Any, dict[str, Any], str]:
    """A kernel of `km` that ran `cells` traced: its id, a client, its trace and its Spark UI's URL."""
    kernel_id = await km.start_kernel()
    client = km.get_kernel(kernel_id).client()
    client.start_channels()
    await client.wait_for_ready(timeout=60)
    await run_in_kernel(client, "%load_ext magicpush_lab")
    for src in cells:
        await run_in_kernel(client, src)
    content = await run_in_kernel(client, "", {"t": TRACE_EXPRESSION, "ui": "spark.sparkContext.uiWebUrl"})
    found = content["user_expressions"]
    return kernel_id, client, found["t"]["data"][TRACE_MIME], found["ui"]["data"]["text/plain"].strip("'")


@pytest.fixture
def huge_kernel(jp_serverapp):
    km = jp_serverapp.kernel_manager
    loop = ensure_event_loop(prefer_selector_loop=True)
    kernel_id, client, trace, ui = loop.run_until_complete(_start(km))
    client.stop_channels()
    yield kernel_id, trace, ui
    loop.run_until_complete(km.shutdown_kernel(kernel_id, now=True))


async def _client(jp_serverapp: Any, kernel_id: str) -> Any:
    """A client of the kernel on the test's own event loop (the fixture's runs on another), with a
    session of its own: the server's clients share the kernel manager's, and replies go to the
    socket identity that asked (a shared one may hand the user's reply to the server)."""
    from jupyter_client.session import Session

    kernel = jp_serverapp.kernel_manager.get_kernel(kernel_id)
    client = kernel.client(session=Session(key=kernel.session.key, signature_scheme=kernel.session.signature_scheme))
    client.start_channels()
    await client.wait_for_ready(timeout=60)
    return client


async def _suggestions(jp_fetch, kernel_id: str, trace: dict[str, Any]) -> list[dict[str, Any]]:
    response = await jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=300, body=json.dumps(
        {"trace": trace, "notebook": {"path": "huge.ipynb", "cells": NOTEBOOK_CELLS}, "kernel_id": kernel_id,
         "measure": False}))
    suggestions = json.loads(response.body)["suggestions"]
    assert suggestions, "the pipeline's filter must be proved for this test to mean anything"
    return suggestions


def _body(route: str, kernel_id: str, suggestions: list[dict[str, Any]]) -> dict[str, Any]:
    if route == "measure":
        # no time limit: without a cancel the exact count of 10**12 rows would run on
        return {"kernel_id": kernel_id, "suggestions": suggestions[:1], "measure_time_limit": 3600}
    return {"kernel_id": kernel_id, "suggestion": suggestions[0], "runs": 1, "time_limit": 3600}


async def _cancelled(jp_fetch, route: str, body: dict[str, Any], after: float) -> None:
    """Post `body` to `route` and go away after `after` seconds, as the sidebar's Cancel does."""
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("magicpush-lab", route, method="POST", body=json.dumps(body), request_timeout=after)
    assert err.value.code == 599  # the client's own time-out: it closed the connection


def _spark_jobs(ui: str, status: str) -> list[int]:
    """The ids of the Spark jobs in `status` ("running", "failed", ...), from the REST API of the
    Spark UI at `ui`."""
    def get(path: str) -> Any:
        with urllib.request.urlopen(f"{ui}/api/v1/{path}", timeout=30) as reply:
            return json.load(reply)

    app = get("applications")[0]["id"]
    return [job["jobId"] for job in get(f"applications/{app}/jobs?status={status}")]


async def _cancelled_once_running(port: int, auth: dict[str, str], base_url: str, route: str,
                                  body: dict[str, Any], ui: str, within: float = 180) -> None:
    """Post `body` to `route` and close the connection, as the sidebar's Cancel does, as soon as
    Spark reports a job running."""
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = json.dumps(body).encode()
    head = "".join([f"POST {base_url}magicpush-lab/{route} HTTP/1.1\r\n", f"Host: 127.0.0.1:{port}\r\n",
                    *(f"{k}: {v}\r\n" for k, v in auth.items()), "Content-Type: application/json\r\n",
                    f"Content-Length: {len(payload)}\r\n\r\n"])
    writer.write(head.encode() + payload)
    await writer.drain()
    deadline = time.monotonic() + within
    try:
        while not await asyncio.to_thread(_spark_jobs, ui, "running"):
            assert time.monotonic() < deadline, f"no Spark job started within {within:g} s of the request"
            await asyncio.sleep(0.25)
    finally:
        writer.close()


async def _idle_within(client: Any, seconds: float, start: float) -> float:
    """Seconds from `start` until the kernel has answered a trivial request."""
    reply = await client.execute_interactive("1", timeout=seconds, output_hook=lambda msg: None)
    assert reply["content"]["status"] == "ok"
    return time.monotonic() - start


@pytest.mark.parametrize("route", ["measure", "runtime"])
async def test_cancel_interrupts_the_kernel_and_its_spark_job_stops(jp_fetch, jp_serverapp, jp_http_port,
                                                                    jp_auth_header, jp_base_url, huge_kernel, route):
    kernel_id, trace, ui = huge_kernel
    suggestions = await _suggestions(jp_fetch, kernel_id, trace)
    await _cancelled_once_running(jp_http_port, jp_auth_header, jp_base_url, route,
                                  _body(route, kernel_id, suggestions), ui)
    cancelled = time.monotonic()

    client = await _client(jp_serverapp, kernel_id)
    waited = await _idle_within(client, 20, cancelled)  # the count of 10**12 rows would take many minutes
    print(f"{route}: the kernel answered {waited:.1f} s after the cancel")
    content = await run_in_kernel(client, "sc = spark.sparkContext", {
        "active": "sc.statusTracker().getActiveJobsIds()",
        "states": "[sc.statusTracker().getJobInfo(j).status for j in range(200) if sc.statusTracker().getJobInfo(j)]",
    })
    results = content["user_expressions"]
    assert results["active"]["data"]["text/plain"] == "[]", results
    states = results["states"]["data"]["text/plain"]
    assert "FAILED" in states, states  # the measurement's job, cancelled (Spark reports it FAILED)
    assert "RUNNING" not in states, states
    assert _spark_jobs(ui, "running") == []


async def test_cancel_waits_for_a_users_cell_and_never_interrupts_it(jp_fetch, jp_serverapp, huge_kernel):
    """The neighbour: a request cancelled while it waits behind the user's running cell leaves
    that cell alone; the measurement is interrupted when it starts, after the cell."""
    kernel_id, trace, _ = huge_kernel
    client = await _client(jp_serverapp, kernel_id)
    suggestions = await _suggestions(jp_fetch, kernel_id, trace)
    users_cell = client.execute("import time\ntime.sleep(8)\nusers_cell_finished = True")
    await asyncio.sleep(0.5)
    await _cancelled(jp_fetch, "measure", _body("measure", kernel_id, suggestions), after=3)

    while True:  # the user's cell's own reply
        reply = await client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == users_cell:
            break
    assert reply["content"]["status"] == "ok", reply["content"]  # not a KeyboardInterrupt
    waited = await _idle_within(client, 30, time.monotonic())
    print(f"the kernel answered {waited:.1f} s after the user's cell")
    content = await run_in_kernel(client, "", {"done": "users_cell_finished",
                                               "active": "spark.sparkContext.statusTracker().getActiveJobsIds()"})
    assert content["user_expressions"]["done"]["data"]["text/plain"] == "True"
    assert content["user_expressions"]["active"]["data"]["text/plain"] == "[]"
