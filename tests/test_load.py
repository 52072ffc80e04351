"""The server under load: optimize, measure, runtime and replay requests at once, through a real
Jupyter server on 127.0.0.1, a few hundred requests in all.

Every request must get its own right answer, nothing may block the event loop (parsing, optimizing
and reading files run off it: each such call is recorded with the thread it ran on, and the health
route keeps answering meanwhile), and afterwards no kernel and no Java process started for the
requests may be left. The health route's latencies are printed, not asserted: on a loaded 2-core
machine they measure the machine as much as the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.test_server import NOTEBOOK_CELLS, ROWS, ROWS_AFTER, assert_udf_pushdown, pipeline_kernel  # noqa: F401
from tests.test_server_replay import descendants, pid_alive

# a few hundred requests through a real server: about 45 s of a CI worker, so the slow tier runs it
pytestmark = pytest.mark.slow

pytest_plugins = ("pytest_jupyter.jupyter_server",)

NOTEBOOKS = Path(__file__).parent / "notebooks"

OPTIMIZE = 12  # of which MEASURED count rows on the notebook's kernel
MEASURED = 4
MEASURE = 8
RUNTIME = 2
QUICK_REPLAYS = 2  # besides one replay of a PySpark notebook
HEALTH_EVERY = 0.3
#: the server's blocking calls, each of which must run off the event loop's thread
BLOCKING = (("routes", "parse_optimize_request"), ("routes", "_optimize"), ("routes", "parse_measure_request"),
            ("routes", "parse_runtime_request"), ("routes", "parse_replay_request"), ("notebook", "read_document"))


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


@pytest.fixture
def fetch(http_server_client, jp_asyncio_loop, jp_base_url, jp_auth_header):
    """A client of the test server that opens as many connections as there are requests (jp_fetch's
    opens ten, and would queue the rest, health polls included, on the client's side)."""
    from tornado.httpclient import AsyncHTTPClient

    async def make() -> Any:  # made on the server's event loop, which the test runs on
        return AsyncHTTPClient(force_instance=True, max_clients=64)

    client = jp_asyncio_loop.run_until_complete(make())

    async def fetch(route: str, body: dict[str, Any] | None = None) -> Any:
        url = http_server_client.get_url(f"{jp_base_url.rstrip('/')}/magicpush-lab/{route}")
        return await client.fetch(url, method="GET" if body is None else "POST", headers=jp_auth_header,
                                  body=None if body is None else json.dumps(body), request_timeout=600)

    yield fetch
    client.close()


async def post(fetch: Any, route: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await fetch(route, body)
    assert response.code == 200
    return json.loads(response.body)


@pytest.fixture
def blocking_calls(monkeypatch):
    """Each blocking call the server makes, as (name, ran on the event loop's thread)."""
    from magicpush_lab.driver import notebook
    from magicpush_lab.server import routes

    loop_thread = threading.get_ident()  # the test, and the server, run on this thread's event loop
    calls: list[tuple[str, bool]] = []

    def recorded(name: str, fn: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append((name, threading.get_ident() == loop_thread))
            return fn(*args, **kwargs)
        return call

    modules = {"routes": routes, "notebook": notebook}  # read_document is imported where it is called
    for module, name in BLOCKING:
        monkeypatch.setattr(modules[module], name, recorded(name, getattr(modules[module], name)))
    return calls


async def test_concurrent_optimize_measure_runtime_and_replay_requests_all_answered(
        fetch, jp_serverapp, jp_root_dir, pipeline_kernel, blocking_calls):  # noqa: F811
    kernel_id, trace = pipeline_kernel
    km = jp_serverapp.kernel_manager
    shutil.copy(NOTEBOOKS / "sales_pipeline.py", jp_root_dir / "sales_pipeline.py")
    (jp_root_dir / "quick.py").write_text("# %%\nx = 1\n\n# %%\ny = x + 1\n")
    notebook = {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS}
    shown = await post(fetch, "optimize", {"trace": trace, "notebook": notebook, "measure": False})
    suggestion = assert_udf_pushdown(shown)

    ours = os.getpid()
    before = set(descendants(ours))
    notebook_kernel = km.get_kernel(kernel_id).provisioner.pid
    seen: dict[int, str] = {}
    latencies: list[float] = []
    in_flight = 0
    answered_under_load = 0  # health answers that came back while other requests were still running
    done = asyncio.Event()

    async def watch() -> None:
        """Poll the health route and note every process started meanwhile."""
        nonlocal answered_under_load
        while not done.is_set():
            if len(latencies) < 600:  # the request count stays bounded; the process watch goes on
                started = time.monotonic()
                response = await fetch("health")
                latencies.append(time.monotonic() - started)
                assert response.code == 200
                answered_under_load += in_flight > 0
            keep = set(descendants(notebook_kernel)) | {notebook_kernel}
            for pid, cmd in descendants(ours).items():
                # a process that has exited but is not yet reaped reads as an empty command line:
                # keep what it was seen running before
                if pid not in before and pid not in keep and cmd:
                    seen.setdefault(pid, cmd)
                    if "java" in cmd:
                        seen[pid] = cmd
            await asyncio.sleep(HEALTH_EVERY)

    async def optimize(i: int) -> None:
        measured = i < MEASURED
        result = await post(fetch, "optimize", {"trace": trace, "notebook": notebook, "kernel_id": kernel_id,
                                                   "measure": measured, "time_budget": 30})
        s = assert_udf_pushdown(result)
        assert result["measure_errors"] == []
        expected = (ROWS, ROWS_AFTER) if measured else (None, None)
        assert (s["rows_before"], s["rows_after"]) == expected

    async def measure() -> None:
        result = await post(fetch, "measure", {"kernel_id": kernel_id, "suggestions": shown["suggestions"]})
        assert result["measure_errors"] == []
        assert (result["suggestions"][0]["rows_before"], result["suggestions"][0]["rows_after"]) == (ROWS, ROWS_AFTER)

    async def runtime() -> None:
        result = await post(fetch, "runtime", {"kernel_id": kernel_id, "suggestion": suggestion, "runs": 1,
                                                  "time_limit": 120})
        assert result["outputs_equal"] is True, result

    async def replay_sales() -> None:
        result = await post(fetch, "replay", {"path": "sales_pipeline.py", "timeout": 300})
        sales = next(s for s in result["suggestions"] if s["source"] == "sales")
        assert (sales["rows_before"], sales["rows_after"]) == (1000, 4)

    async def replay_quick() -> None:
        result = await post(fetch, "replay", {"path": "quick.py", "timeout": 60})
        assert result["notebook"] == "quick.py" and result["suggestions"] == []

    async def counted(request: Any) -> None:
        nonlocal in_flight
        in_flight += 1
        try:
            await request
        finally:
            in_flight -= 1

    watcher = asyncio.ensure_future(watch())
    started = time.monotonic()
    try:
        await asyncio.gather(*map(counted, (
            *(optimize(i) for i in range(OPTIMIZE)), *(measure() for _ in range(MEASURE)),
            *(runtime() for _ in range(RUNTIME)), replay_sales(), *(replay_quick() for _ in range(QUICK_REPLAYS)))))
    finally:
        done.set()
        await watcher
    took = time.monotonic() - started
    requests = OPTIMIZE + MEASURE + RUNTIME + 1 + QUICK_REPLAYS + len(latencies)
    print(f"\nload: {requests} requests in {took:.0f} s ({OPTIMIZE} optimize, {MEASURE} measure, {RUNTIME} runtime, "
          f"{1 + QUICK_REPLAYS} replay, {len(latencies)} health); health: max {max(latencies):.3f} s, "
          f"median {sorted(latencies)[len(latencies) // 2]:.3f} s; processes started for the requests: "
          f"{sum('ipykernel' in c for c in seen.values())} kernels, {sum('java' in c for c in seen.values())} JVMs")
    assert requests <= 700
    on_loop = sorted({name for name, on in blocking_calls if on})
    assert on_loop == [], f"ran on the event loop: {on_loop}"
    assert {name for name, _ in blocking_calls} >= {"parse_optimize_request", "_optimize", "parse_measure_request",
                                                    "parse_runtime_request", "parse_replay_request",
                                                    "read_document"}
    assert answered_under_load > 0, "the health route never answered while the requests ran"
    # nothing left behind: the replays' kernels shut down, their JVMs with them
    assert km.list_kernel_ids() == [kernel_id]
    assert any("java" in cmd for cmd in seen.values()), "the PySpark replay's JVM was never seen"
    # a PySpark worker daemon leaves once it sees its JVM gone; on a loaded 2-core machine that took over 30 s
    ends = time.monotonic() + 90
    while any(pid_alive(pid) for pid in seen) and time.monotonic() < ends:
        await asyncio.sleep(0.5)
    left = {pid: cmd[:120] for pid, cmd in seen.items() if pid_alive(pid)}
    assert left == {}, left
    programs = sorted({os.path.basename(cmd.split()[0]) for cmd in seen.values() if cmd.split()})
    print("processes started for the requests, all ended:", programs)
